package cloud

import (
	"context"
	"testing"
	"time"
)

// WriteError is writeError, for the tests of its words.
var WriteError = writeError

// SetDaemonIdle sets how long an idle daemon is kept, for t.
func SetDaemonIdle(t testing.TB, d time.Duration) {
	daemonsMu.Lock()
	old := daemonIdle
	daemonIdle = d
	daemonsMu.Unlock()
	t.Cleanup(func() {
		daemonsMu.Lock()
		daemonIdle = old
		daemonsMu.Unlock()
	})
}

// DaemonOf is the running daemon of r's settings: its process id, URL
// and credentials (pid 0: none).
func DaemonOf(r *Rclone) (pid int, url, user, pass string) {
	key, _ := r.daemonKey()
	daemonsMu.Lock()
	defer daemonsMu.Unlock()
	d := daemons[key]
	if d == nil || !d.alive() {
		return 0, "", "", ""
	}
	return d.cmd.Process.Pid, d.url, d.user, d.pass
}

// HoldDaemon starts (or takes) the daemon of r's settings and holds it
// until release is called.
func HoldDaemon(r *Rclone) (pid int, release func()) {
	d, release := r.daemon(context.Background())
	if d == nil {
		return 0, func() {}
	}
	return d.cmd.Process.Pid, release
}

// DaemonLogBytes are the bytes of the log the running daemon of r's
// settings has written (0: none running).
func DaemonLogBytes(r *Rclone) int64 {
	key, _ := r.daemonKey()
	daemonsMu.Lock()
	defer daemonsMu.Unlock()
	d := daemons[key]
	if d == nil || !d.alive() {
		return 0
	}
	return d.logs.read.Load()
}
