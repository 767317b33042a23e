package offload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/resume"
)

// wstate is one file being written (or compared) on one destination.
type wstate struct {
	t        *fileTask
	dp       *destPlan
	tmp      fsys.WFile
	existing fsys.File
	differs  bool
	cmpBuf   []byte
	err      error
	n        int64
	keep     bool // not committed, but checkpointed: the temp stays for a resume
	ckd      bool // a checkpoint of this temp is recorded
}

// checkpoint makes the temp durable up to offset and records it, with the
// digest of that prefix as read from the card (mid-file resume).
func (c *cardRun) checkpoint(di int, st *wstate, offset int64, digest string, ck *resume.Checkpoint) {
	if st.err != nil || st.tmp == nil || st.existing != nil || st.dp.mode != modeWrite || st.n != offset {
		return
	}
	if !fsys.CanAppend(c.j.opts.FS, st.tmp.Name()) {
		// A dit array commits a file whole (its Sync is the commit): no
		// checkpoint there; an interrupted copy starts over.
		return
	}
	if err := st.tmp.Sync(); err != nil {
		st.err = err
		return
	}
	if err := c.j.cat.PutPartial(&catalog.Partial{CardID: c.rec.ID, Rel: st.t.plan.ent.Rel, DestID: c.dests[di].rec.ID,
		Temp: st.tmp.Name(), Size: st.t.size, Mtime: st.t.mtime, Offset: offset, Digest: digest, State: ck.Encoded()}); err != nil {
		return // no checkpoint: a resume starts this file over
	}
	st.ckd = true
	crashpoint.Hit("copy: checkpoint recorded")
}

// writer is the goroutine of one destination of one card: it receives the
// blocks of each file in order and makes each copy durable under its real
// name, or leaves nothing under that name (destWriter).
func (c *cardRun) writer(di int, in <-chan wmsg) {
	w := &destWriter{c: c, di: di, batches: make(chan syncBatch, 4), synced: make(chan struct{}),
		sem: make(chan struct{}, commitParallel), cur: syncBatch{commits: &sync.WaitGroup{}}}
	go w.syncer()
	defer w.close()
	for {
		var m wmsg
		var ok bool
		select {
		case m, ok = <-in:
		default:
			// Nothing waiting (the card is slower, or stalled in the
			// middle of a file): the copies done so far are not held
			// back for the batch to fill.
			w.flush()
			m, ok = <-in
		}
		if !ok {
			return
		}
		w.handle(m)
	}
}

// destWriter is the state of one destination's writer (cardRun.writer):
// the file being written, and the batch of copies renamed into one folder
// whose rename is not yet durable.
//
// Copies renamed into one folder whose rename is not yet durable: the
// folder is fsynced once for the batch (not once a file), and only then
// are they done, so a file is read back (verified) only once its bytes
// and its name are durable.
//
// The copies of 8 MiB and more (and all copies where there is no
// syncfs) are committed (fsync, rename) up to commitParallel at
// once, and a batch's folder fsync runs on the syncer goroutine, while
// this one goes on with the next files: a journaling filesystem makes
// the fsyncs that arrive together durable in one journal commit, where
// one after the other each waits for its own (frames on ext4: several
// times faster).
//
// Small copies (frames) are not fsynced one by one where the
// filesystem has syncfs(2): a batch's copies, written and their times
// set, are made durable by one syncfs, then renamed, then the folder
// fsynced: two journal commits and two cache flushes for the batch
// instead of one each a copy. If a syncfs reports an error (a
// write-back on the filesystem failed: perhaps not ours), the batch's
// copies are fsynced one by one, each reporting its own error, and so
// is every copy after it.
type destWriter struct {
	c      *cardRun
	di     int
	st     *wstate // the file being written, nil between files
	cmpBuf []byte  // kept from file to file
	// fss syncs the destination's filesystem: opened before the first
	// small copy is written, nil where there is none.
	fss       fsys.FSSyncer
	fssOpened bool
	fssFailed atomic.Bool
	batches   chan syncBatch // to the syncer, closed at the end
	synced    chan struct{}  // closed when the syncer returns
	sem       chan struct{}  // commitParallel commits at once
	cur       syncBatch      // the batch being filled
}

// handle is the writer's step for one message.
func (w *destWriter) handle(m wmsg) {
	c, di := w.c, w.di
	switch m.kind {
	case wBegin:
		w.st = &wstate{t: m.task, dp: &m.task.plan.dests[di], cmpBuf: w.cmpBuf}
		if !w.fssOpened && (m.task.size < batchSyncMax && w.st.dp.mode == modeWrite || w.st.dp.mode == modeCompare) {
			// Before the first small copy is written, so that its
			// syncfs reports any write-back error of theirs (and
			// before a file found there is compared: its syncfs
			// makes it durable).
			w.fssOpened = true
			w.fss = fsys.OpenFSSyncer(c.j.opts.FS, c.dests[di].root)
		}
		c.begin(di, w.st)
	case wData:
		if w.st.err == nil {
			c.write(di, w.st, m.buf.b[m.from:m.n])
		}
		m.buf.release()
	case wCheckpoint:
		c.checkpoint(di, w.st, m.offset, m.digest, m.ck)
	case wEnd:
		w.end(m)
	}
}

// end ends the file being written: a copy that failed or was not
// written is done at once, one renamed (or found there) joins the batch.
func (w *destWriter) end(m wmsg) {
	c, di := w.c, w.di
	w.st.keep = m.keep
	batchFS := w.fss
	if w.fssFailed.Load() {
		batchFS = nil
	}
	res, p := c.endCopy(di, w.st, m.commit, batchFS)
	w.cmpBuf = w.st.cmpBuf
	w.st = nil
	if p == nil && res.state != stateRenamed && res.state != statePresent {
		m.task.results[di] = res
		m.task.wg.Done()
		return
	}
	w.add(m.task, res, p)
}

// add puts t's copy (res; p: its commit still to do) into the batch of
// its folder, flushing the batch before and after by its rules.
func (w *destWriter) add(t *fileTask, res destResult, p *pending) {
	di := w.di
	dir := filepath.Dir(filepath.Join(w.c.dests[di].root, filepath.FromSlash(res.rel)))
	if w.cur.flushBefore(dir) {
		w.flush()
	}
	switch {
	case p != nil && p.batch:
		// Committed by the syncer after the batch's syncfs.
		w.cur.deferred = append(w.cur.deferred, deferredCommit{t, p})
	case p != nil:
		// The batch's folder fsync waits for it; the copy's
		// result is the commit's own until then.
		wg, sem := w.cur.commits, w.sem
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.results[di] = p.commit(false)
			<-sem
		}()
	default:
		t.results[di] = res
	}
	w.cur.dir, w.cur.tasks = dir, append(w.cur.tasks, t)
	w.cur.bytes += t.size
	if w.cur.flushAfter() {
		w.flush() // (and when nothing is waiting: at the writer loop's top)
	}
}

// close hands on the last batch and waits for the syncer.
func (w *destWriter) close() {
	w.flush()
	close(w.batches)
	<-w.synced
	if w.fss != nil {
		w.fss.Close()
	}
}

func (c *cardRun) begin(di int, st *wstate) {
	fsy := c.j.opts.FS
	dp := st.dp
	switch dp.mode {
	case modeCompare:
		fi, err := fsy.Lstat(dp.target())
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			dp.mode = modeWrite // gone since the plan: write it
			break
		}
		if err != nil {
			st.err = err
			return
		}
		if !fi.Mode().IsRegular() {
			st.err = fmt.Errorf("%s exists and is not a regular file: move it away", dp.target())
			return
		}
		if fi.Size() != st.t.size {
			st.differs = true
		} else {
			f, err := fsy.Open(dp.target())
			if err != nil {
				st.err = err
				return
			}
			st.existing = f
		}
		if !dp.replaceOwn && c.j.opts.OnConflict != ConflictRename {
			return // compare only
		}
	}
	if p := dp.partial; p != nil && dp.mode == modeWrite {
		if at := st.t.fromOf(di); at > 0 {
			// Going on from a checkpoint: the temp, cut to it.
			tmp, err := fsys.OpenAppend(fsy, p.Temp, at)
			if err != nil {
				st.err = err
				return
			}
			st.tmp, st.n, st.ckd = tmp, at, true
			c.destWritten[di].Add(0)
			return
		}
		fsy.Remove(p.Temp) // not resumable after all: start over
	}
	tmp, err := fsy.CreateTemp(filepath.Dir(dp.target()), tempPattern(filepath.Base(dp.target())))
	if err != nil {
		st.err = err
		return
	}
	st.tmp = tmp
	fsys.Preallocate(tmp, st.t.size)
}

func (c *cardRun) write(di int, st *wstate, b []byte) {
	if st.existing != nil && !st.differs {
		if cap(st.cmpBuf) < len(b) {
			st.cmpBuf = make([]byte, len(b))
		}
		cb := st.cmpBuf[:len(b)]
		// Comparing with a file already there reads the destination:
		// paced like a read-back.
		if lim := c.j.opts.Limiter; lim != nil {
			if err := lim.WaitVerify(c.ctx, c.rec.Seq, c.dests[di].rec.Seq, len(b)); err != nil {
				st.err = err
				return
			}
		}
		if _, err := io.ReadFull(st.existing, cb); err != nil || !bytes.Equal(cb, b) {
			st.differs = true
		}
	}
	if st.tmp != nil {
		if lim := c.j.opts.Limiter; lim != nil {
			if err := lim.WaitWrite(c.ctx, c.rec.Seq, c.dests[di].rec.Seq, len(b)); err != nil {
				st.err = err
				return
			}
		}
		n, err := st.tmp.Write(b)
		// What reached the destination, also of a write that failed.
		c.destWritten[di].Add(int64(n))
		if err == nil && n < len(b) {
			err = io.ErrShortWrite
		}
		if err != nil {
			st.err = err
			return
		}
	}
	st.n += int64(len(b))
}

// stateRenamed marks a copy renamed into place, its folder not yet synced.
const stateRenamed = "renamed"

// statePresent marks a file found at the destination with the card's
// bytes, fsynced, its folder not yet synced (then StatePresent).
const statePresent = "present-unsynced"

// commitParallel is how many copies of one destination are made durable
// (fsync, rename) at once (a variable for BenchmarkFramesSlowFlush).
var commitParallel = 8

// endCopy ends a file on destination di. It returns the copy's result, or
// (for a new copy on a plain filesystem) a pending commit, which makes the
// copy durable and renames it into place, and returns its result then:
// the writer runs it while it goes on with the next file. fss, unless
// nil, makes small copies on its filesystem durable by a syncfs of their
// batch. A result in state stateRenamed or statePresent is durable once
// its folder is fsynced.
func (c *cardRun) endCopy(di int, st *wstate, commit bool, fss fsys.FSSyncer) (destResult, *pending) {
	fsy := c.j.opts.FS
	dp := st.dp
	if st.existing != nil {
		// Anything left in the existing file means it is longer: different.
		if !st.differs {
			var one [1]byte
			if n, _ := st.existing.Read(one[:]); n > 0 {
				st.differs = true
			}
		}
		st.existing.Close()
	}
	e := &copyEnd{c: c, dp: dp, tmp: st.tmp, mtime: st.t.mtime}
	if !commit {
		if e.tmp != nil {
			e.tmp.Close()
			if !st.keep || !st.ckd {
				fsy.Remove(e.tmp.Name())
			}
		}
		return destResult{rel: dp.rel, state: StateFailed}, nil
	}
	if st.err != nil {
		return e.fail(st.err), nil
	}
	if dp.mode == modeCompare {
		if !st.differs {
			return e.present(fss)
		}
		if res, refused := c.conflict(dp); refused {
			return res, nil
		}
	}
	if dp.mode == modeWrite && fsys.SyncsAlone(fsy, e.tmp.Name()) {
		if fss != nil && st.t.size < batchSyncMax && fss.Covers(filepath.Dir(e.tmp.Name())) {
			// Its times now, so the batch's syncfs makes them durable
			// with its bytes.
			if err := fsy.Chtimes(e.tmp.Name(), e.mtime, e.mtime); err != nil {
				return e.fail(err), nil
			}
			e.timesSet = true
			return destResult{rel: dp.rel}, &pending{commit: e.finish, batch: true}
		}
		return destResult{rel: dp.rel}, &pending{commit: e.finish}
	}
	return e.finish(false), nil
}

// copyEnd is the end of one copy (endCopy), now or in its pending commit.
type copyEnd struct {
	c  *cardRun
	dp *destPlan
	// tmp is the copy's temp until it is closed and removed, or renamed.
	tmp      fsys.WFile
	mtime    time.Time
	timesSet bool // the temp has the card file's times already
}

// fail removes the temp, if any, and is the copy's failure.
func (e *copyEnd) fail(err error) destResult {
	if e.tmp != nil {
		e.tmp.Close()
		e.c.j.opts.FS.Remove(e.tmp.Name())
	}
	return destResult{rel: e.dp.rel, state: StateFailed, err: e.c.writeError(e.dp.target(), err)}
}

// present ends a file found at the target with the card's bytes: the
// temp goes, and the file counts once durable.
func (e *copyEnd) present(fss fsys.FSSyncer) (destResult, *pending) {
	fsy, dp := e.c.j.opts.FS, e.dp
	if e.tmp != nil {
		e.tmp.Close()
		fsy.Remove(e.tmp.Name())
		e.tmp = nil
	}
	// Equal bytes, but perhaps only in the cache (copied there
	// moments ago by another tool): made durable before they
	// count, the file by its own fsync or its batch's syncfs,
	// then its name by its folder's fsync.
	switch {
	case fss != nil && fss.Covers(filepath.Dir(dp.target())):
		return destResult{rel: dp.rel}, &pending{commit: e.durable, batch: true}
	case fsys.SyncsAlone(fsy, dp.target()):
		return destResult{rel: dp.rel}, &pending{commit: e.durable}
	}
	return e.durable(false), nil
}

// durable makes a file found at the target durable (its fsync, unless
// synced: its batch's syncfs did): present, or failed.
func (e *copyEnd) durable(synced bool) destResult {
	dp := e.dp
	written := dp.prev != nil && dp.prev.Written
	if !synced {
		if err := e.c.j.opts.FS.SyncFile(dp.target()); err != nil {
			return destResult{rel: dp.rel, state: StateFailed, written: written,
				err: fmt.Sprintf("%s is already there with the card's bytes but cannot be made durable (fsync: %v); left as it was: check the destination drive", dp.target(), unwrapPath(err))}
		}
	}
	return destResult{rel: dp.rel, state: statePresent, written: written}
}

// conflict is the result of a different file found at the target, when
// it is not replaced (refused); our own copy of an interrupted run, or
// --on-conflict rename, is written.
func (c *cardRun) conflict(dp *destPlan) (res destResult, refused bool) {
	res = destResult{rel: dp.rel}
	switch {
	case dp.replaceOwn:
		// Our own copy from an interrupted run that differs: replace it.
	case c.j.opts.OnConflict == ConflictSkip:
		res.state = StateSkipped
		res.err = fmt.Sprintf("a different file already exists at %s; left alone (--on-conflict skip)", dp.target())
		return res, true
	case c.j.opts.OnConflict == ConflictRename:
	case dp.rechecked:
		res.state = StateFailed
		res.err = fmt.Sprintf("the copy at %s, verified by an earlier run, changed since: its bytes differ from the card's now; dit never overwrites: move it away and resume (or --on-conflict rename)", dp.target())
		return res, true
	default:
		res.state = StateFailed
		res.err = fmt.Sprintf("a different file already exists at %s; dit never overwrites: move it away, or use --on-conflict skip|rename", dp.target())
		return res, true
	}
	return res, false
}

// finish makes the copy durable (its fsync, unless synced: a syncfs of
// its filesystem after its times were set already did) and renames it
// into place.
func (e *copyEnd) finish(synced bool) destResult {
	fsy, dp := e.c.j.opts.FS, e.dp
	if !e.timesSet {
		if err := fsy.Chtimes(e.tmp.Name(), e.mtime, e.mtime); err != nil {
			return e.fail(err)
		}
	}
	if !synced {
		if err := e.tmp.Sync(); err != nil {
			return e.fail(err)
		}
	}
	if err := e.tmp.Close(); err != nil {
		name := e.tmp.Name()
		e.tmp = nil // not closed twice
		fsy.Remove(name)
		return e.fail(err)
	}
	target, rel := dp.target(), dp.rel
	if dp.mode == modeCompare && dp.replaceOwn {
		if err := fsy.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return e.fail(err)
		}
	} else if dp.mode == modeCompare {
		target, rel = freeName(fsy, dp.target(), dp.rel)
	}
	err := fsys.RenameNoReplace(fsy, e.tmp.Name(), target)
	for i := 0; err != nil && errors.Is(err, fs.ErrExist) && e.c.j.opts.OnConflict == ConflictRename && i < 100; i++ {
		target, rel = freeName(fsy, dp.target(), dp.rel)
		err = fsys.RenameNoReplace(fsy, e.tmp.Name(), target)
	}
	if err != nil {
		fsy.Remove(e.tmp.Name())
		e.tmp = nil
		if errors.Is(err, fs.ErrExist) {
			return destResult{rel: dp.rel, state: StateFailed, err: fmt.Sprintf("a file appeared at %s during the copy; dit never overwrites: move it away and resume", target)}
		}
		return e.fail(err)
	}
	return destResult{rel: rel, state: stateRenamed, written: true}
}

// pending is a new copy on a plain filesystem, written and not yet
// durable. commit makes it durable and renames it into place (synced: a
// syncfs of its filesystem made its bytes and times durable already) and
// returns its result; batch: its times are set and its batch's syncfs is
// to make it durable.
type pending struct {
	commit func(synced bool) destResult
	batch  bool
}

// batchSyncMax: copies smaller than this (frames, sidecars) are made
// durable by one syncfs for their batch where the filesystem has it,
// bigger ones by their own fsyncs, several at once (a variable for the
// tests and BenchmarkFramesSlowFlush).
var batchSyncMax int64 = dirSyncBytes

// dirSyncBatch is the most copies one folder fsync makes durable at once,
// and dirSyncBytes the most bytes: a batch of small files (frames) shares
// one fsync, while the read-back of bigger files is not held back behind
// more than this many bytes waiting for their folder's fsync.
const (
	dirSyncBatch = 32
	dirSyncBytes = 8 << 20
)

// freeName returns "name (2).ext", "name (3).ext", ... whichever is free.
func freeName(fsy fsys.FS, target, rel string) (string, string) {
	dir, base := filepath.Split(target)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 2; ; i++ {
		name := fmt.Sprintf("%s (%d)%s", stem, i, ext)
		if _, err := fsy.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(dir, name), path.Join(path.Dir(rel), name)
		}
	}
}

func (c *cardRun) writeError(target string, err error) string {
	switch {
	case fsys.IsNoSpace(err):
		return fmt.Sprintf("destination full while writing %s: %v (nothing was left under that name)", target, err)
	case errors.Is(err, io.ErrShortWrite):
		return fmt.Sprintf("short write to %s: the destination accepted fewer bytes than sent (nothing was left under that name)", target)
	}
	return fmt.Sprintf("cannot write %s: %v", target, err)
}

// mkdirs creates a card's folders on a destination and then makes their
// names durable: every folder from the destination's root down to each
// of the card's folders' parents is fsynced once, created now or not (a
// folder made moments ago by another tool, or by a run killed before its
// fsyncs or whose fsync failed, is no more durable than a new one), so a
// copy's path survives a power cut, not only its name in its own folder
// (fsynced after its rename).
type mkdirs struct {
	fsy     fsys.FS
	root    string
	parents map[string]bool
	order   []string
}

// mkdirAll is MkdirAll of dir (at or below root), noting every folder
// from root down to dir's parent.
func (m *mkdirs) mkdirAll(dir string) error {
	dir = filepath.Clean(dir)
	if err := m.fsy.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := filepath.Clean(m.root)
	for d := dir; d != root && d != filepath.Dir(d); d = filepath.Dir(d) {
		p := filepath.Dir(d)
		if m.parents[p] {
			break // and everything above it
		}
		if m.parents == nil {
			m.parents = map[string]bool{}
		}
		m.parents[p] = true
		m.order = append(m.order, p)
	}
	return nil
}

// sync fsyncs the folders noted (before any copy in them is made, so
// before any can count as verified).
func (m *mkdirs) sync() error {
	for _, d := range m.order {
		err := m.fsy.SyncDir(d)
		if errors.Is(err, fs.ErrPermission) {
			// A folder that may be written to but not opened (a drop
			// box, some SMB shares): nothing to fsync it with.
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot make the folders in %s durable (fsync: %v): check the destination drive", d, unwrapPath(err))
		}
	}
	return nil
}

// unwrapPath drops an error's path (a message that names it already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
