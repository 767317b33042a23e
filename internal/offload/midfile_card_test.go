package offload

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
)

// interruptAfterCheckpoint copies card (one big file) to dests with
// checkpoints every `every` bytes and cancels once stop bytes are read:
// the interrupted job, its checkpoints kept.
func interruptAfterCheckpoint(t *testing.T, e *env, card string, dests []string, every, stop int64) *Summary {
	t.Helper()
	return interruptAfterCheckpointWith(t, e, card, dests, every, stop, nil)
}

// interruptAfterCheckpointWith is interruptAfterCheckpoint with the
// job's hash algorithms (nil: the tests' default, md5 and xxh64).
func interruptAfterCheckpointWith(t *testing.T, e *env, card string, dests []string, every, stop int64, algos []hashing.Algo) *Summary {
	t.Helper()
	read := &atomic.Int64{}
	o := e.opts([]string{card}, dests)
	if algos != nil {
		o.Hashes = algos
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Stopped by the read that reaches stop, whatever the machine's load.
	o.CheckpointEvery, o.Throttle = every, 8<<20
	o.FS = stopFS{countFS: countFS{FS: fsys.OS{}, root: card, n: read}, stop: stop, cancel: cancel}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	return s
}

// The card's file changes inside the part a mid-file resume keeps (one
// byte, same size and time). The resume reads the card's kept part again
// (all of it when the job hashes with xxh3, whose state cannot be saved;
// the interval before the lowest checkpoint a copy goes on from when it
// hashes with md5 and xxh64, the change lying there), finds it differs
// from the checkpoint's, says so, and copies the file whole from one
// read: the copies are the card's bytes as they are now, never a splice
// of two reads called verified.
func TestMidFileResumeCardChangedInKeptPart(t *testing.T) {
	t.Run("xxh3, read whole", func(t *testing.T) { testMidFileResumeCardChanged(t, []hashing.Algo{hashing.XXH3}) })
	t.Run("md5+xxh64, in the span read again", func(t *testing.T) {
		testMidFileResumeCardChanged(t, []hashing.Algo{hashing.MD5, hashing.XXH64})
	})
}

func testMidFileResumeCardChanged(t *testing.T, algos []hashing.Algo) {
	e := newEnv(t)
	body := bigContent(4<<20, 21)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s := interruptAfterCheckpointWith(t, e, card, []string{d1, d2}, 256<<10, 3<<20, algos)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["BIG.mov"], 2)
	at := int64(1000)
	low := int64(-1)
	for _, p := range parts["BIG.mov"] {
		require.Greater(t, p.Offset, int64(1<<20)+1000, "the change lies before the last MiB kept")
		if low < 0 || p.Offset < low {
			low = p.Offset
		}
		require.Equal(t, hashing.AllMarshalable(algos), p.State != "", "a card side is recorded when the hashers can save their state")
	}
	if hashing.AllMarshalable(algos) {
		at = low - 1000 // in the span before the lowest checkpoint
	}

	src := filepath.Join(card, "BIG.mov")
	fi, err := os.Stat(src)
	require.NoError(t, err)
	now := []byte(body)
	now[at] ^= 0x10
	require.NoError(t, os.WriteFile(src, now, 0o644))
	require.NoError(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))

	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	for _, d := range []string{d1, d2} {
		got, err := os.ReadFile(filepath.Join(d, "day01", "A001", "BIG.mov"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(now, got), "the copy on %s is the card's file as it is now, whole (differs at %d)", d, firstDiff(now, got))
	}
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	var warned []string
	for _, ev := range e.events {
		if ev.Type == EvWarning && strings.Contains(ev.Message, "BIG.mov") {
			warned = append(warned, ev.Message)
		}
	}
	require.Len(t, warned, 1, "a warning says why the file is copied whole")
	require.Contains(t, warned[0], "changed")
	require.Contains(t, strings.Join(s2.Warnings, "\n"), "BIG.mov", "and the summary keeps it")
}

// firstDiff is the first offset where a and b differ (-1: equal).
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// writeCountFS counts the bytes written to copies below each root.
type writeCountFS struct {
	fsys.FS
	roots map[string]*atomic.Int64
}

func (f writeCountFS) counter(p string) *atomic.Int64 {
	for r, n := range f.roots {
		if strings.HasPrefix(p, r+string(filepath.Separator)) {
			return n
		}
	}
	return nil
}

func (f writeCountFS) CreateTemp(dir, pattern string) (fsys.WFile, error) {
	w, err := f.FS.CreateTemp(dir, pattern)
	if n := f.counter(dir); err == nil && n != nil {
		return countedW{WFile: w, n: n}, nil
	}
	return w, err
}

func (f writeCountFS) OpenAppend(name string, size int64) (fsys.WFile, error) {
	w, err := fsys.OpenAppend(f.FS, name, size)
	if n := f.counter(name); err == nil && n != nil {
		return countedW{WFile: w, n: n}, nil
	}
	return w, err
}

type countedW struct {
	fsys.WFile
	n *atomic.Int64
}

func (w countedW) Write(b []byte) (int, error) {
	n, err := w.WFile.Write(b)
	w.n.Add(int64(n))
	return n, err
}

// One copy's kept part is damaged (a flipped byte near its start), dit
// stopped at 80 %: the resume goes on, copy by copy, from what each kept
// temp still proves. The intact copy is gone on with from its checkpoint
// (under 40 % of the file written to it again), the damaged one written
// whole, both from one read of the card from the start (the kept part
// read again to check it is still the card's); both copies are right.
func TestMidFileResumePerCopy(t *testing.T) {
	// The resume reads the card in blocks of the first run's size (the
	// checkpoints fall between blocks), or of another (inside blocks).
	for _, bs := range []int{64 << 10, 96 << 10} {
		t.Run(units.FormatBytes(int64(bs)), func(t *testing.T) { testMidFileResumePerCopy(t, bs) })
	}
}

func testMidFileResumePerCopy(t *testing.T, blockSize int) {
	e := newEnv(t)
	size := 8 << 20
	body := bigContent(size, 23)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s := interruptAfterCheckpoint(t, e, card, []string{d1, d2}, 256<<10, int64(size)*8/10)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["BIG.mov"], 2)
	var goodTemp string
	for _, p := range parts["BIG.mov"] {
		require.Greater(t, p.Offset, int64(size)*7/10, "checkpointed near the stop")
		if strings.HasPrefix(p.Temp, d2) {
			fh, err := os.OpenFile(p.Temp, os.O_RDWR, 0)
			require.NoError(t, err)
			var b [1]byte
			fh.ReadAt(b[:], 1000)
			b[0] ^= 0x40
			fh.WriteAt(b[:], 1000)
			fh.Close()
		} else {
			goodTemp = p.Temp
		}
	}
	kept := inode(t, goodTemp)

	read := &atomic.Int64{}
	w1, w2 := &atomic.Int64{}, &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery, o2.BlockSize = 256<<10, blockSize
	o2.FS = countFS{FS: writeCountFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: w1, d2: w2}}, root: card, n: read}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	for _, d := range []string{d1, d2} {
		got, err := os.ReadFile(filepath.Join(d, "day01", "A001", "BIG.mov"))
		require.NoError(t, err)
		require.True(t, bytes.Equal([]byte(body), got), "the copy on %s is the card's file (differs at %d)", d, firstDiff([]byte(body), got))
	}
	t.Logf("after the resume: read from the card %d, written to the intact copy %d, to the damaged one %d (of %d)", read.Load(), w1.Load(), w2.Load(), size)
	require.Equal(t, kept, inode(t, filepath.Join(d1, "day01", "A001", "BIG.mov")), "the intact copy is its kept temp, gone on with")
	require.Less(t, w1.Load(), int64(size)*4/10, "the intact copy goes on from its own checkpoint, not from the start")
	require.Equal(t, int64(size), w2.Load(), "the damaged copy is written whole")
	require.Equal(t, int64(size), read.Load(), "the card is read once: the kept part again (checked), then the rest")
}

// stopFS cancels the job once stop bytes are read from the card.
type stopFS struct {
	countFS
	stop   int64
	cancel func()
}

func (s stopFS) Open(name string) (fsys.File, error) {
	f, err := s.countFS.Open(name)
	if cf, ok := f.(*countFile); ok && err == nil {
		return &stopFile{countFile: cf, fs: s}, nil
	}
	return f, err
}

type stopFile struct {
	*countFile
	fs stopFS
}

func (f *stopFile) Read(b []byte) (int, error) {
	n, err := f.countFile.Read(b)
	if f.n.Load() >= f.fs.stop {
		f.fs.cancel()
	}
	return n, err
}
