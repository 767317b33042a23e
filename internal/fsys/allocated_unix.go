//go:build unix

package fsys

import (
	"io/fs"
	"syscall"
)

// Allocated is the room fi's file takes on its medium (its blocks; a
// preallocated temp counts its whole reservation), or its size where the
// medium does not say.
func Allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
