package tether_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/tether"
)

// signalOf is the signal that ended cmd (Wait's error), or 0.
func signalOf(t *testing.T, err error) syscall.Signal {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the child ended with %v, not by a signal", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		t.Fatalf("the child exited (%v), not by a signal", ws)
	}
	return ws.Signal()
}

// A goroutine locked to its thread starts two children and ends locked,
// so Go ends its thread. The child it forked itself with a parent-death
// signal (the control) is killed then, as the kernel ties the signal to
// the thread; the tethered one lives on until killed on purpose.
func TestTetheredChildOutlivesTheThreadThatAskedForIt(t *testing.T) {
	control := exec.Command("sleep", "600")
	control.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	tethered := exec.Command("sleep", "600")
	errc := make(chan error, 1)
	start := func() {
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		if err := control.Start(); err != nil {
			errc <- err
			return
		}
		errc <- tether.Start(tethered, syscall.SIGKILL)
	}
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != os.Getpid() {
			start()
			return
		}
		// This is the main thread, which Go never ends: hold it, so that
		// the start runs on another.
		done := make(chan struct{})
		go func() { defer close(done); start() }()
		<-done
		runtime.UnlockOSThread()
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	defer tethered.Process.Kill()
	// The control's end is the event: its thread has ended and the kernel
	// has sent that thread's parent-death signals.
	if sig := signalOf(t, control.Wait()); sig != syscall.SIGKILL {
		t.Fatalf("the control child ended by %v, want SIGKILL (its thread's end)", sig)
	}
	if err := tethered.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if sig := signalOf(t, tethered.Wait()); sig != syscall.SIGTERM {
		t.Fatalf("the tethered child ended by %v, not by the SIGTERM sent to it: it died with a thread of dit's", sig)
	}
}

// A process that tethers a child and exits takes the child with it.
func TestTetheredChildDiesWithDit(t *testing.T) {
	if os.Getenv("TETHER_HELPER") == "1" {
		cmd := exec.Command("sleep", "600")
		if err := tether.Start(cmd, syscall.SIGKILL); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		os.Exit(0)
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestTetheredChildDiesWithDit$")
	helper.Env = append(os.Environ(), "TETHER_HELPER=1")
	out, err := helper.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.Split(string(out), "\n")[0]))
	if err != nil {
		t.Fatalf("helper said %q", out)
	}
	// The child is the helper's: once the helper is gone it is re-parented
	// and reaped by init, or killed. Wait for it to be gone, or to be a
	// zombie awaiting init (the test's own timeout bounds the wait: a
	// child left alive is this test hanging, and failing).
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
