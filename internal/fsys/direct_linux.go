package fsys

import (
	"errors"
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// directAlign is the alignment O_DIRECT asks of buffers, offsets and
// lengths (the logical block size of today's disks, or a multiple).
const directAlign = 4096

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

// directFile reads an O_DIRECT file. Reads go straight into the caller's
// buffer when it is aligned and its length a multiple of directAlign, else
// through an aligned bounce buffer. The file offset stays aligned: a read
// returns less than asked only at the end of the file, after which every
// read returns io.EOF without asking the kernel (an O_DIRECT read at an
// unaligned end would fail).
type directFile struct {
	*os.File
	bounce  []byte // aligned
	pending []byte // read into bounce, not yet returned
	eof     bool
}

func aligned(p []byte) bool {
	return len(p) > 0 && uintptr(unsafe.Pointer(&p[0]))%directAlign == 0
}

// alignedBuf returns n bytes (n rounded up to directAlign) at an aligned
// address.
func alignedBuf(n int) []byte {
	n = (n + directAlign - 1) / directAlign * directAlign
	b := make([]byte, n+directAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&b[0])) % directAlign); r != 0 {
		off = directAlign - r
	}
	return b[off : off+n : off+n]
}

func (f *directFile) Read(p []byte) (int, error) {
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if f.eof {
		return 0, io.EOF
	}
	if len(p) >= directAlign && aligned(p) {
		want := len(p) / directAlign * directAlign
		n, err := f.File.Read(p[:want])
		if n < want {
			f.eof = true
		}
		if err == nil && n == 0 {
			err = io.EOF
		}
		return n, err
	}
	if f.bounce == nil {
		f.bounce = alignedBuf(256 << 10)
	}
	n, err := f.File.Read(f.bounce)
	if n < len(f.bounce) {
		f.eof = true
	}
	if n == 0 {
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	f.pending = f.bounce[:n]
	k := copy(p, f.pending)
	f.pending = f.pending[k:]
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return k, err
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
