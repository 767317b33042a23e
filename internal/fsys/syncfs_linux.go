package fsys

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// syncFSTypes are the filesystems whose syncfs(2) both writes every file
// back and flushes the drive's cache (their sync_fs commits a journal or a
// checkpoint with a cache flush): ext2/3/4, XFS, Btrfs, F2FS, and tmpfs
// (nothing to flush). Elsewhere a syncfs may return with the bytes still
// in the drive's cache (exFAT, FAT, HFS+, NTFS), or in a FUSE server that
// was never asked (ntfs-3g, exfat-fuse: the kernel sends their servers no
// syncfs), so those copies are fsynced one by one.
var syncFSTypes = map[int64]string{
	unix.EXT4_SUPER_MAGIC:  "ext4",
	unix.XFS_SUPER_MAGIC:   "xfs",
	unix.BTRFS_SUPER_MAGIC: "btrfs",
	unix.F2FS_SUPER_MAGIC:  "f2fs",
	unix.TMPFS_MAGIC:       "tmpfs",
}

// syncfsReportsErrors: Linux 5.17 and later. syncfs(2) reports the
// filesystem's write-back errors since 5.8, but until 5.17 it dropped the
// errors of the filesystem's own sync_fs (a journal commit or a cache
// flush that failed), which is what makes the batch durable.
var syncfsReportsErrors = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 17)
})

// kernelAtLeast reports whether a kernel release ("6.1.0-18-amd64") is
// major.minor or later; false if it cannot be read.
func kernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// OpenFSSyncer opens dir and syncs its filesystem with syncfs(2), which
// reports the filesystem's write-back errors since the folder was opened
// or last synced; nil on a filesystem not in syncFSTypes, or a kernel
// older than 5.17.
func (OS) OpenFSSyncer(dir string) FSSyncer {
	if !syncfsReportsErrors() {
		return nil
	}
	f, err := os.OpenFile(filepath.Clean(dir), os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil || syncFSTypes[int64(st.Type)] == "" {
		f.Close()
		return nil
	}
	var sb unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &sb); err != nil {
		f.Close()
		return nil
	}
	return &osSyncer{f: f, dev: sb.Dev}
}

type osSyncer struct {
	f   *os.File
	dev uint64
	// last and lastOK remember the last folder Covers was asked about.
	last   string
	lastOK bool
}

func (s *osSyncer) Covers(dir string) bool {
	if dir != s.last {
		var st unix.Stat_t
		s.last, s.lastOK = dir, unix.Stat(dir, &st) == nil && st.Dev == s.dev
	}
	return s.lastOK
}

func (s *osSyncer) SyncFS() error {
	if err := unix.Syncfs(int(s.f.Fd())); err != nil {
		return &os.PathError{Op: "syncfs", Path: s.f.Name(), Err: err}
	}
	return nil
}

func (s *osSyncer) Close() error { return s.f.Close() }
