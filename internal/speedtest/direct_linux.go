package speedtest

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const directHow = "O_DIRECT: every byte to and from the medium, past the page cache"

// createDirect creates name for writing past the page cache. direct is
// false when the filesystem refuses O_DIRECT (tmpfs, some FUSE and network
// filesystems): the file is then written through the cache, and the
// writer flushes and drops it as it goes (see flushBehind).
func createDirect(name string) (f *os.File, direct bool, err error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL | unix.O_CLOEXEC
	f, err = os.OpenFile(name, flags|unix.O_DIRECT, 0o600)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EOPNOTSUPP) {
		return nil, false, err
	}
	f, err = os.OpenFile(name, flags, 0o600)
	return f, false, err
}

// openDirect opens name read-only past the page cache, without touching
// its access time where the system allows (a card is never written, not
// even its atimes). direct is false where the filesystem refuses O_DIRECT:
// the file's cached pages are dropped first and behind the reads.
func openDirect(name string) (f *os.File, direct bool, err error) {
	base := os.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	open := func(flags int) (*os.File, error) {
		f, err := os.OpenFile(name, flags|unix.O_NOATIME, 0)
		if errors.Is(err, unix.EPERM) { // O_NOATIME on a file not ours
			f, err = os.OpenFile(name, flags, 0)
		}
		return f, err
	}
	if f, err = open(base | unix.O_DIRECT); err == nil {
		return f, true, nil
	}
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EOPNOTSUPP) {
		return nil, false, err
	}
	f, err = open(base)
	if err == nil {
		dropCache(f, 0, 0)
	}
	return f, false, err
}

// dropCache asks the kernel to forget the file's cached pages in
// [off, off+n) (n 0: to the end). Dirty pages are written first by flush.
func dropCache(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}

// flush makes what was written durable (fdatasync).
func flush(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
