package offload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LockName is the lock file dit keeps in each destination folder while it
// writes there. It holds "pid host job".
const LockName = ".dit.lock"

type destLock struct {
	f    *os.File
	path string
}

// lockDest takes an exclusive, non-blocking flock on DEST/.dit.lock. The
// lock dies with the process, so a killed dit never leaves a stale lock.
func lockDest(dir string, jobID int64) (*destLock, error) {
	p := filepath.Join(dir, LockName)
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot lock destination %s: %w (is it writable?)", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := os.ReadFile(p)
			f.Close()
			who := strings.TrimSpace(string(b))
			if who == "" {
				who = "unknown"
			}
			return nil, fmt.Errorf("destination %s is in use by another dit offload (%s): wait for it to finish or choose another folder", dir, who)
		}
		// The holder before us may have removed the file after we opened it:
		// then we locked an orphan inode; try again.
		var a, b syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &a) != nil || syscall.Stat(p, &b) != nil || a.Ino != b.Ino {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		f.Truncate(0)
		fmt.Fprintf(f, "pid %d on %s, job %d\n", os.Getpid(), host, jobID)
		return &destLock{f: f, path: p}, nil
	}
	return nil, fmt.Errorf("cannot lock destination %s: the lock file keeps changing", dir)
}

func (l *destLock) release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
	l.f = nil
}
