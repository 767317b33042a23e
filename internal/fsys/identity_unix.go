//go:build linux || darwin

package fsys

import (
	"fmt"
	"io/fs"
	"syscall"
)

func identity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano(), ctimeNano(st))
}
