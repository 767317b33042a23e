//go:build !windows

package ale

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
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatalf("lock %s: %v", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
