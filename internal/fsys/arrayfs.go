package fsys

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// ArrayFS presents a dit array as a destination folder at Root (the blade
// folder the user named). A temp file is an uncommitted array file; Sync
// makes its chunks durable; the rename to its final name is the array's
// commit (no-replace); OpenNoCache reads back through the array's checked
// reader with every chunk's pages dropped first.
type ArrayFS struct {
	A    *raid.Array
	Root string

	mu      sync.Mutex
	pending map[string]*raid.Writer
}

// NewArrayFS mounts a at root.
func NewArrayFS(a *raid.Array, root string) *ArrayFS {
	return &ArrayFS{A: a, Root: filepath.Clean(root), pending: map[string]*raid.Writer{}}
}

func (f *ArrayFS) logical(name string) (string, error) {
	name = filepath.Clean(name)
	if name == f.Root {
		return "", nil
	}
	rel, ok := strings.CutPrefix(name, f.Root+string(filepath.Separator))
	if !ok {
		return "", fmt.Errorf("%s is not inside the array at %s", name, f.Root)
	}
	return filepath.ToSlash(rel), nil
}

func (f *ArrayFS) notExist(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

type dirInfo struct {
	name  string
	mtime time.Time
}

func (d dirInfo) Name() string       { return d.name }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (d dirInfo) ModTime() time.Time { return d.mtime }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// Lstat describes a logical file or folder.
func (f *ArrayFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := f.logical(name)
	if err != nil {
		return nil, err
	}
	if m, ok := f.A.Lookup(p); ok {
		return m.FileInfo(), nil
	}
	if f.A.IsDir(p) {
		return dirInfo{name: path.Base(p)}, nil
	}
	return nil, f.notExist("lstat", name)
}

type arrayDirEntry struct{ fi fs.FileInfo }

func (e arrayDirEntry) Name() string               { return e.fi.Name() }
func (e arrayDirEntry) IsDir() bool                { return e.fi.IsDir() }
func (e arrayDirEntry) Type() fs.FileMode          { return e.fi.Mode().Type() }
func (e arrayDirEntry) Info() (fs.FileInfo, error) { return e.fi, nil }

// ReadDir lists a logical folder.
func (f *ArrayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := f.logical(name)
	if err != nil {
		return nil, err
	}
	if !f.A.IsDir(p) {
		return nil, f.notExist("readdir", name)
	}
	return ListDir(f.A, p), nil
}

// ListDir lists the children of logical folder p of an array.
func ListDir(a *raid.Array, p string) []fs.DirEntry {
	prefix := p + "/"
	if p == "" {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, m := range a.Files() {
		rest, ok := strings.CutPrefix(m.Path, prefix)
		if !ok || rest == "" {
			continue
		}
		child, _, sub := strings.Cut(rest, "/")
		if seen[child] {
			continue
		}
		seen[child] = true
		if sub || m.Dir {
			out = append(out, arrayDirEntry{dirInfo{name: child}})
		} else {
			out = append(out, arrayDirEntry{m.FileInfo()})
		}
	}
	return out
}

type arrayFile struct {
	*raid.FileReader
}

func (arrayFile) DropCache() error { return nil }

// Open reads a logical file through the checked reader.
func (f *ArrayFS) Open(name string) (File, error) { return f.open(name, false) }

// OpenNoCache reads a logical file back from the blades' media.
func (f *ArrayFS) OpenNoCache(name string) (File, error) {
	if err := arrayReadBackErr(name); err != nil {
		return nil, err
	}
	return f.open(name, true)
}

func (f *ArrayFS) open(name string, nocache bool) (File, error) {
	p, err := f.logical(name)
	if err != nil {
		return nil, err
	}
	r, err := f.A.OpenFile(p, nocache)
	if err != nil {
		return nil, f.notExist("open", name)
	}
	return arrayFile{r}, nil
}

type arrayWFile struct {
	f    *ArrayFS
	w    *raid.Writer
	name string
}

func (w *arrayWFile) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w *arrayWFile) Sync() error                 { return w.w.Flush() }
func (w *arrayWFile) Close() error                { return w.w.Err() }
func (w *arrayWFile) Name() string                { return w.name }

// CreateTemp starts an uncommitted array file.
func (f *ArrayFS) CreateTemp(dir, pattern string) (WFile, error) {
	p, err := f.logical(dir)
	if err != nil {
		return nil, err
	}
	tmp := strings.Replace(pattern, "*", fmt.Sprintf("%d", time.Now().UnixNano()), 1)
	lp := path.Join(p, tmp)
	w, err := f.A.Create(raid.FileSpec{Path: lp, Mtime: time.Now()})
	if err != nil {
		return nil, err
	}
	name := filepath.Join(f.Root, filepath.FromSlash(lp))
	f.mu.Lock()
	f.pending[name] = w
	f.mu.Unlock()
	return &arrayWFile{f: f, w: w, name: name}, nil
}

func (f *ArrayFS) takePending(name string) *raid.Writer {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.pending[filepath.Clean(name)]
	delete(f.pending, filepath.Clean(name))
	return w
}

// MkdirAll records logical folders (so empty ones are kept).
func (f *ArrayFS) MkdirAll(name string, perm fs.FileMode) error {
	p, err := f.logical(name)
	if err != nil || p == "" {
		return err
	}
	var parts []string
	for d := p; d != "." && d != ""; d = path.Dir(d) {
		parts = append([]string{d}, parts...)
	}
	for _, d := range parts {
		if f.A.IsDir(d) {
			continue
		}
		if err := f.A.Mkdir(d, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// Rename is os.Rename on the array: a temp is committed, a committed file
// renamed; an existing file at newname is replaced atomically for readers
// (see raid.Array.RenameReplace).
func (f *ArrayFS) Rename(oldname, newname string) error {
	np, err := f.logical(newname)
	if err != nil {
		return err
	}
	if _, exists := f.A.Lookup(np); !exists {
		return f.RenameNoReplace(oldname, newname)
	}
	if w := f.takePending(oldname); w != nil {
		if _, err := w.Commit(); err != nil {
			return err
		}
	}
	op, err := f.logical(oldname)
	if err != nil {
		return err
	}
	return f.A.RenameReplace(op, np)
}

// RenameNoReplace commits a pending file under newname.
func (f *ArrayFS) RenameNoReplace(oldname, newname string) error {
	w := f.takePending(oldname)
	if w == nil {
		op, err := f.logical(oldname)
		if err != nil {
			return err
		}
		np, err := f.logical(newname)
		if err != nil {
			return err
		}
		return f.A.Rename(op, np)
	}
	p, err := f.logical(newname)
	if err != nil {
		w.Abort()
		return err
	}
	if _, ok := f.A.Lookup(p); ok {
		w.Abort()
		return &fs.PathError{Op: "rename", Path: newname, Err: fs.ErrExist}
	}
	if err := w.SetPath(p); err != nil {
		w.Abort()
		return err
	}
	_, err = w.Commit()
	return err
}

// Remove discards a pending temp, or deletes a committed file (crash-safe,
// see raid.Array.Remove).
func (f *ArrayFS) Remove(name string) error {
	if w := f.takePending(name); w != nil {
		w.Abort()
		return nil
	}
	p, err := f.logical(name)
	if err != nil {
		return err
	}
	return f.A.Remove(p)
}

// Chtimes sets the mtime a pending file is committed with.
func (f *ArrayFS) Chtimes(name string, atime, mtime time.Time) error {
	f.mu.Lock()
	w := f.pending[filepath.Clean(name)]
	f.mu.Unlock()
	if w != nil {
		w.SetMtime(mtime)
	}
	return nil
}

// SyncDir is a no-op: array commits are durable on their own.
func (f *ArrayFS) SyncDir(string) error { return nil }

// SyncFile is a no-op: a file on the array is there only once its commit
// is durable.
func (f *ArrayFS) SyncFile(string) error { return nil }

// Free is the logical space left on the array.
func (f *ArrayFS) Free(string) (uint64, string, error) {
	n, err := f.A.Free()
	sb := f.A.Superblock()
	return n, "array:" + sb.ArrayUUID, err
}

// Mux routes paths below mounted roots to their FS, the rest to Base.
type Mux struct {
	Base   FS
	mounts map[string]FS
}

// NewMux returns a Mux over base.
func NewMux(base FS) *Mux { return &Mux{Base: base, mounts: map[string]FS{}} }

// Mount serves every path at or below root from f.
func (m *Mux) Mount(root string, f FS) { m.mounts[filepath.Clean(root)] = f }

func (m *Mux) route(name string) FS {
	name = filepath.Clean(name)
	for d := name; ; d = filepath.Dir(d) {
		if f, ok := m.mounts[d]; ok {
			return f
		}
		if d == filepath.Dir(d) {
			return m.Base
		}
	}
}

func (m *Mux) Lstat(n string) (fs.FileInfo, error)     { return m.route(n).Lstat(n) }
func (m *Mux) ReadDir(n string) ([]fs.DirEntry, error) { return m.route(n).ReadDir(n) }
func (m *Mux) Open(n string) (File, error)             { return m.route(n).Open(n) }
func (m *Mux) OpenNoCache(n string) (File, error)      { return m.route(n).OpenNoCache(n) }
func (m *Mux) CreateTemp(d, p string) (WFile, error)   { return m.route(d).CreateTemp(d, p) }
func (m *Mux) MkdirAll(n string, p fs.FileMode) error  { return m.route(n).MkdirAll(n, p) }
func (m *Mux) Remove(n string) error                   { return m.route(n).Remove(n) }
func (m *Mux) Chtimes(n string, a, t time.Time) error  { return m.route(n).Chtimes(n, a, t) }
func (m *Mux) SyncDir(n string) error                  { return m.route(n).SyncDir(n) }
func (m *Mux) SyncFile(n string) error                 { return m.route(n).SyncFile(n) }
func (m *Mux) Free(n string) (uint64, string, error)   { return m.route(n).Free(n) }
func (m *Mux) Rename(o, n string) error                { return m.route(o).Rename(o, n) }
func (m *Mux) RenameNoReplace(o, n string) error       { return RenameNoReplace(m.route(o), o, n) }

var _ FS = (*Mux)(nil)
var _ FS = (*ArrayFS)(nil)
var _ = errors.New

// ArrayAt returns the array mounted at root of f (through a Mux), or nil.
func ArrayAt(f FS, root string) *raid.Array {
	if m, ok := f.(*Mux); ok {
		f = m.route(root)
	}
	if af, ok := f.(*ArrayFS); ok {
		return af.A
	}
	return nil
}

// ArraySpaceShortfall says, in figures that add up, why files of the
// given sizes (walked twice, nothing of them held) do not fit on the
// blades of the array at root of f, keeping
// margin bytes free on each blade ("" when they fit, or root is not an
// array). An array's free space depends on the sizes of the files: a RAID
// 4 parity blade takes a whole stripe unit for a file of up to one.
func ArraySpaceShortfall(f FS, root string, sizes iter.Seq[int64], margin int64) string {
	a := ArrayAt(f, root)
	if a == nil {
		return ""
	}
	need := a.BladeNeed(sizes)
	free := a.BladeFree()
	sb := a.Superblock()
	worst, short := -1, int64(0)
	for r := len(need) - 1; r >= 0; r-- { // the parity blade first
		if a.BladeDir(r) == "" {
			continue // missing: nothing is written to it
		}
		if s := need[r] + margin - int64(free[r]); s > short {
			worst, short = r, s
		}
	}
	if worst < 0 {
		return ""
	}
	var logical, files int64
	for s := range sizes {
		logical += s
		files++
	}
	kind := "data"
	if worst >= sb.DataBlades {
		kind = "parity"
	}
	why := "its share of the files' data chunks"
	if kind == "parity" {
		why = fmt.Sprintf("per file, a parity chunk as long as the file's largest data chunk (a file of up to one stripe unit, %d KiB, costs its whole size on the parity blade)", sb.StripeUnit>>10)
	}
	return fmt.Sprintf("the %d files (%s) take %s on blade role %d (%s, %s): %s, with its manifests and filesystem blocks; "+
		"dit keeps a margin of %s there: %s in all; %s is free on that blade, %s short",
		files, units.FormatBytes(logical), units.FormatBytes(need[worst]), worst, kind, a.BladeDir(worst), why,
		units.FormatBytes(margin), units.FormatBytes(need[worst]+margin), units.FormatBytes(int64(free[worst])), units.FormatBytes(short))
}

// SyncsAlone reports whether a copy at name is made durable by its own
// fsync, independent of other files' (a plain filesystem: several copies'
// fsyncs may run at once and share the filesystem's journal commit), as
// against a dit array, whose Sync commits the file across its blades.
func SyncsAlone(f FS, name string) bool {
	if m, ok := f.(*Mux); ok {
		f = m.route(name)
	}
	_, array := f.(*ArrayFS)
	return !array
}
