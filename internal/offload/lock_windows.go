package offload

import (
	"os"

	"golang.org/x/sys/windows"
)

// tryLockFile takes an exclusive lock on f's first byte without waiting
// (LockFileEx): like flock, it dies with the process.
func tryLockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}
