package cloud

import (
	"os/exec"
	"syscall"
)

// parentDeath: the kernel kills rclone when dit dies (dieWithParent).
const parentDeath = true

// dieWithParent makes the kernel kill rclone when dit dies (kill -9, a
// crash): an upload never goes on behind a job that is not running, and
// a resume is the only thing that takes it up again.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
