package speedtest

import "golang.org/x/sys/unix"

// Memory is the machine's memory in bytes (0: unknown).
func Memory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
