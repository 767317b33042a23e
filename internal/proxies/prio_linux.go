package proxies

import (
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// ioprio_set(2)'s arguments: the idle I/O class, for one process.
const (
	ioprioWhoProcess = 1
	ioprioClassIdle  = 3
	ioprioClassShift = 13
)

// Start starts cmd at low priority: nice 19 and the idle I/O class
// (ioprio), so that a proxy never takes an offload's CPU or disk time.
// The priorities are set on a thread of its own before the fork, so
// ffmpeg and every thread it makes are born with them (no moment at the
// offload's priority); that thread is then let go (it ends with its
// goroutine, never serving Go code at the lower priority). They are set
// again on the child by its process id, as the documented way.
func Start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		tid := unix.Gettid()
		unix.Setpriority(unix.PRIO_PROCESS, tid, 19)
		setIdleIO(tid)
		done <- cmd.Start()
	}()
	if err := <-done; err != nil {
		return err
	}
	unix.Setpriority(unix.PRIO_PROCESS, cmd.Process.Pid, 19)
	setIdleIO(cmd.Process.Pid)
	return nil
}

func setIdleIO(pid int) {
	unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(pid), ioprioClassIdle<<ioprioClassShift)
}

// Priority reads the nice value and I/O class of process pid (for
// tests and dit's own checks).
func Priority(pid int) (nice, ioClass int, err error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		return 0, 0, err
	}
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if e != 0 {
		return 0, 0, e
	}
	// The raw system call gives 20 - nice.
	return 20 - p, int(r) >> ioprioClassShift, nil
}
