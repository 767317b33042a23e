//go:build unix

package fsys

import (
	"fmt"
	"io/fs"
	"syscall"
)

// VolumeID names the file or folder fi describes by device and inode
// ("dev:D ino:I"): a card swapped for another under the same mount point
// has another. "" when fi does not carry them.
func VolumeID(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("dev:%d ino:%d", st.Dev, st.Ino)
	}
	return ""
}

// SameInode reports whether a and b are one file by device and inode;
// known is false when either info does not carry them.
func SameInode(a, b fs.FileInfo) (same, known bool) {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return false, false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino, true
}
