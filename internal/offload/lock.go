package offload

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// LockName is the lock file dit keeps in each destination folder while it
// writes there. It holds "pid host job".
const LockName = ".dit.lock"

type destLock struct {
	f     *os.File
	path  string
	dir   string
	token string // unique to this lock: tells two mounts of one folder apart
}

// lockDest takes an exclusive, non-blocking lock on DEST/.dit.lock (flock;
// LockFileEx on Windows). The
// lock dies with the process, so a killed dit never leaves a stale lock.
func lockDest(dir string, jobID int64) (*destLock, error) {
	p := filepath.Join(dir, LockName)
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot lock destination %s: %w (is it writable?)", dir, err)
		}
		if err := tryLockFile(f); err != nil {
			b, _ := os.ReadFile(p)
			f.Close()
			who := strings.TrimSpace(string(b))
			if who == "" {
				who = "unknown"
			}
			host, _ := os.Hostname()
			if strings.HasPrefix(who, fmt.Sprintf("pid %d on %s, job %d,", os.Getpid(), host, jobID)) {
				return nil, usageErrorf("destination %s is the same folder as another destination of this job (mounted twice, or a bind mount): give each destination once", dir)
			}
			return nil, fmt.Errorf("destination %s is in use by another dit offload (%s): wait for it to finish or choose another folder", dir, who)
		}
		// The holder before us may have removed the file after we opened it:
		// then we locked an orphan inode; try again.
		if !sameOpenFile(f, p) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		token := fmt.Sprintf("%016x", rand.Uint64())
		f.Truncate(0)
		fmt.Fprintf(f, "pid %d on %s, job %d, lock %s\n", os.Getpid(), host, jobID, token)
		return &destLock{f: f, path: p, dir: dir, token: token}, nil
	}
	return nil, fmt.Errorf("cannot lock destination %s: the lock file keeps changing", dir)
}

// checkLocksDistinct reads every lock file back once all are taken: a lock
// file holding another lock's token means two destinations are one folder
// (a network share mounted twice, where flock does not see the clash), and
// one physical copy would count as two.
func checkLocksDistinct(locks []*destLock) error {
	for _, l := range locks {
		b, err := os.ReadFile(l.path)
		if err != nil {
			return fmt.Errorf("cannot read back the lock of destination %s: %w", l.dir, err)
		}
		if !strings.Contains(string(b), "lock "+l.token) {
			for _, o := range locks {
				if o != l && strings.Contains(string(b), "lock "+o.token) {
					return usageErrorf("destinations %s and %s are the same folder (mounted twice?): give each destination once", o.dir, l.dir)
				}
			}
			return fmt.Errorf("the lock of destination %s was rewritten by someone else (%s): is another dit writing there?", l.dir, strings.TrimSpace(string(b)))
		}
	}
	return nil
}

func (l *destLock) release() {
	if l == nil || l.f == nil {
		return
	}
	unlockRemove(l.f, l.path)
	l.f = nil
}

// sameOpenFile reports whether the open f is still the file at p.
func sameOpenFile(f *os.File, p string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(p)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
