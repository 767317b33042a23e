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

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// readBackFS counts the bytes read back (OpenNoCache) below each root,
// and calls onAppend before a kept temp is reopened to go on writing it.
type readBackFS struct {
	fsys.FS
	roots    map[string]*atomic.Int64
	onAppend func(name string)
	corrupt  int64 // >0: the first write after a reopen has its byte at this offset of the write flipped
}

func (f readBackFS) OpenNoCache(name string) (fsys.File, error) {
	file, err := f.FS.OpenNoCache(name)
	for r, n := range f.roots {
		if err == nil && strings.HasPrefix(name, r+string(filepath.Separator)) {
			return &countFile{File: file, n: n}, nil
		}
	}
	return file, err
}

func (f readBackFS) OpenAppend(name string, size int64) (fsys.WFile, error) {
	if f.onAppend != nil {
		f.onAppend(name)
	}
	w, err := fsys.OpenAppend(f.FS, name, size)
	if err == nil && f.corrupt > 0 {
		return &flipW{WFile: w, at: f.corrupt}, nil
	}
	return w, err
}

// flipW flips one byte of its first write: a destination that stores
// other bytes than it was given.
type flipW struct {
	fsys.WFile
	at   int64
	done bool
}

func (w *flipW) Write(b []byte) (int, error) {
	if !w.done && int64(len(b)) > w.at {
		w.done = true
		c := append([]byte(nil), b...)
		c[w.at] ^= 0x01
		return w.WFile.Write(c)
	}
	return w.WFile.Write(b)
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer fh.Close()
	var b [1]byte
	_, err = fh.ReadAt(b[:], off)
	require.NoError(t, err)
	b[0] ^= 0x40
	_, err = fh.WriteAt(b[:], off)
	require.NoError(t, err)
}

func keptParts(t *testing.T, e *env, jobID int64, rel string) map[string]*catalog.Partial {
	t.Helper()
	parts, err := e.cat.Partials(mustCardID(t, e, jobID))
	require.NoError(t, err)
	out := map[string]*catalog.Partial{}
	for _, p := range parts[rel] {
		out[filepath.Dir(filepath.Dir(filepath.Dir(p.Temp)))] = p // DEST/day01/A001/temp
	}
	return out
}

// The read of a kept prefix that proves it is that prefix's read-back: a
// copy gone on with is read back once whole (its prefix at resume, the
// rest after the copy), never twice; a copy whose prefix lost a byte
// after it was written starts over and is read back whole after its
// copy; both copies verify and are the card's bytes.
func TestMidFileResumeProofIsTheReadBack(t *testing.T) {
	e := newEnv(t)
	size := int64(8 << 20)
	body := bigContent(int(size), 31)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s := interruptAfterCheckpoint(t, e, card, []string{d1, d2}, 256<<10, size*8/10)
	parts := keptParts(t, e, s.JobID, "BIG.mov")
	require.Len(t, parts, 2)
	flipByte(t, parts[d2].Temp, 1000) // found when the prefix is proved

	r1, r2 := &atomic.Int64{}, &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	o2.FS = readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: r1, d2: r2}}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	require.True(t, s2.Cards[0].SafeToFormat)
	for _, d := range []string{d1, d2} {
		got, err := os.ReadFile(filepath.Join(d, "day01", "A001", "BIG.mov"))
		require.NoError(t, err)
		require.True(t, bytes.Equal([]byte(body), got), "the copy on %s is the card's file (differs at %d)", d, firstDiff([]byte(body), got))
	}
	t.Logf("read back: intact copy %d, damaged one %d (file %d, kept %d and %d)", r1.Load(), r2.Load(), size, parts[d1].Offset, parts[d2].Offset)
	require.Equal(t, size, r1.Load(), "the intact copy is read back once: its prefix when proved, the rest after the copy")
	require.Equal(t, parts[d2].Offset+size, r2.Load(), "the damaged copy: its prefix read to prove it (and refused), then the new copy read back whole")
}

// A byte the destination stores wrong after the kept prefix (the part
// written by the resume) is found by the verification of the rest: the
// copy is not verified, the card not safe to format.
func TestMidFileResumeBadRestFoundByVerify(t *testing.T) {
	e := newEnv(t)
	size := int64(4 << 20)
	body := bigContent(int(size), 33)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	s := interruptAfterCheckpoint(t, e, card, []string{d1}, 256<<10, size*8/10)
	require.Len(t, keptParts(t, e, s.JobID, "BIG.mov"), 1)

	r1 := &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	o2.FS = readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: r1}, corrupt: 100}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.NotEqual(t, ExitOK, s2.ExitCode)
	require.False(t, s2.Cards[0].SafeToFormat)
	require.Len(t, s2.Cards[0].Failures, 1)
	require.Contains(t, s2.Cards[0].Failures[0].Error, "mismatch")
	require.Equal(t, size, r1.Load(), "read back once whole: the prefix at resume, the rest after the copy")
}

// A kept prefix proved at resume, then replaced by another file (one
// whose prefix differs) before the copy goes on: the proof's read was of
// another file, so the copy is read back whole and the difference found.
func TestMidFileResumeReplacedAfterProofReadWhole(t *testing.T) {
	e := newEnv(t)
	size := int64(4 << 20)
	body := bigContent(int(size), 35)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	s := interruptAfterCheckpoint(t, e, card, []string{d1}, 256<<10, size*8/10)
	require.Len(t, keptParts(t, e, s.JobID, "BIG.mov"), 1)

	r1 := &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	o2.FS = readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: r1}, onAppend: func(name string) {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		b[2000] ^= 0x08
		other := name + ".other"
		require.NoError(t, os.WriteFile(other, b, 0o644))
		require.NoError(t, os.Rename(other, name))
	}}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.NotEqual(t, ExitOK, s2.ExitCode)
	require.False(t, s2.Cards[0].SafeToFormat)
	require.Len(t, s2.Cards[0].Failures, 1)
	require.Contains(t, s2.Cards[0].Failures[0].Error, "mismatch")
	require.Greater(t, r1.Load(), size, "the replaced copy is read back whole after its proof")
}

// A copy whose kept temp lost a byte after its earlier checkpoint goes on
// from that one, the other copy from its last: the card is read from the
// span before the lower point (both points' spans checked), the first
// copy's read-back goes on from hashers cloned at its earlier checkpoint,
// each copy is read back once whole, and both are the card's bytes.
func TestMidFileResumeTwoPointsFromTheMiddle(t *testing.T) {
	e := newEnv(t)
	size := int64(8 << 20)
	body := bigContent(int(size), 37)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s := interruptAfterCheckpoint(t, e, card, []string{d1, d2}, 256<<10, size*8/10)
	parts := keptParts(t, e, s.JobID, "BIG.mov")
	require.Len(t, parts, 2)
	p2 := parts[d2]
	require.Greater(t, p2.PrevOffset, int64(0))
	flipByte(t, p2.Temp, p2.Offset-1000) // after its earlier checkpoint
	prev, err := catalog.ParseCardState(p2.PrevState)
	require.NoError(t, err)
	require.NotNil(t, prev)

	read, r1, r2 := &atomic.Int64{}, &atomic.Int64{}, &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	o2.FS = countFS{FS: readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: r1, d2: r2}}, root: card, n: read}
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
	require.Equal(t, size-min(prev.SpanFrom, p2.PrevOffset), read.Load(), "the card read from the span before the lower point")
	require.Equal(t, size, r1.Load(), "the intact copy read back once")
	require.Equal(t, p2.Offset+size-p2.PrevOffset, r2.Load(), "the other: its prefix to the last checkpoint to prove it, then from its earlier one")
}

// A job hashing with xxh3 (its hasher cannot save its state) records no
// card side: its resume reads the card's file from the start, and the
// copies go on from their checkpoints all the same.
func TestMidFileResumeXXH3ReadsTheCardWhole(t *testing.T) {
	e := newEnv(t)
	size := int64(4 << 20)
	body := bigContent(int(size), 39)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	s := interruptAfterCheckpointWith(t, e, card, []string{d1}, 256<<10, size*8/10, []hashing.Algo{hashing.XXH3, hashing.MD5})
	parts := keptParts(t, e, s.JobID, "BIG.mov")
	require.Len(t, parts, 1)
	require.Empty(t, parts[d1].State)

	read, r1 := &atomic.Int64{}, &atomic.Int64{}
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	o2.FS = countFS{FS: readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d1: r1}}, root: card, n: read}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	got, err := os.ReadFile(filepath.Join(d1, "day01", "A001", "BIG.mov"))
	require.NoError(t, err)
	require.True(t, bytes.Equal([]byte(body), got))
	require.Equal(t, size, read.Load(), "the card read whole")
	require.Equal(t, size, r1.Load(), "the copy read back once whole all the same")
	files, err := e.cat.Files(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.XXH3, hashing.MD5}, []byte(body)), files[0].Sums)
}
