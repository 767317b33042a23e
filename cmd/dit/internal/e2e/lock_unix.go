//go:build !windows

package e2e

import (
	"os"
	"syscall"
	"testing"
)

// lockFile holds an exclusive lock on path (created if needed) until the
// returned function is called: test packages run in parallel processes,
// and only one may install a shared tool at a time.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	unlock, err := lock(path)
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}

// lock is lockFile outside a test (TestMain).
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
