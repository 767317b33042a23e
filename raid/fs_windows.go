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

// flock takes an exclusive lock on f's first byte without waiting
// (LockFileEx; released when the process ends).
func flock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}
