package raid

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"
)

// BladeFile is an open file on a blade.
type BladeFile interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	Sync() error
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// BladeFS is what the array needs of one blade's filesystem. Names are
// slash-separated and relative to the blade folder. Tests substitute
// fault-injecting and crash-simulating implementations.
type BladeFS interface {
	OpenFile(name string, flag int, perm fs.FileMode) (BladeFile, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	MkdirAll(name string, perm fs.FileMode) error
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	// SyncDir fsyncs a directory so entries created or renamed in it are
	// durable.
	SyncDir(name string) error
	// Free returns the bytes available on the blade's filesystem.
	Free() (uint64, error)
	// Root is the blade folder (for messages and path hints).
	Root() string
}

// DirFS is a blade that is an ordinary folder of the OS.
type DirFS struct{ Dir string }

var _ BladeFS = DirFS{}

func (d DirFS) p(name string) string { return filepath.Join(d.Dir, filepath.FromSlash(name)) }

// OpenFile opens a file below the blade folder.
func (d DirFS) OpenFile(name string, flag int, perm fs.FileMode) (BladeFile, error) {
	f, err := os.OpenFile(d.p(name), flag|syscall.O_CLOEXEC, perm)
	if err != nil {
		return nil, err
	}
	return &osBladeFile{f}, nil
}

// Rename renames within the blade.
func (d DirFS) Rename(o, n string) error { return os.Rename(d.p(o), d.p(n)) }

// Remove removes a file or empty folder.
func (d DirFS) Remove(name string) error { return os.Remove(d.p(name)) }

// MkdirAll creates folders.
func (d DirFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(d.p(name), perm) }

// ReadDir lists a folder.
func (d DirFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(d.p(name)) }

// Stat stats a file.
func (d DirFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(d.p(name)) }

// SyncDir fsyncs a folder.
func (d DirFS) SyncDir(name string) error {
	f, err := os.Open(d.p(name))
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Free reports the available bytes.
func (d DirFS) Free() (uint64, error) { return freeBytes(d.Dir) }

// Root is the folder.
func (d DirFS) Root() string { return d.Dir }

type osBladeFile struct{ *os.File }

// DropCache evicts the file's pages so the next read comes from the medium.
func (f *osBladeFile) DropCache() error { return dropCache(f.File) }

// cacheDropper is implemented by blade files that can bypass the page cache.
type cacheDropper interface{ DropCache() error }

// errIsNotExist reports a missing file through any wrapping.
func errIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

var _ = time.Now

// writeAtomic publishes a small file: tmp, fsync, rename, fsync dir.
func writeAtomic(b BladeFS, name string, data []byte) error {
	return writeAtomicSteps(b, name, data, "", "")
}

// mkdirDurable creates a folder (and its parents) and fsyncs the parent of
// each new folder, so the new entry survives a crash.
func mkdirDurable(b BladeFS, dir string) error {
	if _, err := b.Stat(dir); err == nil {
		return nil
	}
	if parent := path.Dir(dir); parent != "." && parent != "" {
		if err := mkdirDurable(b, parent); err != nil {
			return err
		}
	}
	if err := b.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return b.SyncDir(path.Dir(dir))
}

func readFile(b BladeFS, name string) ([]byte, error) {
	f, err := b.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
