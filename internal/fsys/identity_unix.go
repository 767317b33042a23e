//go:build linux || darwin

package fsys

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func identity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano(), ctimeNano(st))
}

func identityCtime(id string) (time.Time, bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}
