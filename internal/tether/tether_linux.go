package tether

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

type request struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	once     sync.Once
	requests chan request
)

// forker forks every tethered child from its own thread, locked for the
// life of the process (never unlocked, never returned from).
func forker() {
	runtime.LockOSThread()
	for r := range requests {
		r.done <- r.cmd.Start()
	}
}

// Start starts cmd so that the kernel sends it sig when dit dies
// (syscall.SIGKILL for a program that must stop at once, SIGQUIT for one
// that shuts down cleanly), whichever of dit's threads asked. Wait for it
// as for any started command (cmd.Wait).
func Start(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
	once.Do(func() {
		requests = make(chan request)
		go forker()
	})
	done := make(chan error, 1)
	requests <- request{cmd, done}
	return <-done
}

// Supported says whether a tethered child dies with dit here (Linux).
const Supported = true
