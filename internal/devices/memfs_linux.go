package devices

import "golang.org/x/sys/unix"

// InMemory says whether path is on a file system held in memory (tmpfs,
// ramfs): there is no drive under it to ask, whatever mount it sits in,
// and no medium to measure past the cache (internal/speedtest).
func InMemory(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return false
	}
	return st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC
}
