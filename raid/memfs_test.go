package raid

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// memWorld is shared by the blades of one test: it counts mutating
// operations and can "crash" after operation N (every later call fails).
type memWorld struct {
	mu      sync.Mutex
	ops     int
	crashAt int // 0: never
	crashed bool
}

var errCrashed = errors.New("simulated crash")

func (w *memWorld) tick() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.crashed {
		return errCrashed
	}
	w.ops++
	if w.crashAt > 0 && w.ops >= w.crashAt {
		w.crashed = true
		return errCrashed
	}
	return nil
}

// memFS is a strict in-memory blade in the manner of Pebble's
// NewStrictMem: after Crash only fsynced file data and fsynced directory
// entries survive. ignoreSync models a drive that lies about flushes.
type memFS struct {
	w          *memWorld
	root       string
	ignoreSync bool
	top        *memNode
}

type memNode struct {
	dir     bool
	data    []byte
	synced  []byte
	cur     map[string]*memNode // dir entries
	dsynced map[string]*memNode
	mtime   time.Time
}

func newMemFS(w *memWorld, root string) *memFS {
	return &memFS{w: w, root: root, top: &memNode{dir: true, cur: map[string]*memNode{}, dsynced: map[string]*memNode{}}}
}

func (m *memFS) lock() func() { m.w.mu.Lock(); return m.w.mu.Unlock }

// Crash drops everything not made durable.
func (m *memFS) Crash() {
	defer m.lock()()
	var reset func(n *memNode)
	reset = func(n *memNode) {
		if !n.dir {
			n.data = append([]byte(nil), n.synced...)
			return
		}
		n.cur = map[string]*memNode{}
		for k, v := range n.dsynced {
			n.cur[k] = v
		}
		for _, c := range n.cur {
			reset(c)
		}
	}
	reset(m.top)
}

func (m *memFS) lookup(name string) (*memNode, error) {
	n := m.top
	if name == "" || name == "." {
		return n, nil
	}
	for _, part := range strings.Split(name, "/") {
		if !n.dir {
			return nil, syscall.ENOTDIR
		}
		c, ok := n.cur[part]
		if !ok {
			return nil, fs.ErrNotExist
		}
		n = c
	}
	return n, nil
}

func (m *memFS) parent(name string) (*memNode, string, error) {
	p, err := m.lookup(path.Dir(name))
	if err != nil {
		return nil, "", err
	}
	if !p.dir {
		return nil, "", syscall.ENOTDIR
	}
	return p, path.Base(name), nil
}

func perr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

func (m *memFS) OpenFile(name string, flag int, perm fs.FileMode) (BladeFile, error) {
	if flag&(os.O_CREATE|os.O_WRONLY|os.O_RDWR|os.O_TRUNC) != 0 {
		if err := m.w.tick(); err != nil {
			return nil, perr("open", name, err)
		}
	}
	defer m.lock()()
	if m.w.crashed {
		return nil, perr("open", name, errCrashed)
	}
	p, base, err := m.parent(name)
	if err != nil {
		return nil, perr("open", name, err)
	}
	n, ok := p.cur[base]
	switch {
	case ok && flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0:
		return nil, perr("open", name, fs.ErrExist)
	case !ok && flag&os.O_CREATE == 0:
		return nil, perr("open", name, fs.ErrNotExist)
	case !ok:
		n = &memNode{mtime: time.Now()}
		p.cur[base] = n
	case n.dir:
		return nil, perr("open", name, syscall.EISDIR)
	}
	if flag&os.O_TRUNC != 0 {
		n.data = nil
	}
	f := &memFile{fs: m, n: n, name: name}
	if flag&os.O_APPEND != 0 {
		f.append = true
	}
	return f, nil
}

func (m *memFS) Rename(o, nn string) error {
	if err := m.w.tick(); err != nil {
		return perr("rename", o, err)
	}
	defer m.lock()()
	op, ob, err := m.parent(o)
	if err != nil {
		return perr("rename", o, err)
	}
	n, ok := op.cur[ob]
	if !ok {
		return perr("rename", o, fs.ErrNotExist)
	}
	np, nb, err := m.parent(nn)
	if err != nil {
		return perr("rename", nn, err)
	}
	delete(op.cur, ob)
	np.cur[nb] = n
	return nil
}

func (m *memFS) Remove(name string) error {
	if err := m.w.tick(); err != nil {
		return perr("remove", name, err)
	}
	defer m.lock()()
	p, b, err := m.parent(name)
	if err != nil {
		return perr("remove", name, err)
	}
	n, ok := p.cur[b]
	if !ok {
		return perr("remove", name, fs.ErrNotExist)
	}
	if n.dir && len(n.cur) > 0 {
		return perr("remove", name, syscall.ENOTEMPTY)
	}
	delete(p.cur, b)
	return nil
}

func (m *memFS) MkdirAll(name string, perm fs.FileMode) error {
	if err := m.w.tick(); err != nil {
		return perr("mkdir", name, err)
	}
	defer m.lock()()
	n := m.top
	for _, part := range strings.Split(name, "/") {
		c, ok := n.cur[part]
		if !ok {
			c = &memNode{dir: true, cur: map[string]*memNode{}, dsynced: map[string]*memNode{}, mtime: time.Now()}
			n.cur[part] = c
		}
		if !c.dir {
			return perr("mkdir", name, syscall.ENOTDIR)
		}
		n = c
	}
	return nil
}

type memDirEntry struct {
	name string
	n    *memNode
}

func (e memDirEntry) Name() string { return e.name }
func (e memDirEntry) IsDir() bool  { return e.n.dir }
func (e memDirEntry) Type() fs.FileMode {
	if e.n.dir {
		return fs.ModeDir
	}
	return 0
}
func (e memDirEntry) Info() (fs.FileInfo, error) { return memInfo(e), nil }

type memInfo struct {
	name string
	n    *memNode
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return int64(len(i.n.data)) }
func (i memInfo) ModTime() time.Time { return i.n.mtime }
func (i memInfo) IsDir() bool        { return i.n.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.n.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	defer m.lock()()
	n, err := m.lookup(name)
	if err != nil {
		return nil, perr("readdir", name, err)
	}
	var out []fs.DirEntry
	for k, v := range n.cur {
		out = append(out, memDirEntry{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	defer m.lock()()
	n, err := m.lookup(name)
	if err != nil {
		return nil, perr("stat", name, err)
	}
	return memInfo{path.Base(name), n}, nil
}

func (m *memFS) SyncDir(name string) error {
	if err := m.w.tick(); err != nil {
		return perr("syncdir", name, err)
	}
	defer m.lock()()
	n, err := m.lookup(name)
	if err != nil {
		return perr("syncdir", name, err)
	}
	if m.ignoreSync {
		return nil
	}
	n.dsynced = map[string]*memNode{}
	for k, v := range n.cur {
		n.dsynced[k] = v
	}
	return nil
}

func (m *memFS) Free() (uint64, error) { return 1 << 40, nil }
func (m *memFS) Root() string          { return m.root }

type memFile struct {
	fs     *memFS
	n      *memNode
	name   string
	off    int64
	append bool
}

func (f *memFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	defer f.fs.lock()()
	if off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.n.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if f.append {
		f.off = int64(len(f.n.data))
	}
	n, err := f.WriteAt(p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fs.w.tick(); err != nil {
		return 0, perr("write", f.name, err)
	}
	defer f.fs.lock()()
	if end := off + int64(len(p)); end > int64(len(f.n.data)) {
		nd := make([]byte, end)
		copy(nd, f.n.data)
		f.n.data = nd
	}
	copy(f.n.data[off:], p)
	return len(p), nil
}

func (f *memFile) Sync() error {
	if err := f.fs.w.tick(); err != nil {
		return perr("sync", f.name, err)
	}
	defer f.fs.lock()()
	if !f.fs.ignoreSync {
		f.n.synced = append([]byte(nil), f.n.data...)
	}
	return nil
}

func (f *memFile) Truncate(size int64) error {
	if err := f.fs.w.tick(); err != nil {
		return perr("truncate", f.name, err)
	}
	defer f.fs.lock()()
	if size < int64(len(f.n.data)) {
		f.n.data = f.n.data[:size]
	} else {
		f.n.data = append(f.n.data, make([]byte, size-int64(len(f.n.data)))...)
	}
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{path.Base(f.name), f.n}, nil }
func (f *memFile) Close() error               { return nil }

// memBlades is a set of in-memory blades addressed by folder name.
type memBlades struct {
	w      *memWorld
	blades map[string]*memFS
	hidden map[string]bool // blades "unplugged"
}

func newMemBlades(n int) (*memBlades, []string) {
	mb := &memBlades{w: &memWorld{}, blades: map[string]*memFS{}, hidden: map[string]bool{}}
	var dirs []string
	for i := 0; i < n; i++ {
		d := "/mem/blade" + string(rune('0'+i))
		dirs = append(dirs, d)
		mb.blades[d] = newMemFS(mb.w, d)
	}
	return mb, dirs
}

func (mb *memBlades) fs(dir string) BladeFS {
	if mb.hidden[dir] {
		return newMemFS(&memWorld{}, dir)
	}
	if b, ok := mb.blades[dir]; ok {
		return b
	}
	b := newMemFS(mb.w, dir)
	mb.blades[dir] = b
	return b
}

func (mb *memBlades) crash() {
	for _, b := range mb.blades {
		b.Crash()
	}
	mb.w.mu.Lock()
	mb.w.crashed, mb.w.crashAt = false, 0
	mb.w.mu.Unlock()
}
