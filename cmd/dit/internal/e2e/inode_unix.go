//go:build unix

package e2e

import (
	"io/fs"
	"syscall"
	"testing"
)

// InodeOf is fi's inode number (a file rewritten gets a new one).
func InodeOf(t *testing.T, fi fs.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }
