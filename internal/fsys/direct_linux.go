package fsys

import (
	"os"

	"golang.org/x/sys/unix"
)

// openDirect opens name for reading past the page cache (O_DIRECT): every
// byte comes from the medium, and nothing read fills the cache. ok is
// false where the filesystem does not do O_DIRECT (tmpfs, some network
// and FUSE filesystems): the caller reads through the cache then.
func openDirect(name string) (*directFile, bool) {
	// O_NOATIME too: a card re-read (probe, --verify source+dest) writes
	// nothing to the card, not even access times.
	f, err := openNoAtime(name, os.O_RDONLY|unix.O_DIRECT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, false
	}
	return &directFile{File: f}, true
}

// DropCache drops what other readers left in the cache (the reads
// themselves never fill it).
func (f *directFile) DropCache() error { return dropCache(f.File) }

// openNoCacheDirect opens a copy for read-back with O_DIRECT, unless
// DIT_READBACK_CACHED is set (to compare) or the filesystem cannot.
func openNoCacheDirect(name string) (File, bool) {
	if os.Getenv("DIT_READBACK_CACHED") != "" {
		return nil, false
	}
	f, ok := openDirect(name)
	if !ok {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	// The reads bypass the cache; what the copy left there goes too (the
	// memory is better used by the copies still to come). No fdatasync
	// first: the copy is durable already, and on ext4 an fdatasync of a
	// clean file still flushes the drive's cache (a flush a frame, for
	// nothing). Pages still dirty stay, and the kernel writes them back
	// before the first O_DIRECT read.
	dropRange(f.File, 0, 0)
	return f, true
}

func alignedBlock(n int) []byte { return alignedBuf(n)[:n] }
