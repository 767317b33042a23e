package fsys

import (
	"os"

	"golang.org/x/sys/unix"
)

func preallocate(f *os.File, n int64) {
	fd := int(f.Fd())
	// Never reserve more than the filesystem has free: a reserve that
	// fails half way keeps what it got, and would take room another copy
	// in flight needs.
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil || uint64(n) > st.Bavail*uint64(st.Bsize) {
		return
	}
	_ = unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, n)
}
