package ascmhl

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/fsys"
)

// FSStore is a Store on a folder of an engine filesystem (fsys.FS): the
// way an array destination, whose folders are logical, plugs in. Names are
// checked with ValidName; unlike OSStore it relies on the filesystem for
// links (dit's arrays have none).
type FSStore struct {
	FS  fsys.FS
	Dir string
}

func (s FSStore) path(op, name string) (string, error) {
	n, err := checkName(op, name)
	if err != nil {
		return "", err
	}
	if n == "." {
		return s.Dir, nil
	}
	return filepath.Join(s.Dir, filepath.FromSlash(n)), nil
}

// ReadFile implements Store.
func (s FSStore) ReadFile(name string) ([]byte, error) {
	f, err := s.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadDir implements Store.
func (s FSStore) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := s.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return s.FS.ReadDir(p)
}

// Lstat implements Store.
func (s FSStore) Lstat(name string) (fs.FileInfo, error) {
	p, err := s.path("lstat", name)
	if err != nil {
		return nil, err
	}
	return s.FS.Lstat(p)
}

// Open implements Store.
func (s FSStore) Open(name string) (io.ReadCloser, error) {
	p, err := s.path("open", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.FS.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return s.FS.Open(p)
}

// MkdirAll implements Store.
func (s FSStore) MkdirAll(name string) error {
	p, err := s.path("mkdir", name)
	if err != nil {
		return err
	}
	return s.FS.MkdirAll(p, 0o755)
}

// SetModTime implements Store.
func (s FSStore) SetModTime(name string, t time.Time) error {
	p, err := s.path("chtimes", name)
	if err != nil {
		return err
	}
	return s.FS.Chtimes(p, t, t)
}

// Remove implements Store.
func (s FSStore) Remove(name string) error {
	p, err := s.path("remove", name)
	if err != nil {
		return err
	}
	return s.FS.Remove(p)
}

// WriteFileAtomic implements Store with the engine's temp, sync, rename
// (no-replace unless replace) and folder sync.
func (s FSStore) WriteFileAtomic(name string, data []byte, replace bool) error {
	return s.WriteFileAtomicFrom(name, replace, writeData(data))
}

// WriteFileAtomicFrom implements StreamWriter: WriteFileAtomic with the
// content written by write as it is produced.
func (s FSStore) WriteFileAtomicFrom(name string, replace bool, write func(io.Writer) error) error {
	p, err := s.path("write", name)
	if err != nil {
		return err
	}
	dir, base := filepath.Dir(p), filepath.Base(p)
	w, err := s.FS.CreateTemp(dir, "."+strings.ReplaceAll(base, "*", "_")+".*"+tempSuffix)
	if err != nil {
		return err
	}
	err = writeBuffered(w, write)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		crashpoint.Hit("store: temp written " + crashName(base))
		if replace {
			err = s.FS.Rename(w.Name(), p)
			if errors.Is(err, fs.ErrExist) {
				// A filesystem whose rename never replaces (a dit array):
				// remove, then rename. A crash in between leaves the new
				// content under the temporary name only (Recover finishes
				// it from there).
				if err = s.FS.Remove(p); err == nil {
					crashpoint.Hit("store: old file removed " + crashName(base))
					err = s.FS.Rename(w.Name(), p)
				}
			}
		} else {
			err = fsys.RenameNoReplace(s.FS, w.Name(), p)
		}
	}
	if err != nil {
		s.FS.Remove(w.Name())
		return err
	}
	return s.FS.SyncDir(dir)
}
