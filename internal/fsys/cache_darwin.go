package fsys

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func openReadOnly(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}

// dropCache turns off caching for this descriptor (F_NOCACHE) and flushes
// the file, so reads come from the device.
func dropCache(f *os.File) error {
	fd := int(f.Fd())
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
	_, err := unix.FcntlInt(uintptr(fd), unix.F_NOCACHE, 1)
	return err
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
