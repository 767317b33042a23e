package offload

import (
	"os"

	"golang.org/x/sys/windows"
)

// tryLockFile takes an exclusive lock without waiting (LockFileEx): like
// flock, it dies with the process. Windows locks are mandatory: a locked
// range cannot be read, even by the holder through another handle. So the
// lock is on one byte far past the end of the file (offset 2^62), and the
// file's text (who holds it) stays readable.
func tryLockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: 1 << 30}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// unlockRemove closes (unlocks) the lock file, then removes it: Windows
// cannot remove a file open without delete sharing, as Go opens files. If
// another dit opened it in between, the removal fails and its lock stays.
func unlockRemove(f *os.File, p string) {
	f.Close()
	os.Remove(p)
}
