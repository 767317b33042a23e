//go:build linux || windows

package fsys

import (
	"errors"
	"io"
	"os"
	"unsafe"
)

// directAlign is the alignment O_DIRECT asks of buffers, offsets and
// lengths (the logical block size of today's disks, or a multiple).
const directAlign = 4096

// directFile reads a file opened past the cache (O_DIRECT on Linux,
// FILE_FLAG_NO_BUFFERING on Windows). Reads go straight into the caller's
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
