//go:build !linux

// Package faultfuse mounts a fault-injecting FUSE filesystem for tests on
// Linux. Here every Mount skips the test, saying why.
package faultfuse

import (
	"runtime"
	"testing"
)

// FS is never mounted here.
type FS struct{ dir string }

// Mount skips the test: FUSE fault injection runs on Linux only.
func Mount(t testing.TB, backing string) *FS {
	t.Helper()
	t.Skipf("faultfuse: FUSE fault injection runs on Linux only, not %s", runtime.GOOS)
	return nil
}

// MountAt skips the test, as Mount.
func MountAt(t testing.TB, backing, mountpoint string) *FS { return Mount(t, backing) }

// Dir is the mount point.
func (f *FS) Dir() string { return f.dir }

// FailFsync does nothing here.
func (f *FS) FailFsync(bool) {}

// SlowWritesAfter does nothing here.
func (f *FS) SlowWritesAfter(int64, float64) {}

// Backing is the backing folder (never mounted here).
func (f *FS) Backing() string { return f.dir }
