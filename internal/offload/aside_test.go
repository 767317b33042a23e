package offload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/raid"
)

// flipOnceFS flips one bit of the copy at match (on its medium) the first
// time it is read back: the destination stored a wrong bit.
type flipOnceFS struct {
	fsys.FS
	match string
	once  *sync.Once
}

func (f flipOnceFS) OpenNoCache(name string) (fsys.File, error) {
	if strings.HasSuffix(name, f.match) {
		f.once.Do(func() { flipFS{FS: f.FS, match: f.match}.OpenNoCache(name) })
	}
	return f.FS.OpenNoCache(name)
}

// A copy that fails its read-back never keeps the card's file name: it is
// moved aside to NAME.dit-failed (a numbered name when that exists, never
// replacing it), named in the failure; a resume copies the file again to
// its name, verifies it and removes the failed copies.
func TestFailedReadBackMovedAside(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	rel := filepath.Join("day01", "A001", "CLIPS", "C002.mov")
	real := filepath.Join(d2, rel)
	// A failed copy of an earlier job is already aside there.
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o755))
	require.NoError(t, os.WriteFile(real+FailedSuffix, []byte("older failed copy"), 0o644))
	o := e.opts([]string{a}, []string{d1, d2})
	o.FS = flipOnceFS{FS: fsys.OS{}, match: filepath.Join("d2", rel), once: &sync.Once{}}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	ca := cardByLabel(s, "A001")
	require.Len(t, ca.Failures, 1)
	aside := real + FailedSuffix + ".2"
	require.Contains(t, ca.Failures[0].Error, "xxh64 mismatch")
	require.Contains(t, ca.Failures[0].Error, "moved aside to "+aside)
	require.NoFileExists(t, real, "a copy that failed its read-back does not keep the card's file name")
	want := mustRead(t, filepath.Join(a, "CLIPS", "C002.mov"))
	got := mustRead(t, aside)
	require.Len(t, got, len(want))
	require.NotEqual(t, want, got, "the aside copy is the failed one")
	require.Equal(t, "older failed copy", string(mustRead(t, real+FailedSuffix)), "never overwritten")

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s, err = j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.Equal(t, want, mustRead(t, real))
	require.NoFileExists(t, aside, "the resume's verified copy replaces the failed ones")
	require.NoFileExists(t, real+FailedSuffix)
	require.Equal(t, treeHashes(t, a), treeHashes(t, filepath.Join(d2, "day01", "A001")))
}

// On a dit array (RAID 0, a blade returning bad data) a copy that fails
// its read-back is moved aside through the array's own rename as well.
func TestFailedReadBackMovedAsideOnArray(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	blades := makeArray(t, e, raid.RAID0, 3)
	o := e.opts([]string{a}, []string{blades[0]})
	o.BladeFS = func(dir string) raid.BladeFS {
		if dir == blades[1] {
			return lyingBlade{raid.DirFS{Dir: dir}}
		}
		return raid.DirFS{Dir: dir}
	}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	ca := cardByLabel(s, "A001")
	require.NotEmpty(t, ca.Failures)
	arr, err := raid.Open([]string{blades[0]}, raid.OpenOptions{})
	require.NoError(t, err)
	defer arr.Close()
	for _, f := range ca.Failures {
		require.Contains(t, f.Error, FailedSuffix, f.Path)
		p := "day01/A001/" + f.Path
		_, ok := arr.Lookup(p)
		require.False(t, ok, "%s keeps its name on the array", p)
		_, ok = arr.Lookup(p + FailedSuffix)
		require.True(t, ok, "%s moved aside on the array", p)
	}
}

// A new job to the same folder (not a resume) replaces the failed copy
// too: it copies the file to its name and removes the .dit-failed copy
// once the new copy verifies.
func TestNewJobReplacesAsideCopy(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d := e.dest("d1")
	rel := filepath.Join("day01", "A001", "CLIPS", "C001.mov")
	o := e.opts([]string{a}, []string{d})
	o.FS = flipOnceFS{FS: fsys.OS{}, match: filepath.Join("d1", rel), once: &sync.Once{}}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	real := filepath.Join(d, rel)
	require.NoFileExists(t, real)
	require.FileExists(t, real+FailedSuffix)

	s, err = e.run(e.opts([]string{a}, []string{d}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.NotEqual(t, int64(1), s.JobID, "a new job")
	require.Equal(t, mustRead(t, filepath.Join(a, "CLIPS", "C001.mov")), mustRead(t, real))
	require.NoFileExists(t, real+FailedSuffix)
	require.Equal(t, treeHashes(t, a), treeHashes(t, filepath.Join(d, "day01", "A001")))
}
