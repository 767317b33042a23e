package fsys

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func openReadOnly(name string) (*os.File, error) {
	return openNoAtime(name, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
}

// openDir opens a folder to list it. Unlike openReadOnly it follows a
// symlink, as os.ReadDir does.
func openDir(name string) (*os.File, error) {
	return openNoAtime(name, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
}

// openNoAtime opens with O_NOATIME: reading a card must not write its
// access times either. Only the owner (or CAP_FOWNER) may ask for it:
// otherwise EPERM, and the file is opened without it.
func openNoAtime(name string, flags int) (*os.File, error) {
	f, err := os.OpenFile(name, flags|unix.O_NOATIME, 0)
	if err != nil && errors.Is(err, unix.EPERM) {
		return os.OpenFile(name, flags, 0)
	}
	return f, err
}

// dropCache writes back any dirty pages (a no-op for clean or read-only
// files) and asks the kernel to drop the file's cached pages.
func dropCache(f *os.File) error {
	fd := int(f.Fd())
	if err := unix.Fdatasync(fd); err != nil && err != unix.EINVAL && err != unix.EBADF {
		return err
	}
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

// dropRange evicts pages already read so verification does not fill the
// cache (and a later re-read cannot be served from it).
func dropRange(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}

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
