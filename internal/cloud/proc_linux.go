package cloud

import (
	"os"

	"golang.org/x/sys/unix"
)

// parentDeath: the kernel kills rclone when dit dies (kill -9, a crash;
// every rclone is started through internal/tether): an upload never goes
// on behind a job that is not running, and a resume is the only thing
// that takes it up again.
const parentDeath = true

// pending is how many bytes the pipe f holds unread (FIONREAD, which
// x/sys names TIOCINQ; 0 when it cannot say).
func pending(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n
}
