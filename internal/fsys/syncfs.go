package fsys

// FSSyncer is an open handle on the filesystem that holds a destination:
// SyncFS makes everything written to that filesystem so far durable at
// once (Linux syncfs(2): every dirty file written back and waited for,
// then one journal commit and one flush of the drive's cache). A batch of
// small copies (frames) shares that one flush instead of paying an fsync
// each: each fsync of a frame is a journal commit and a cache flush of
// its own.
type FSSyncer interface {
	// SyncFS makes every file written to the filesystem before the call
	// durable (data, size and times). It returns an error when a write-back
	// on the filesystem failed since the FSSyncer was opened or last
	// synced (not necessarily a write of the caller's): the caller must
	// then fsync its files one by one, each of which reports its own error.
	SyncFS() error
	// Covers reports whether dir is on the filesystem SyncFS syncs (not
	// on another one mounted below the folder the FSSyncer was opened
	// on). Not safe for concurrent use.
	Covers(dir string) bool
	Close() error
}

// OpenFSSyncer returns an FSSyncer for the filesystem holding dir, opened
// before the files it is to sync are written (a write-back error that
// happened before it was opened may otherwise go unreported by it). It
// returns nil where there is none: a dit array (its Sync commits a file
// across the blades), a platform without syncfs(2), a folder that cannot
// be opened.
func OpenFSSyncer(f FS, dir string) FSSyncer {
	if o, ok := f.(interface{ OpenFSSyncer(string) FSSyncer }); ok {
		return o.OpenFSSyncer(dir)
	}
	return nil
}

// OpenFSSyncer routes to the FS mounted at dir.
func (m *Mux) OpenFSSyncer(dir string) FSSyncer { return OpenFSSyncer(m.route(dir), dir) }
