package raid

import (
	"io/fs"
	"strings"
	"sync"
	"time"
)

// faultFS injects errors and delays into one blade by operation and path.
type faultFS struct {
	BladeFS
	mu    sync.Mutex
	rules []*fault
	syncs map[string]int // Sync calls per file (fsync must never be retried)
}

type fault struct {
	op    string // "write", "sync", "syncdir", "rename", "read", "open"
	match string
	after int // let this many matching ops pass first
	err   error
	short bool
	delay time.Duration
	from  int64 // read range (op "read"): offsets [from, to)
	to    int64
	seen  int
}

func newFaultFS(b BladeFS) *faultFS { return &faultFS{BladeFS: b, syncs: map[string]int{}} }

func (f *faultFS) add(r *fault) { f.mu.Lock(); f.rules = append(f.rules, r); f.mu.Unlock() }

func (f *faultFS) hit(op, name string, off int64) *fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.op != op || !strings.Contains(name, r.match) {
			continue
		}
		if op == "read" && r.to > 0 && (off < r.from || off >= r.to) {
			continue
		}
		r.seen++
		if r.seen > r.after {
			return r
		}
	}
	return nil
}

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (BladeFile, error) {
	if r := f.hit("open", name, 0); r != nil && r.err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: r.err}
	}
	file, err := f.BladeFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{BladeFile: file, f: f, name: name}, nil
}

func (f *faultFS) SyncDir(name string) error {
	if r := f.hit("syncdir", name, 0); r != nil && r.err != nil {
		return &fs.PathError{Op: "syncdir", Path: name, Err: r.err}
	}
	return f.BladeFS.SyncDir(name)
}

func (f *faultFS) Rename(o, n string) error {
	if r := f.hit("rename", n, 0); r != nil && r.err != nil {
		return &fs.PathError{Op: "rename", Path: n, Err: r.err}
	}
	return f.BladeFS.Rename(o, n)
}

type faultFile struct {
	BladeFile
	f    *faultFS
	name string
}

func (w *faultFile) Write(p []byte) (int, error) {
	if r := w.f.hit("write", w.name, 0); r != nil {
		if r.short {
			n, _ := w.BladeFile.Write(p[:len(p)/2])
			return n, nil
		}
		return 0, &fs.PathError{Op: "write", Path: w.name, Err: r.err}
	}
	return w.BladeFile.Write(p)
}

func (w *faultFile) Sync() error {
	w.f.mu.Lock()
	w.f.syncs[w.name]++
	w.f.mu.Unlock()
	if r := w.f.hit("sync", w.name, 0); r != nil {
		return &fs.PathError{Op: "sync", Path: w.name, Err: r.err}
	}
	return w.BladeFile.Sync()
}

func (w *faultFile) ReadAt(p []byte, off int64) (int, error) {
	if r := w.f.hit("read", w.name, off); r != nil {
		if r.delay > 0 {
			time.Sleep(r.delay)
		}
		if r.err != nil {
			return 0, &fs.PathError{Op: "read", Path: w.name, Err: r.err}
		}
	}
	return w.BladeFile.ReadAt(p, off)
}
