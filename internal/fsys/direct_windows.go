package fsys

import (
	"os"

	"golang.org/x/sys/windows"
)

// openNoCacheDirect opens a copy for read-back with FILE_FLAG_NO_BUFFERING:
// every read comes from the volume, not the system file cache (NTFS and
// exFAT write a file's cached dirty data back before such a read). The
// reads are sector-aligned as for O_DIRECT (see directFile). Where the
// filesystem refuses the flag, or DIT_READBACK_CACHED is set, ok is false
// and OpenNoCache fails with ErrCachedReadBack: Windows cannot drop cached
// pages, so a cached read-back would prove nothing.
func openNoCacheDirect(name string) (File, bool) {
	if os.Getenv("DIT_READBACK_CACHED") != "" {
		return nil, false
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, false
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_NO_BUFFERING|windows.FILE_FLAG_SEQUENTIAL_SCAN, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(h), name)
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return &directFile{File: f}, true
}

// DropCache: the reads bypass the cache; nothing to drop.
func (f *directFile) DropCache() error { return nil }

func alignedBlock(n int) []byte { return alignedBuf(n)[:n] }
