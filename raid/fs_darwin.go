package raid

import (
	"os"

	"golang.org/x/sys/unix"
)

func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// dropCache turns off caching for this descriptor and evicts the pages
// already cached: F_NOCACHE alone keeps serving resident pages (a chunk
// just written), msync(MS_INVALIDATE) of a mapping discards them (MS_SYNC
// writes back any dirty page first).
func dropCache(f *os.File) error {
	if _, err := unix.FcntlInt(f.Fd(), unix.F_NOCACHE, 1); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	const window = 1 << 30
	for off := int64(0); off < fi.Size(); off += window {
		m, err := unix.Mmap(int(f.Fd()), off, int(min(fi.Size()-off, window)), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return err
		}
		err = unix.Msync(m, unix.MS_SYNC|unix.MS_INVALIDATE)
		if uerr := unix.Munmap(m); err == nil {
			err = uerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func flock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
