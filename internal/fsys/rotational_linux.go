package fsys

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Rotational reports whether the folder (or file) path is on a spinning
// disk: the rotational flag of its block device's queue, or of the disk
// a partition is on. False where it cannot tell (tmpfs, FUSE, a network
// file system, a device without the flag): a reader that reads several
// files at once reads them one at a time on a spinning disk, where
// several places read at once cost a seek each.
func Rotational(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	return rotationalDev(unix.Major(st.Dev), unix.Minor(st.Dev), "/sys")
}

// rotationalDev reads the flag of the block device major:minor under the
// sysfs root sys.
func rotationalDev(major, minor uint32, sys string) bool {
	dev, err := filepath.EvalSymlinks(filepath.Join(sys, "dev", "block", strconv.FormatUint(uint64(major), 10)+":"+strconv.FormatUint(uint64(minor), 10)))
	if err != nil {
		return false
	}
	for _, q := range []string{filepath.Join(dev, "queue", "rotational"), filepath.Join(dev, "..", "queue", "rotational")} {
		if b, err := os.ReadFile(q); err == nil {
			return strings.TrimSpace(string(b)) == "1"
		}
	}
	return false
}
