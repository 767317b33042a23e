//go:build linux || darwin

package ui

import "golang.org/x/sys/unix"

// freeSpace returns the bytes an unprivileged writer can still put in dir.
func freeSpace(dir string) (int64, error) {
	var s unix.Statfs_t
	if err := unix.Statfs(dir, &s); err != nil {
		return -1, err
	}
	return int64(s.Bavail) * int64(s.Bsize), nil
}
