//go:build !windows

package speedtest

import "syscall"

// processAlive reports whether a process with that id runs.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
