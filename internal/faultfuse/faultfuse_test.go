//go:build linux

package faultfuse

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// within bounds how long a test waits for an event before failing: a
// safety net far above what the waits take, even on a busy machine (it
// never sleeps for correctness; this only turns a hang into a failure).
const within = 3 * time.Minute

func randomFile(t *testing.T, p string, size int, seed int64) []byte {
	t.Helper()
	b := make([]byte, size)
	rand.New(rand.NewSource(seed)).Read(b)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return b
}

func TestLoopbackPassesThrough(t *testing.T) {
	backing := t.TempDir()
	want := randomFile(t, filepath.Join(backing, "DCIM", "A.MOV"), 3<<20+17, 1)
	f := Mount(t, backing)

	got, err := os.ReadFile(filepath.Join(f.Dir(), "DCIM", "A.MOV"))
	require.NoError(t, err)
	require.Equal(t, want, got)
	// Direct I/O: the second read reaches the server too.
	got, err = os.ReadFile(filepath.Join(f.Dir(), "DCIM", "A.MOV"))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, int64(2*len(want)), f.Reads("DCIM/A.MOV"))

	// Writes, fsync, a no-replace rename and mtimes reach the backing folder.
	tmp := filepath.Join(f.Dir(), "DCIM", ".B.MOV.tmp")
	w, err := os.Create(tmp)
	require.NoError(t, err)
	_, err = w.Write(want)
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	require.NoError(t, w.Close())
	mt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(tmp, mt, mt))
	require.NoError(t, unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, filepath.Join(f.Dir(), "DCIM", "B.MOV"), unix.RENAME_NOREPLACE))
	err = unix.Renameat2(unix.AT_FDCWD, filepath.Join(f.Dir(), "DCIM", "B.MOV"), unix.AT_FDCWD, filepath.Join(f.Dir(), "DCIM", "A.MOV"), unix.RENAME_NOREPLACE)
	require.ErrorIs(t, err, syscall.EEXIST)
	b, err := os.ReadFile(filepath.Join(backing, "DCIM", "B.MOV"))
	require.NoError(t, err)
	require.Equal(t, want, b)
	fi, err := os.Stat(filepath.Join(f.Dir(), "DCIM", "B.MOV"))
	require.NoError(t, err)
	require.True(t, fi.ModTime().Equal(mt), fi.ModTime())
}

func TestFlipBitOnFirstRead(t *testing.T) {
	backing := t.TempDir()
	want := randomFile(t, filepath.Join(backing, "clip.mxf"), 1<<20, 2)
	f := Mount(t, backing)
	const off = 300_001
	f.FlipBitOnFirstRead("clip.mxf", off)

	got, err := os.ReadFile(filepath.Join(f.Dir(), "clip.mxf"))
	require.NoError(t, err)
	require.Len(t, got, len(want))
	require.Equal(t, want[off]^1, got[off], "the first read returns bit 0 flipped")
	got[off] ^= 1
	require.Equal(t, want, got, "only that bit")

	got, err = os.ReadFile(filepath.Join(f.Dir(), "clip.mxf"))
	require.NoError(t, err)
	require.Equal(t, want, got, "later reads are correct")
	require.Equal(t, want, mustRead(t, filepath.Join(backing, "clip.mxf")), "the backing file is never changed")
}

func TestEIOAt(t *testing.T) {
	backing := t.TempDir()
	want := randomFile(t, filepath.Join(backing, "a", "bad.bin"), 1<<20, 3)
	f := Mount(t, backing)
	const off = 700_000
	f.EIOAt("a/bad.bin", off)

	for range 2 {
		_, err := os.ReadFile(filepath.Join(f.Dir(), "a", "bad.bin"))
		require.ErrorIs(t, err, syscall.EIO, "every read covering the byte fails")
	}
	h, err := os.Open(filepath.Join(f.Dir(), "a", "bad.bin"))
	require.NoError(t, err)
	defer h.Close()
	head := make([]byte, 64<<10)
	_, err = h.ReadAt(head, 0)
	require.NoError(t, err, "reads elsewhere succeed")
	require.Equal(t, want[:len(head)], head)
	_, err = h.ReadAt(head, off-10)
	require.ErrorIs(t, err, syscall.EIO)
}

// card writes n small files, returns their names and contents.
func card(t *testing.T, backing string, n int) ([]string, map[string][]byte) {
	var names []string
	files := map[string][]byte{}
	for i := range n {
		name := fmt.Sprintf("DCIM/100CANON/IMG_%04d.CR3", i)
		files[name] = randomFile(t, filepath.Join(backing, filepath.FromSlash(name)), 4096+i, int64(i))
		names = append(names, name)
	}
	return names, files
}

func TestFailReadsAfter(t *testing.T) {
	backing := t.TempDir()
	names, files := card(t, backing, 10)
	f := Mount(t, backing)
	p := func(name string) string { return filepath.Join(f.Dir(), filepath.FromSlash(name)) }
	f.FailReadsAfter(3)

	for _, name := range names[:3] {
		require.Equal(t, files[name], mustRead(t, p(name)))
	}
	select {
	case <-f.Tripped():
	case <-time.After(within):
		t.Fatal("the fault did not trip after 3 files were read")
	}
	_, err := os.ReadFile(p(names[3]))
	require.ErrorIs(t, err, syscall.EIO)
	_, err = os.Stat(p(names[4]))
	require.ErrorIs(t, err, syscall.EIO, "stat of a regular file fails")
	_, err = os.Lstat(p(names[0]))
	require.ErrorIs(t, err, syscall.EIO, "also of one read before")
	fi, err := os.Stat(f.Dir())
	require.NoError(t, err, "the root still stats")
	require.True(t, fi.IsDir())
	_, err = os.Stat(filepath.Join(f.Dir(), "DCIM"))
	require.NoError(t, err, "folders still stat")
	ents, err := os.ReadDir(filepath.Join(f.Dir(), "DCIM", "100CANON"))
	require.NoError(t, err, "folders still list")
	require.Len(t, ents, 10)

	f.Heal()
	for _, name := range names {
		require.Equal(t, files[name], mustRead(t, p(name)), "healed")
	}
}

// A handle opened before the fault trips fails too, and the (n+1)th open
// trips it even if the earlier files are still open.
func TestFailReadsAfterOpenHandles(t *testing.T) {
	backing := t.TempDir()
	names, _ := card(t, backing, 3)
	f := Mount(t, backing)
	f.FailReadsAfter(1)
	h, err := os.Open(filepath.Join(f.Dir(), filepath.FromSlash(names[0])))
	require.NoError(t, err)
	defer h.Close()
	_, err = os.Open(filepath.Join(f.Dir(), filepath.FromSlash(names[1])))
	require.ErrorIs(t, err, syscall.EIO, "the second open trips the fault")
	_, err = io.ReadAll(h)
	require.ErrorIs(t, err, syscall.EIO, "an open handle fails once tripped")
}

func TestFailAllAfterKeepsRoot(t *testing.T) {
	backing := t.TempDir()
	names, files := card(t, backing, 4)
	f := Mount(t, backing)
	f.FailAllAfter(1)
	require.Equal(t, files[names[0]], mustRead(t, filepath.Join(f.Dir(), filepath.FromSlash(names[0]))))
	<-f.Tripped()

	fi, err := os.Lstat(f.Dir())
	require.NoError(t, err, "the mount point still stats")
	require.True(t, fi.IsDir())
	_, err = os.ReadDir(f.Dir())
	require.ErrorIs(t, err, syscall.EIO, "listing the root fails")
	_, err = os.Stat(filepath.Join(f.Dir(), "DCIM"))
	require.ErrorIs(t, err, syscall.EIO, "folders fail")
	_, err = os.ReadFile(filepath.Join(f.Dir(), filepath.FromSlash(names[1])))
	require.ErrorIs(t, err, syscall.EIO)

	f.Heal()
	ents, err := os.ReadDir(filepath.Join(f.Dir(), "DCIM", "100CANON"))
	require.NoError(t, err)
	require.Len(t, ents, 4)
}

func TestStallRename(t *testing.T) {
	backing := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(backing, "ascmhl"), 0o755))
	randomFile(t, filepath.Join(backing, "ascmhl", ".chain.tmp"), 100, 4)
	f := Mount(t, backing)
	stalled := f.StallRename("ascmhl_chain.xml")
	target := filepath.Join(f.Dir(), "ascmhl", "ascmhl_chain.xml")

	errc := make(chan error, 1)
	go func() { errc <- os.Rename(filepath.Join(f.Dir(), "ascmhl", ".chain.tmp"), target) }()
	select {
	case got := <-stalled:
		require.Equal(t, target, got)
	case <-time.After(within):
		t.Fatal("the rename did not stall")
	}
	select {
	case err := <-errc:
		t.Fatalf("the rename returned (%v) before Release", err)
	default:
	}
	require.NoFileExists(t, filepath.Join(backing, "ascmhl", "ascmhl_chain.xml"))
	f.Release()
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-time.After(within):
		t.Fatal("the rename did not finish after Release")
	}
	require.FileExists(t, filepath.Join(backing, "ascmhl", "ascmhl_chain.xml"))

	// Released: later renames run normally.
	randomFile(t, filepath.Join(backing, "ascmhl", ".chain2.tmp"), 100, 5)
	require.NoError(t, os.Rename(filepath.Join(f.Dir(), "ascmhl", ".chain2.tmp"), target))
}

// A stalled rename whose process is killed is interrupted: the process
// dies at once (before Release) and the rename never happens.
func TestStallRenameKilledCaller(t *testing.T) {
	mv, err := exec.LookPath("mv")
	if err != nil {
		t.Skip("no mv here")
	}
	backing := t.TempDir()
	src := randomFile(t, filepath.Join(backing, ".x.tmp"), 100, 6)
	f := Mount(t, backing)
	stalled := f.StallRename("x.xml")
	cmd := exec.Command(mv, filepath.Join(f.Dir(), ".x.tmp"), filepath.Join(f.Dir(), "x.xml"))
	require.NoError(t, cmd.Start())
	select {
	case <-stalled:
	case <-time.After(within):
		t.Fatal("the rename did not stall")
	}
	require.NoError(t, cmd.Process.Kill())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(within):
		f.Release()
		t.Fatal("the killed process did not die while its rename was stalled")
	}
	f.Release()
	require.NoFileExists(t, filepath.Join(backing, "x.xml"), "the interrupted rename did not happen")
	require.Equal(t, src, mustRead(t, filepath.Join(backing, ".x.tmp")))
}

func TestMountAt(t *testing.T) {
	backing := t.TempDir()
	want := randomFile(t, filepath.Join(backing, "A.MOV"), 1000, 8)
	mp := filepath.Join(t.TempDir(), "A001")
	require.NoError(t, os.Mkdir(mp, 0o755))
	f := MountAt(t, backing, mp)
	require.Equal(t, mp, f.Dir())
	require.Equal(t, want, mustRead(t, filepath.Join(mp, "A.MOV")))
}

func TestDisappear(t *testing.T) {
	backing := t.TempDir()
	want := randomFile(t, filepath.Join(backing, "A.MOV"), 256<<10, 7)
	f := Mount(t, backing)
	h, err := os.Open(filepath.Join(f.Dir(), "A.MOV"))
	require.NoError(t, err)
	defer h.Close()
	head := make([]byte, 4096)
	_, err = h.ReadAt(head, 0)
	require.NoError(t, err)
	require.Equal(t, want[:4096], head)

	f.Disappear()
	_, err = h.ReadAt(head, 8192)
	require.Error(t, err, "an open file of a pulled card fails")
	ents, err := os.ReadDir(f.Dir())
	require.NoError(t, err, "the mount point is left as a folder")
	require.Empty(t, ents)
	require.Equal(t, want, mustRead(t, filepath.Join(backing, "A.MOV")))
	f.Disappear() // idempotent; the cleanup unmount too
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
