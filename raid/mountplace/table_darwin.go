package mountplace

import "golang.org/x/sys/unix"

// mounts reads the mount table with getfsstat.
func mounts() []mount {
	n, err := unix.Getfsstat(nil, unix.MNT_NOWAIT)
	if err != nil || n <= 0 {
		return nil
	}
	buf := make([]unix.Statfs_t, n)
	n, err = unix.Getfsstat(buf, unix.MNT_NOWAIT)
	if err != nil {
		return nil
	}
	var out []mount
	for _, s := range buf[:n] {
		out = append(out, mount{source: unix.ByteSliceToString(s.Mntfromname[:]), dir: unix.ByteSliceToString(s.Mntonname[:])})
	}
	return out
}
