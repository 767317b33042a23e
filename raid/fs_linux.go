package raid

import (
	"os"

	"golang.org/x/sys/unix"
)

func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

func dropCache(f *os.File) error {
	fd := int(f.Fd())
	_ = unix.Fdatasync(fd)
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

func flock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
