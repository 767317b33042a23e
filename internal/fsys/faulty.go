package fsys

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Faulty wraps an FS and injects faults into the files whose path
// contains a configured substring. It is for tests, and lives here so the
// tests of several packages can share it.
type Faulty struct {
	FS
	mu    sync.Mutex
	rules []Fault
	// syncing and maxSyncing count the Syncs of matching temps under way;
	// flushes counts those Syncs and the SyncFS calls.
	syncing, maxSyncing, flushes int
	// syncs counts the Syncs of temps by the Match of their rule.
	syncs map[string]int
	// wbErrs counts the writes to temps with a SyncErr rule: their
	// write-back "failed", and, as the kernel's filesystem error sequence
	// (errseq), a SyncFS reports it once to each syncer opened before it,
	// whether or not the temp is still open.
	wbErrs int
	// flushDelay is the longest SyncDelay of the rules that matched a
	// temp: the drive's flush time, which a SyncFS pays once.
	flushDelay time.Duration
}

// Flushes is how many times a matching temp was synced plus how many
// SyncFS calls were made: the flushes a slow drive would have paid for.
func (f *Faulty) Flushes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushes
}

// OpenFSSyncer wraps the wrapped FS's: a SyncFS counts as one flush, takes
// the longest SyncDelay of the rules that matched a temp, and fails with
// EIO once for the writes to temps with a SyncErr rule made since the
// syncer was opened or since its last SyncFS that failed (their
// write-back failed, and syncfs reports each write-back error of the
// filesystem once to each open file, as the kernel's errseq does).
func (f *Faulty) OpenFSSyncer(dir string) FSSyncer {
	s := OpenFSSyncer(f.FS, dir)
	if s == nil {
		return nil
	}
	f.mu.Lock()
	seen := f.wbErrs
	f.mu.Unlock()
	return &faultySyncer{FSSyncer: s, f: f, dir: dir, seen: seen}
}

type faultySyncer struct {
	FSSyncer
	f    *Faulty
	dir  string
	seen int
}

func (s *faultySyncer) SyncFS() error {
	f := s.f
	f.mu.Lock()
	f.flushes++
	delay := f.flushDelay
	failed := f.wbErrs > s.seen
	s.seen = f.wbErrs
	f.mu.Unlock()
	time.Sleep(delay)
	if err := s.FSSyncer.SyncFS(); err != nil {
		return err
	}
	if failed {
		return &fs.PathError{Op: "syncfs", Path: s.dir, Err: syscall.EIO}
	}
	return nil
}

// Syncs is how many times temps created under the rule with this Match
// were synced one by one (fsync), and files SyncFile'd under it.
func (f *Faulty) Syncs(match string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncs[match]
}

// countSync counts an fsync under a rule's Match (f.mu held).
func (f *Faulty) countSync(match string) {
	if f.syncs == nil {
		f.syncs = map[string]int{}
	}
	f.syncs[match]++
}

// MaxConcurrentSyncs is the most Syncs of matching temp files that were
// under way at once.
func (f *Faulty) MaxConcurrentSyncs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxSyncing
}

// Fault describes one injected fault. Match selects files by substring of
// their path.
type Fault struct {
	Match string
	// ReadErrAt makes reads fail with ReadErr (default EIO) once this many
	// bytes of the file have been read. -1 disables.
	ReadErrAt int64
	ReadErr   error
	// OpenErr makes Open/OpenNoCache fail.
	OpenErr error
	// WriteErrAt makes writes of a temp file created in a folder matching
	// Match fail with WriteErr (default ENOSPC) after this many bytes.
	WriteErrAt int64
	WriteErr   error
	// ShortWrite makes a write at or beyond WriteErrAt return fewer bytes
	// than asked and no error (io.ErrShortWrite territory).
	ShortWrite bool
	// Hold makes a write past HoldAt bytes of a matching temp file wait
	// until Hold is closed (a destination that hangs: a network share
	// gone, a drive that stops answering).
	Hold   chan struct{}
	HoldAt int64
	// SyncErr makes Sync of matching temp files fail (and syncfs report
	// it), and SyncFile of matching files.
	SyncErr error
	// SyncDelay makes each Sync of a matching temp file take this long
	// first (a drive slow to flush its cache: USB disks, SD cards).
	SyncDelay time.Duration
	// OnRead is called after each successful read of a matching source
	// with the total read so far (e.g. to change the file mid-read).
	OnRead func(total int64)
	// Once removes the rule after it fired.
	Once bool
}

// NewFaulty wraps fsys.
func NewFaulty(fsys FS) *Faulty { return &Faulty{FS: fsys} }

// Add registers a fault.
func (f *Faulty) Add(r Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.ReadErrAt == 0 && r.ReadErr == nil {
		r.ReadErrAt = -1
	}
	if r.WriteErrAt == 0 && r.WriteErr == nil && !r.ShortWrite {
		r.WriteErrAt = -1
	}
	f.rules = append(f.rules, r)
}

func (f *Faulty) match(name string) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.rules {
		if strings.Contains(name, f.rules[i].Match) {
			r := f.rules[i]
			if r.Once {
				f.rules = append(f.rules[:i], f.rules[i+1:]...)
			}
			return &r
		}
	}
	return nil
}

// Open applies read faults.
func (f *Faulty) Open(name string) (File, error) { return f.open(name, f.FS.Open) }

// OpenNoCache applies read faults.
func (f *Faulty) OpenNoCache(name string) (File, error) { return f.open(name, f.FS.OpenNoCache) }

func (f *Faulty) open(name string, open func(string) (File, error)) (File, error) {
	r := f.match(name)
	if r != nil && r.OpenErr != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: r.OpenErr}
	}
	file, err := open(name)
	if err != nil || r == nil {
		return file, err
	}
	return &faultyFile{File: file, rule: r, name: name}, nil
}

// SyncFile applies the SyncDelay and SyncErr of the first rule matching
// name that has either to the fsync of a file already there, and counts
// it as a flush and in Syncs under the first matching rule's Match.
func (f *Faulty) SyncFile(name string) error {
	var fault *Fault
	f.mu.Lock()
	f.flushes++
	counted := false
	for i := range f.rules {
		// A Once rule is not used up here.
		r := f.rules[i]
		if !strings.Contains(name, r.Match) {
			continue
		}
		if !counted {
			f.countSync(r.Match)
			counted = true
		}
		if r.SyncErr != nil || r.SyncDelay > 0 {
			fault = &r
			break
		}
	}
	f.mu.Unlock()
	if fault != nil {
		time.Sleep(fault.SyncDelay)
		if fault.SyncErr != nil {
			return &fs.PathError{Op: "fsync", Path: name, Err: fault.SyncErr}
		}
	}
	return f.FS.SyncFile(name)
}

// CreateTemp applies write faults to files created in matching folders.
func (f *Faulty) CreateTemp(dir, pattern string) (WFile, error) {
	w, err := f.FS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if r := f.match(dir + "/" + pattern); r != nil {
		f.mu.Lock()
		f.flushDelay = max(f.flushDelay, r.SyncDelay)
		f.mu.Unlock()
		return &faultyWFile{WFile: w, rule: r, f: f}, nil
	}
	return w, nil
}

type faultyFile struct {
	File
	rule *Fault
	name string
	n    int64
}

func (f *faultyFile) Read(p []byte) (int, error) {
	if at := f.rule.ReadErrAt; at >= 0 {
		if f.n >= at {
			e := f.rule.ReadErr
			if e == nil {
				e = syscall.EIO
			}
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: e}
		}
		if rem := at - f.n; int64(len(p)) > rem {
			p = p[:rem]
		}
	}
	n, err := f.File.Read(p)
	f.n += int64(n)
	if f.rule.OnRead != nil && n > 0 {
		f.rule.OnRead(f.n)
	}
	return n, err
}

type faultyWFile struct {
	WFile
	rule *Fault
	f    *Faulty
	n    int64
}

func (w *faultyWFile) Write(p []byte) (int, error) {
	if h := w.rule.Hold; h != nil && w.n+int64(len(p)) > w.rule.HoldAt {
		<-h
	}
	at := w.rule.WriteErrAt
	if at >= 0 && w.n+int64(len(p)) > at {
		keep := max(at-w.n, 0)
		if w.rule.ShortWrite {
			n, err := w.WFile.Write(p[:keep])
			w.n += int64(n)
			return n, err
		}
		n, _ := w.WFile.Write(p[:keep])
		w.n += int64(n)
		e := w.rule.WriteErr
		if e == nil {
			e = syscall.ENOSPC
		}
		return n, &fs.PathError{Op: "write", Path: w.Name(), Err: e}
	}
	n, err := w.WFile.Write(p)
	w.n += int64(n)
	if n > 0 && w.rule.SyncErr != nil {
		w.f.mu.Lock()
		w.f.wbErrs++
		w.f.mu.Unlock()
	}
	return n, err
}

func (w *faultyWFile) Sync() error {
	w.f.mu.Lock()
	w.f.syncing++
	w.f.maxSyncing = max(w.f.maxSyncing, w.f.syncing)
	w.f.flushes++
	w.f.countSync(w.rule.Match)
	w.f.mu.Unlock()
	defer func() {
		w.f.mu.Lock()
		w.f.syncing--
		w.f.mu.Unlock()
	}()
	time.Sleep(w.rule.SyncDelay)
	if w.rule.SyncErr != nil {
		return &fs.PathError{Op: "sync", Path: w.Name(), Err: w.rule.SyncErr}
	}
	return w.WFile.Sync()
}

var _ io.Reader = (*faultyFile)(nil)

// IsNoSpace reports whether err means the destination is full.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
