package fsys

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// residentDarwin counts the pages of path held in the unified buffer cache.
func residentDarwin(t *testing.T, path string) int {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fi, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	require.Zero(t, errno)
	n := 0
	for _, v := range vec {
		n += int(v & 1) // MINCORE_INCORE
	}
	return n
}

// On macOS F_NOCACHE does not evict pages already cached: a copy just
// written would be "read back" from memory. OpenNoCache must evict them.
func TestOpenNoCacheDropsPagesDarwin(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.mov")
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	w, err := OS{}.CreateTemp(dir, "x*")
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	require.NoError(t, w.Close())
	require.NoError(t, os.Rename(w.Name(), p))
	require.Greater(t, residentDarwin(t, p), 0, "just written: cached")

	f, err := OS{}.OpenNoCache(p)
	require.NoError(t, err)
	require.Equal(t, 0, residentDarwin(t, p), "evicted before the read-back")
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, data, got)
}
