package raid

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/zeebo/xxh3"
)

// FileSpec describes a file to write.
type FileSpec struct {
	Path   string // logical, slash-separated, relative
	Mtime  time.Time
	Source SourceInfo
}

// stripeBuf is one stripe in flight: k data units and the parity unit.
type stripeBuf struct {
	data   []byte // k*su
	parity []byte // su
	refs   atomic.Int32
	free   chan *stripeBuf
}

func (s *stripeBuf) release() {
	if s.refs.Add(-1) == 0 {
		s.free <- s
	}
}

type unitMsg struct {
	b   []byte
	buf *stripeBuf
}

// Writer streams one new file onto the array: parity and unit hashes are
// computed inline, one goroutine per blade appends units to its chunk, and
// Commit makes the file durable with the commit protocol of the package
// doc. Nothing is visible until Commit returns nil; Abort (or any error)
// removes every trace.
type Writer struct {
	a      *Array
	spec   FileSpec
	id     string
	ly     Layout
	parity bool

	cur   *stripeBuf
	fill  int64
	pool  chan *stripeBuf
	ch    []chan unitMsg
	files []BladeFile
	emu   sync.Mutex
	errs  []error // guarded by emu
	wg    sync.WaitGroup

	units   [][16]byte
	x64     *xxhash.Digest
	x3      *xxh3.Hasher128
	size    int64
	stripes int64
	err     error
	done    bool
	roles   []int // roles written
}

// Depth is how many stripes may be in flight per file: memory per file
// being written is at most Depth*(k+1)*su.
const Depth = 4

// Create starts writing a new file at the logical path p. It fails with an
// error satisfying errors.Is(err, fs.ErrExist) if p exists.
func (a *Array) Create(spec FileSpec) (*Writer, error) {
	if !a.rw {
		return nil, errors.New("array is open read-only")
	}
	if err := checkLogicalPath(spec.Path); err != nil {
		return nil, err
	}
	if m, ok := a.Lookup(spec.Path); ok {
		return nil, &fs.PathError{Op: "create", Path: spec.Path, Err: fs.ErrExist}
	} else {
		_ = m
	}
	k := a.sb.DataBlades
	w := &Writer{a: a, spec: spec, id: newID(), parity: a.sb.ParityBlades == 1,
		x64: xxhash.New(), x3: xxh3.New128()}
	w.ly = Layout{K: k, SU: a.sb.StripeUnit, Start: int(a.start.Add(1)-1) % k}
	roles := a.sb.Roles()
	for r := 0; r < roles; r++ {
		if a.writable(r) {
			w.roles = append(w.roles, r)
		}
	}
	// Intent first, on every blade.
	intent, _ := json.Marshal(map[string]any{"kind": "create", "file_id": w.id, "path": spec.Path,
		"session": a.sb.SessionID, "k": k, "su": w.ly.SU, "start": w.ly.Start, "source": spec.Source})
	for _, r := range w.roles {
		if err := writeAtomic(a.blades[r].fs, intentName(w.id), intent); err != nil {
			w.cleanup()
			return nil, fmt.Errorf("blade %s: writing intent: %w", a.blades[r].fs.Root(), err)
		}
	}
	w.files = make([]BladeFile, roles)
	w.errs = make([]error, roles)
	w.ch = make([]chan unitMsg, roles)
	for _, r := range w.roles {
		b := a.blades[r]
		pos := r
		if r < k {
			pos = w.ly.Position(r)
		}
		name := chunkName(w.id, pos, k)
		if err := mkdirDurable(b.fs, path.Dir(name)); err != nil {
			w.cleanup()
			return nil, fmt.Errorf("blade %s: %w", b.fs.Root(), err)
		}
		f, err := b.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			w.cleanup()
			return nil, fmt.Errorf("blade %s: %w", b.fs.Root(), err)
		}
		w.files[r] = f
	}
	// Every chunk is open: only now start the blade writers.
	for _, r := range w.roles {
		w.ch[r] = make(chan unitMsg, Depth)
		w.wg.Add(1)
		go w.bladeWriter(r)
	}
	// Up to Depth stripes in flight per file; the buffers come from the
	// array's pool, so many small files do not allocate anew each time.
	w.pool = make(chan *stripeBuf, Depth)
	for i := 0; i < Depth; i++ {
		w.pool <- nil
	}
	w.cur = w.take()
	return w, nil
}

// take returns a stripe buffer once one of this file's Depth slots is free.
func (w *Writer) take() *stripeBuf {
	s := <-w.pool
	if s == nil {
		s = w.a.bufPool.Get().(*stripeBuf)
		s.free = w.pool
	}
	return s
}

// putBuffers hands this file's buffers back to the array's pool.
func (w *Writer) putBuffers() {
	if w.cur != nil {
		w.a.bufPool.Put(w.cur)
		w.cur = nil
	}
	for i := 0; i < Depth; i++ {
		select {
		case s := <-w.pool:
			if s != nil {
				w.a.bufPool.Put(s)
			}
		default:
		}
	}
}

// writable says whether role r takes writes now (present, not stale).
func (a *Array) writable(r int) bool {
	b := a.blades[r]
	return b != nil && !b.stale && a.sb.Members[r].State == MemberActive
}

func (w *Writer) bladeWriter(r int) {
	defer w.wg.Done()
	f := w.files[r]
	for m := range w.ch[r] {
		w.emu.Lock()
		failed := w.errs[r] != nil
		w.emu.Unlock()
		if !failed && len(m.b) > 0 {
			n, err := f.Write(m.b)
			if err == nil && n < len(m.b) {
				err = fmt.Errorf("short write (%d of %d bytes)", n, len(m.b))
			}
			if err != nil {
				w.emu.Lock()
				w.errs[r] = fmt.Errorf("blade %s: writing chunk of %s: %w", w.a.blades[r].fs.Root(), w.spec.Path, err)
				w.emu.Unlock()
			}
		}
		m.buf.release()
	}
}

// Write appends p to the file.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done {
		return 0, errors.New("write after commit")
	}
	w.x64.Write(p)
	w.x3.Write(p)
	n := 0
	width := int64(len(w.cur.data))
	for len(p) > 0 {
		c := copy(w.cur.data[w.fill:], p)
		w.fill += int64(c)
		p = p[c:]
		n += c
		w.size += int64(c)
		if w.fill == width {
			if err := w.flushStripe(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// flushStripe seals the current stripe: unit hashes and parity, then one
// unit to each blade writer.
func (w *Writer) flushStripe() error {
	w.emu.Lock()
	err := errors.Join(w.errs...)
	w.emu.Unlock()
	if err != nil {
		w.err = err
		return err
	}
	s := w.cur
	lens := w.encode(s, w.fill)
	k, su := w.ly.K, w.ly.SU
	plen := lens[0]
	w.stripes++
	s.refs.Store(int32(len(w.roles)) + 1)
	for _, r := range w.roles {
		var b []byte
		if r == k {
			b = s.parity[:plen]
		} else {
			j := w.ly.Position(r)
			b = s.data[int64(j)*su : int64(j)*su+lens[j]]
		}
		w.ch[r] <- unitMsg{b: b, buf: s}
	}
	s.release()
	w.cur = w.take()
	w.fill = 0
	return nil
}

// encode computes the unit hashes and the parity of a stripe holding fill
// bytes, appends the hashes to the manifest table, and returns the data
// unit lengths.
func (w *Writer) encode(s *stripeBuf, fill int64) []int64 {
	k, su := w.ly.K, w.ly.SU
	lens := make([]int64, k)
	for j := 0; j < k; j++ {
		lens[j] = min(max(fill-int64(j)*su, 0), su)
	}
	plen := lens[0]
	roles := k
	if w.parity {
		roles++
	}
	hs := make([][16]byte, roles)
	for j := 0; j < k; j++ {
		if lens[j] > 0 {
			hs[j] = xxh3.Hash128(s.data[int64(j)*su : int64(j)*su+lens[j]]).Bytes()
		}
	}
	if w.parity {
		p := s.parity[:plen]
		// The first two units in one pass (no copy of the first), then
		// the others; a shorter last unit covers only its own length.
		j := 1
		if k > 1 && lens[1] == plen {
			subtle.XORBytes(p, s.data[:plen], s.data[su:su+plen])
			j = 2
		} else {
			copy(p, s.data[:plen])
		}
		for ; j < k && lens[j] > 0; j++ {
			subtle.XORBytes(p[:lens[j]], p[:lens[j]], s.data[int64(j)*su:int64(j)*su+lens[j]])
		}
		hs[k] = xxh3.Hash128(p).Bytes()
	}
	w.units = append(w.units, hs...)
	return lens
}

// Size is the number of bytes written so far.
func (w *Writer) Size() int64 { return w.size }

// SetMtime changes the modification time recorded at Commit.
func (w *Writer) SetMtime(t time.Time) { w.spec.Mtime = t }

// SetPath changes the logical path the file is committed under.
func (w *Writer) SetPath(p string) error {
	if err := checkLogicalPath(p); err != nil {
		return err
	}
	w.spec.Path = p
	return nil
}

// Flush writes out the partial last stripe, waits for every blade writer
// and fsyncs every chunk and chunk folder: after Flush the data is
// durable, but the file does not exist until Commit.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return nil
	}
	if w.fill > 0 {
		if err := w.flushStripe(); err != nil {
			w.fail(err)
			return err
		}
	}
	for _, r := range w.roles {
		close(w.ch[r])
	}
	w.wg.Wait()
	w.done = true
	w.putBuffers()
	if err := errors.Join(w.errs...); err != nil {
		w.fail(err)
		return err
	}
	// Barrier: every chunk and chunk folder durable on every blade before
	// any manifest is written.
	errs := make([]error, len(w.files))
	var wg sync.WaitGroup
	for _, r := range w.roles {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			f := w.files[r]
			err := f.Sync()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			w.files[r] = nil
			if err == nil {
				err = w.a.blades[r].fs.SyncDir(path.Join(Dir, "chunks", fanout(w.id)))
			}
			if err != nil {
				errs[r] = fmt.Errorf("blade %s: making the chunk of %s durable: %w", w.a.blades[r].fs.Root(), w.spec.Path, err)
			}
		}(r)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		w.fail(err)
		return err
	}
	return nil
}

// Commit makes the file durable and visible: chunks fsynced everywhere,
// then a manifest replica on every blade (the commit point is the first
// durable replica), then the intents are removed.
func (w *Writer) Commit() (*Manifest, error) {
	if err := w.Flush(); err != nil {
		return nil, err
	}
	a := w.a
	m := &Manifest{Meta: Meta{FileID: w.id, ArrayUUID: a.sb.ArrayUUID, Generation: 1, Path: w.spec.Path,
		Size: w.size, MtimeNs: w.spec.Mtime.UnixNano(), Mode: 0o644, Source: w.spec.Source,
		Hashes:        map[string]string{"xxh64": fmt.Sprintf("%016x", w.x64.Sum64()), "xxh3-128": fmt.Sprintf("%x", w.x3.Sum128().Bytes())},
		WrittenWith:   w.roles,
		EventsAtWrite: a.sb.Events, Session: a.sb.SessionID, CommittedAt: time.Now().UTC(), Writer: a.opts.Writer},
		NStripes: uint64(w.stripes), Roles: a.sb.Roles(), Units: w.units}
	ly := Layout{K: w.ly.K, SU: w.ly.SU, Start: w.ly.Start, Size: w.size}
	m.Layout = ManifestLayout{Level: a.sb.Level, K: ly.K, SU: ly.SU, Start: ly.Start}
	for j := 0; j < ly.K; j++ {
		m.Layout.ChunkLens = append(m.Layout.ChunkLens, ly.ChunkLen(j))
	}
	if w.parity {
		m.Layout.ParityLen = ly.ParityLen()
	}
	if _, ok := a.Lookup(w.spec.Path); ok {
		w.fail(nil)
		return nil, &fs.PathError{Op: "commit", Path: w.spec.Path, Err: fs.ErrExist}
	}
	data := encodeManifest(m)
	for _, r := range w.roles {
		b := a.blades[r]
		err := mkdirDurable(b.fs, path.Dir(manifestName(w.id)))
		if err == nil {
			err = writeAtomic(b.fs, manifestName(w.id), data)
		}
		if err != nil {
			err = fmt.Errorf("blade %s: writing the manifest of %s: %w", b.fs.Root(), w.spec.Path, err)
			w.fail(err)
			return nil, err
		}
	}
	for _, r := range w.roles {
		a.blades[r].fs.Remove(intentName(w.id))
		appendSession(a.blades[r].fs, a.sb.SessionID, w.id)
	}
	a.index(m)
	return m, nil
}

// appendSession records a committed file in the session log (best effort:
// the log only narrows the post-crash quick-verify).
func appendSession(b BladeFS, session, id string) {
	f, err := b.OpenFile(path.Join(Dir, "sessions", session+".log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	f.Write([]byte("committed " + id + "\n"))
	f.Close()
}

// fail removes everything the file left on the blades.
func (w *Writer) fail(err error) {
	if err != nil && w.err == nil {
		w.err = err
	}
	if !w.done && w.ch != nil {
		for _, r := range w.roles {
			close(w.ch[r])
		}
		w.wg.Wait()
		w.done = true
		w.putBuffers()
	}
	w.cleanup()
}

func (w *Writer) cleanup() {
	k := w.a.sb.DataBlades
	for r, b := range w.a.blades {
		if b == nil {
			continue
		}
		if w.files != nil && w.files[r] != nil {
			w.files[r].Close()
			w.files[r] = nil
		}
		b.fs.Remove(manifestName(w.id))
		for pos := 0; pos <= k; pos++ {
			b.fs.Remove(chunkName(w.id, pos, k))
		}
		b.fs.Remove(intentName(w.id))
	}
}

// Abort discards the file.
func (w *Writer) Abort() {
	if w.err == nil {
		w.err = errors.New("aborted")
	}
	w.fail(nil)
}

// Err returns the first error the writer met.
func (w *Writer) Err() error { return w.err }

// Mkdir records an (empty) folder so it is kept.
func (a *Array) Mkdir(p string, mtime time.Time) error {
	if err := checkLogicalPath(p); err != nil {
		return err
	}
	if m, ok := a.Lookup(p); ok && m.Dir {
		return nil
	}
	if _, ok := a.Lookup(p); ok {
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrExist}
	}
	id := newID()
	m := &Manifest{Meta: Meta{FileID: id, ArrayUUID: a.sb.ArrayUUID, Generation: 1, Path: p, Dir: true,
		MtimeNs: mtime.UnixNano(), Mode: uint32(fs.ModeDir | 0o755), CommittedAt: time.Now().UTC(), Writer: a.opts.Writer,
		EventsAtWrite: a.sb.Events, Layout: ManifestLayout{Level: a.sb.Level, K: a.sb.DataBlades, SU: a.sb.StripeUnit}},
		Roles: a.sb.Roles()}
	for r := range a.blades {
		if a.writable(r) {
			m.WrittenWith = append(m.WrittenWith, r)
		}
	}
	data := encodeManifest(m)
	for r := range a.blades {
		if !a.writable(r) {
			continue
		}
		b := a.blades[r]
		if err := mkdirDurable(b.fs, path.Dir(manifestName(id))); err != nil {
			return err
		}
		if err := writeAtomic(b.fs, manifestName(id), data); err != nil {
			return fmt.Errorf("blade %s: %w", b.fs.Root(), err)
		}
	}
	a.index(m)
	return nil
}
