package speedtest

import "golang.org/x/sys/unix"

// Memory is the machine's memory in bytes (0: unknown).
func Memory() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return int64(n)
}
