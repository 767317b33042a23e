package catalog

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive reports whether a process with this pid runs: its exit
// code is still STILL_ACTIVE. A process this user may not open (access
// denied) exists, so it counts as running: a job is never called
// interrupted while its dit may still be at work.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == 259 // STILL_ACTIVE
}
