package speedtest

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// fsid is statfs's f_fsid, "" when the filesystem gives none (tmpfs).
func fsid(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || (st.Fsid.Val[0] == 0 && st.Fsid.Val[1] == 0) {
		return ""
	}
	return fmt.Sprintf("%08x%08x", uint32(st.Fsid.Val[0]), uint32(st.Fsid.Val[1]))
}

// deviceOf is the /dev node mounted at the mount point holding dir.
func deviceOf(dir string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	best, dev := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, x := range fields {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || len(fields) < sep+3 || len(fields) < 5 {
			continue
		}
		mnt := fields[4]
		if (dir == mnt || strings.HasPrefix(dir, strings.TrimSuffix(mnt, "/")+"/")) && len(mnt) >= len(best) {
			best, dev = mnt, fields[sep+2]
		}
	}
	if !strings.HasPrefix(dev, "/dev/") {
		return ""
	}
	return dev
}
