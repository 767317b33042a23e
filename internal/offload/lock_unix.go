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
