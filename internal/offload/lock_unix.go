//go:build unix

package offload

import (
	"os"
	"syscall"
)

// tryLockFile takes an exclusive flock on f without waiting.
func tryLockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unlockRemove removes the lock file, then closes it (which unlocks): no
// other dit can lock the file between the two and then lose it.
func unlockRemove(f *os.File, p string) {
	os.Remove(p)
	f.Close()
}
