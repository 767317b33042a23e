package s3test

import "syscall"

// setParentDeath makes the kernel stop the server when the test process
// dies, so a killed test leaves no server behind.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
