//go:build unix

package cloud

import (
	"errors"
	"syscall"
)

// processAlive: a process pid is running (signal 0 reaches it, or it is
// there but another user's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
