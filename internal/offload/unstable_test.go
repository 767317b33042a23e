package offload

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// unstableFS flips bit 0 of byte 1000 of the card file match on the reads
// (opens, counted from 1) listed in flips: a card or reader that returns
// wrong bytes now and then.
type unstableFS struct {
	fsys.FS
	match string
	flips map[int64]bool
	opens *atomic.Int64
}

func (f unstableFS) Open(name string) (fsys.File, error) { return f.wrap(name, f.FS.Open) }
func (f unstableFS) OpenNoCache(name string) (fsys.File, error) {
	return f.wrap(name, f.FS.OpenNoCache)
}

func (f unstableFS) wrap(name string, open func(string) (fsys.File, error)) (fsys.File, error) {
	fh, err := open(name)
	if err != nil || name != f.match {
		return fh, err
	}
	n := f.opens.Add(1)
	return &flipReader{File: fh, flip: f.flips[n]}, nil
}

type flipReader struct {
	fsys.File
	flip bool
	off  int64
}

func (r *flipReader) Read(b []byte) (int, error) {
	n, err := r.File.Read(b)
	if r.flip && r.off <= 1000 && r.off+int64(n) > 1000 {
		b[1000-r.off] ^= 0x01
	}
	r.off += int64(n)
	return n, err
}

func fileRecord(t *testing.T, e *env, jobID int64, rel string) (state string, sums hashing.Sums, copies []string) {
	t.Helper()
	cards, err := e.cat.Cards(jobID)
	require.NoError(t, err)
	files, err := e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	for _, f := range files {
		if f.Rel == rel {
			for _, cp := range f.Copies {
				copies = append(copies, cp.State)
			}
			return f.State, f.Sums, copies
		}
	}
	t.Fatalf("%s not in the catalog", rel)
	return
}

// A card that returns one flipped bit on the first read only: with
// --verify source+dest the file fails (the re-read differs). On resume the
// file is not taken as done: it is read again (twice: nothing is replaced
// before two reads agree), both copies are replaced by the card's true
// bytes, and the catalog's hashes become the true ones.
func TestFailedFileIsCopiedAgainOnResume(t *testing.T) {
	e := newEnv(t)
	body := bigContent(300_000, 7)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"CLIPS/C001.mov": body, "CLIPS/C002.mov": bigContent(5000, 8)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	src := filepath.Join(card, "CLIPS", "C001.mov")
	opens := &atomic.Int64{}
	o := e.opts([]string{card}, []string{d1, d2})
	o.Verify = VerifySourceDest
	o.FS = unstableFS{FS: fsys.OS{}, match: src, flips: map[int64]bool{1: true}, opens: opens}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	require.False(t, s.Cards[0].SafeToFormat)
	state, _, copies := fileRecord(t, e, s.JobID, "CLIPS/C001.mov")
	require.Equal(t, StateFailed, state)
	require.Equal(t, []string{StateFailed, StateFailed}, copies, "a copy of a read the card did not give again is not verified")
	for _, d := range []string{d1, d2} {
		p := filepath.Join(d, "day01", "A001", "CLIPS", "C001.mov")
		require.NoFileExists(t, p, "a copy that is not verified does not keep the card's file name")
		got, err := os.ReadFile(p + FailedSuffix)
		require.NoError(t, err)
		require.NotEqual(t, body, string(got), "the first run's copies hold the flipped read, moved aside")
	}

	// Resume, the card now reads the same every time.
	o2 := e.opts(nil, nil)
	o2.FS = unstableFS{FS: fsys.OS{}, match: src, flips: map[int64]bool{}, opens: opens}
	j, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	require.True(t, s2.Cards[0].SafeToFormat)
	for _, d := range []string{d1, d2} {
		got, err := os.ReadFile(filepath.Join(d, "day01", "A001", "CLIPS", "C001.mov"))
		require.NoError(t, err)
		require.Equal(t, body, string(got), "the copy on %s is the card's file", d)
		require.NoFileExists(t, filepath.Join(d, "day01", "A001", "CLIPS", "C001.mov"+FailedSuffix))
	}
	state, sums, copies := fileRecord(t, e, s.JobID, "CLIPS/C001.mov")
	require.Equal(t, StateVerified, state)
	require.Equal(t, []string{StateVerified, StateVerified}, copies)
	want := hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(body))
	require.Equal(t, want.Get(hashing.MD5), sums.Get(hashing.MD5), "the recorded hash is the card's true hash")
	require.Equal(t, want.Get(hashing.XXH64), sums.Get(hashing.XXH64))
}

// On resume, a failed file whose two new reads disagree replaces nothing:
// the earlier copies stay as they were, and the file fails again.
func TestFailedFileUnstableAgainReplacesNothing(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"C001.mov": bigContent(200_000, 9)})
	d1 := e.dest("d1")
	src := filepath.Join(card, "C001.mov")
	opens := &atomic.Int64{}
	o := e.opts([]string{card}, []string{d1})
	o.Verify = VerifySourceDest
	o.FS = unstableFS{FS: fsys.OS{}, match: src, flips: map[int64]bool{1: true}, opens: opens}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	copyPath := filepath.Join(d1, "day01", "A001", "C001.mov")
	require.NoFileExists(t, copyPath)
	before, err := os.ReadFile(copyPath + FailedSuffix) // moved aside
	require.NoError(t, err)

	// Resume: the first read (the probe) is right, the copy read flipped.
	o2 := e.opts(nil, nil)
	o2.FS = unstableFS{FS: fsys.OS{}, match: src, flips: map[int64]bool{opens.Load() + 2: true}, opens: opens}
	j, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s2.ExitCode)
	require.Contains(t, s2.Cards[0].Failures[0].Error, "read differently twice")
	after, err := os.ReadFile(copyPath + FailedSuffix)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing replaced")
	require.NoFileExists(t, copyPath, "nothing written under the file's name")
	state, _, _ := fileRecord(t, e, s.JobID, "C001.mov")
	require.Equal(t, StateFailed, state)
}
