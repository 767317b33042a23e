package raid

import (
	"os"

	"golang.org/x/sys/windows"
)

func freeBytes(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, &os.PathError{Op: "GetDiskFreeSpaceEx", Path: dir, Err: err}
	}
	return avail, nil
}

// dropCache cannot drop a file's cached pages on Windows. Nothing reads an
// array back for verification here: fsys.ArrayFS.OpenNoCache refuses on
// Windows (see arrayfs_windows.go), so no check passes on cached bytes.
func dropCache(*os.File) error { return nil }

// flock takes an exclusive lock without waiting (LockFileEx): like
// flock, it dies with the process. Windows locks are mandatory: a locked
// range cannot be read, even by the holder through another handle. So the
// lock is on one byte far past the end of the file (offset 2^62), and the
// file's text (who holds it) stays readable.
func flock(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: 1 << 30}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}
