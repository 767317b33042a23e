package fsys

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is an open file being read: a source file or a copy read back.
type File interface {
	io.Reader
	io.Closer
	Stat() (fs.FileInfo, error)
	// DropCache evicts the file's pages from the OS cache, so the next read
	// of them comes from the medium. Advisory: returns nil where the
	// platform cannot do it and the caller must not rely on more.
	DropCache() error
}

// WFile is a file being written.
type WFile interface {
	io.Writer
	io.Closer
	Sync() error
	Name() string
}

// FS is what the engine needs of a filesystem.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Open opens a file read-only without following a final symlink and
	// without blocking on FIFOs or devices.
	Open(name string) (File, error)
	// OpenNoCache opens a file read-only for verification: its cached pages
	// are flushed and dropped first, and reads bypass or evict the cache.
	OpenNoCache(name string) (File, error)
	// CreateTemp creates a new file in dir with a unique name built from
	// pattern (as os.CreateTemp) and mode 0644.
	CreateTemp(dir, pattern string) (WFile, error)
	MkdirAll(name string, perm fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
	Chtimes(name string, atime, mtime time.Time) error
	// SyncDir fsyncs a directory so renames in it are durable.
	SyncDir(name string) error
	// SyncFile fsyncs an existing file (a final symlink not followed) so
	// its bytes are durable: for a file found at a
	// destination that dit did not write, perhaps still only in the cache.
	SyncFile(name string) error
	// Free returns the bytes available to an unprivileged writer on the
	// filesystem holding name, and an identifier of that filesystem.
	Free(name string) (avail uint64, fsid string, err error)
}

// OS is the real filesystem.
type OS struct{}

var _ FS = OS{}

// Lstat is os.Lstat.
func (OS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// ReadDir is os.ReadDir (sorted by name), except that on Linux listing a card does not
// write its folders' access times (openDir).
func (OS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := openDir(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// Open opens name read-only, never following a symlink, never blocking.
func (OS) Open(name string) (File, error) {
	f, err := openReadOnly(name)
	if err != nil {
		return nil, err
	}
	return &osFile{File: f}, nil
}

// OpenNoCache opens name for read-back verification: with O_DIRECT where
// the filesystem has it (Linux: every byte from the medium, no cache
// filled or evicted; dirty pages of the file are written back by the
// kernel before the first read, but that does not make them durable: the
// caller fsyncs a copy it did not just make durable itself, see
// SyncFile), else through the cache with the file's pages flushed
// (fdatasync) and dropped first and behind the reads.
func (OS) OpenNoCache(name string) (File, error) {
	if f, ok := openNoCacheDirect(name); ok {
		return f, nil
	}
	f, err := openReadOnly(name)
	if err != nil {
		return nil, err
	}
	of := &osFile{File: f, nocache: true}
	if err := of.DropCache(); err != nil {
		f.Close()
		return nil, err
	}
	return of, nil
}

// CreateTemp is os.CreateTemp, then chmod 0644 (CreateTemp makes 0600).
func (OS) CreateTemp(dir, pattern string) (WFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// MkdirAll is os.MkdirAll.
func (OS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }

// Rename is os.Rename.
func (OS) Rename(o, n string) error { return os.Rename(o, n) }

// Remove is os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// Chtimes is os.Chtimes.
func (OS) Chtimes(name string, a, m time.Time) error { return os.Chtimes(name, a, m) }

// SyncDir opens the directory and fsyncs it.
func (OS) SyncDir(name string) error { return syncClose(os.Open(filepath.Clean(name))) }

// SyncFile opens name (for writing where allowed, never truncated, else
// read-only; a final symlink not followed) and fsyncs it.
func (OS) SyncFile(name string) error { return syncClose(openForSync(name)) }

// syncClose fsyncs and closes f as opened (err: not opened).
func syncClose(f *os.File, err error) error {
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Free reports available bytes and a filesystem id (see statfs).
func (OS) Free(name string) (uint64, string, error) { return freeSpace(name) }

type osFile struct {
	*os.File
	nocache bool
	off     int64
}

func (f *osFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if f.nocache && n > 0 {
		dropRange(f.File, f.off, int64(n))
	}
	f.off += int64(n)
	return n, err
}

func (f *osFile) DropCache() error { return dropCache(f.File) }

// Seek moves the file offset, and with it the range a no-cache file's
// reads drop behind them (a read-back that goes on from the middle).
func (f *osFile) Seek(offset int64, whence int) (int64, error) {
	n, err := f.File.Seek(offset, whence)
	if err == nil {
		f.off = n
	}
	return n, err
}

// RenameNoReplace renames oldname to newname and fails with an error
// satisfying errors.Is(err, fs.ErrExist) if newname exists: a copy never
// replaces a file silently, even one that appeared after the plan was made.
func RenameNoReplace(f FS, oldname, newname string) error {
	if r, ok := f.(interface{ RenameNoReplace(o, n string) error }); ok {
		return r.RenameNoReplace(oldname, newname)
	}
	if _, err := f.Lstat(newname); err == nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrExist}
	}
	return f.Rename(oldname, newname)
}

// RenameNoReplace uses the kernel's atomic no-replace rename where the
// filesystem has it, else checks then renames.
func (OS) RenameNoReplace(oldname, newname string) error {
	err := renameNoReplace(oldname, newname)
	if err == errNoAtomicRename {
		if _, err := os.Lstat(newname); err == nil {
			return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrExist}
		}
		return os.Rename(oldname, newname)
	}
	return err
}

// Close drops what read-ahead left in the cache, then closes.
func (f *osFile) Close() error {
	if f.nocache {
		dropRange(f.File, 0, 0)
	}
	return f.File.Close()
}

// Block returns an n-byte buffer for reading back through OpenNoCache:
// aligned as O_DIRECT wants it where the platform reads that way, so the
// bytes go straight from the medium into it.
func Block(n int) []byte { return alignedBlock(n) }
