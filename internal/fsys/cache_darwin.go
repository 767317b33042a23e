package fsys

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openDir opens a folder to list it.
func openDir(name string) (*os.File, error) { return os.Open(name) }

func openReadOnly(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}

// dropCache flushes the file, evicts its pages already in the unified
// buffer cache and turns off caching for this descriptor, so reads come
// from the device. F_NOCACHE alone is not enough: it keeps new reads out of
// the cache, but pages already there (a copy just written) are still
// served from it. msync(MS_INVALIDATE) of a mapping of the file discards
// them (MS_SYNC first writes back any dirty page, so nothing is lost).
func dropCache(f *os.File) error {
	fd := int(f.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0); err != nil {
		// Not every filesystem has F_FULLFSYNC (SMB, some FUSE): fsync.
		if err := unix.Fsync(fd); err != nil && err != unix.EINVAL && err != unix.ENOTSUP && err != unix.EBADF {
			return err
		}
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_NOCACHE, 1); err != nil {
		return err
	}
	return invalidate(f)
}

// invalidate discards the file's cached pages, a window at a time.
func invalidate(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	const window = 1 << 30
	for off := int64(0); off < fi.Size(); off += window {
		n := min(fi.Size()-off, window)
		m, err := unix.Mmap(int(f.Fd()), off, int(n), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("evicting cached pages: %w", err)
		}
		err = unix.Msync(m, unix.MS_SYNC|unix.MS_INVALIDATE)
		if uerr := unix.Munmap(m); err == nil {
			err = uerr
		}
		if err != nil {
			return fmt.Errorf("evicting cached pages: %w", err)
		}
	}
	return nil
}

func dropRange(*os.File, int64, int64) {}

func freeSpace(name string) (uint64, string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(name, &st); err != nil {
		return 0, "", err
	}
	var sb unix.Stat_t
	if err := unix.Stat(name, &sb); err != nil {
		return 0, "", err
	}
	return st.Bavail * uint64(st.Bsize), fmt.Sprintf("dev:%d", sb.Dev), nil
}

// openForSync opens an existing file to fsync it: for writing where
// allowed (without truncating; some filesystems, SMB among them, flush to
// the server only for a handle open for writing), else read-only.
func openForSync(name string) (*os.File, error) {
	if f, err := os.OpenFile(name, os.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
		return f, nil
	}
	return openReadOnly(name)
}
