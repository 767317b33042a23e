//go:build unix

package offload

import (
	"io/fs"
	"syscall"
	"testing"
)

func inodeOf(t *testing.T, fi fs.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }
