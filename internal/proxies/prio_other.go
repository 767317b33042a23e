//go:build unix && !linux

package proxies

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// Start starts cmd, then lowers its CPU priority to nice 19 (there is
// no I/O priority to set outside Linux).
func Start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	unix.Setpriority(unix.PRIO_PROCESS, cmd.Process.Pid, 19)
	return nil
}
