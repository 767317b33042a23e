package speedtest

import "os"

// processAlive: on Windows FindProcess opens the process; it fails when
// none has that id.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
