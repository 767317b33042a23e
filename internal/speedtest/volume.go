package speedtest

import (
	"os"
	"path/filepath"
	"strings"
)

// VolumeID names the volume holding dir the same way wherever it is
// mounted next time: the filesystem's UUID where the system lists it
// (/dev/disk/by-uuid), else the filesystem id the kernel derives from it
// (statfs f_fsid: ext4, XFS, Btrfs, APFS), else the mount path (how says
// which, for a note: a mount path follows the folder, not the medium).
func VolumeID(dir string) (id, how string) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	}
	if u := byUUID(abs); u != "" {
		return "fs-uuid:" + u, "filesystem UUID"
	}
	if f := fsid(abs); f != "" {
		return "fsid:" + f, "filesystem id"
	}
	return "path:" + abs, "mount path (the system gives no filesystem id here)"
}

// byUUID finds dir's device among /dev/disk/by-uuid's links (Linux with
// udev); "" elsewhere.
func byUUID(dir string) string {
	dev := deviceOf(dir)
	if dev == "" {
		return ""
	}
	ents, err := os.ReadDir("/dev/disk/by-uuid")
	if err != nil {
		return ""
	}
	for _, e := range ents {
		t, err := filepath.EvalSymlinks(filepath.Join("/dev/disk/by-uuid", e.Name()))
		if err == nil && t == dev {
			return strings.ToLower(e.Name())
		}
	}
	return ""
}
