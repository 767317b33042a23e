//go:build linux || darwin

package devices

import "syscall"

// statfs returns a mounted file system's size and free bytes.
func statfs(mount string) (size, free int64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(mount, &st); err != nil {
		return 0, 0, err
	}
	return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize), nil
}
