package fsys

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A preallocated copy reserves its blocks but reads as what was written:
// its size stays 0 until the bytes come, and ends at exactly what was
// written (an interrupted copy does not look longer than it is).
func TestPreallocateReservesWithoutGrowing(t *testing.T) {
	dir := t.TempDir()
	f, err := OS{}.CreateTemp(dir, "clip.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 16 << 20
	Preallocate(f, n)
	fi, err := os.Stat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 0 {
		t.Fatalf("size after Preallocate = %d, want 0", fi.Size())
	}
	if blocks := fi.Sys().(*syscall.Stat_t).Blocks * 512; blocks < n {
		t.Skipf("%s does not reserve blocks (fallocate): %d bytes reserved", dir, blocks)
	}
	half := bytes.Repeat([]byte{0xA5}, n/2)
	if _, err := f.Write(half); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, half) {
		t.Fatalf("read %d bytes back, want the %d written", len(got), len(half))
	}
	// Cutting an interrupted copy back (OpenAppend) drops the reserve past
	// the cut too.
	w, err := OS{}.OpenAppend(f.Name(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	fi, _ = os.Stat(f.Name())
	if fi.Size() != 1<<20 {
		t.Fatalf("size after the cut = %d, want %d", fi.Size(), 1<<20)
	}
	if blocks := fi.Sys().(*syscall.Stat_t).Blocks * 512; blocks > 2<<20 {
		t.Fatalf("%d bytes still reserved after cutting to 1 MiB", blocks)
	}
}

// Small files (frames) are left to the filesystem.
func TestPreallocateLeavesFramesAlone(t *testing.T) {
	f, err := OS{}.CreateTemp(t.TempDir(), "frame.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Preallocate(f, PreallocMin-1)
	fi, _ := os.Stat(f.Name())
	if b := fi.Sys().(*syscall.Stat_t).Blocks; b != 0 {
		t.Fatalf("a %d-byte frame had %d blocks reserved", PreallocMin-1, b*512)
	}
}

// A reserve larger than the filesystem is not an error: the writes say
// what is wrong when they get there.
func TestPreallocateTooBigIsIgnored(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	f, err := OS{}.CreateTemp(dir, "big.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Preallocate(f, int64(st.Blocks)*int64(st.Bsize)*2)
	if _, err := f.Write([]byte("frame")); err != nil {
		t.Fatalf("write after an impossible reserve: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Clean(f.Name())); string(got) != "frame" {
		t.Fatalf("read back %q", got)
	}
}
