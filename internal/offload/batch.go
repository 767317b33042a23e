package offload

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// deferredCommit is a small copy whose commit (rename) waits for its
// batch's syncfs.
type deferredCommit struct {
	task *fileTask
	p    *pending
}

// syncBatch is copies renamed into one folder (dir) whose folder fsync
// is done once for them all, on the syncer goroutine (destWriter).
type syncBatch struct {
	dir      string
	tasks    []*fileTask
	bytes    int64
	commits  *sync.WaitGroup  // the batch's commits under way
	deferred []deferredCommit // committed after the batch's syncfs
}

// The flush rules of a batch (and the writer's third: nothing waiting
// from the card, the batch goes as it is).

// flushBefore: a copy renamed into dir does not join the batch but
// starts the next one: another folder, or the batch is full
// (dirSyncBatch copies).
func (b *syncBatch) flushBefore(dir string) bool {
	return dir != b.dir || len(b.tasks) >= dirSyncBatch
}

// flushAfter: the batch holds dirSyncBytes or more.
func (b *syncBatch) flushAfter() bool {
	return b.bytes >= dirSyncBytes
}

// flush hands the current batch, if it holds a copy, to the syncer.
func (w *destWriter) flush() {
	if len(w.cur.tasks) > 0 {
		w.batches <- w.cur
		w.cur = syncBatch{commits: &sync.WaitGroup{}}
	}
}

// syncer is the goroutine that makes each batch durable: its commits,
// its syncfs and deferred commits, its folder's fsync; then each copy of
// it is done.
func (w *destWriter) syncer() {
	defer close(w.synced)
	for b := range w.batches {
		group := w.gather(b)
		w.commitDeferred(group)
		w.syncDirs(group)
	}
}

// gather is b and the batches that queued up while the last syncfs ran:
// they share the next one (and a folder's fsync), so a drive slow to
// flush gets fewer flushes, without a copy being held back.
func (w *destWriter) gather(b syncBatch) []syncBatch {
	group := []syncBatch{b}
	for {
		select {
		case b2, ok := <-w.batches:
			if !ok {
				return group
			}
			group = append(group, b2)
		default:
			return group
		}
	}
}

// commitDeferred waits for the group's commits, then makes its small
// copies durable by one syncfs and commits them; after a syncfs that
// failed (this one or an earlier), each is fsynced on its own.
func (w *destWriter) commitDeferred(group []syncBatch) {
	var deferred []deferredCommit
	for _, b := range group {
		b.commits.Wait()
		deferred = append(deferred, b.deferred...)
	}
	if len(deferred) == 0 {
		return
	}
	var err error
	if w.fssFailed.Load() {
		err = errors.New("an earlier syncfs failed")
	} else if err = w.fss.SyncFS(); err != nil {
		w.fssFailed.Store(true)
	}
	for _, d := range deferred {
		d.task.results[w.di] = d.p.commit(err == nil)
	}
}

// syncDirs fsyncs each folder of the group once and settles its copies.
func (w *destWriter) syncDirs(group []syncBatch) {
	dirErr := map[string]error{}
	for _, b := range group {
		err, done := dirErr[b.dir]
		if !done {
			err = w.c.j.opts.FS.SyncDir(b.dir)
			dirErr[b.dir] = err
		}
		for _, t := range b.tasks {
			w.dirSynced(t, err)
			t.wg.Done()
		}
	}
}

// dirSynced settles t's copy, renamed or found there, once its folder's
// fsync returned err: copied (or present), or failed.
func (w *destWriter) dirSynced(t *fileTask, err error) {
	c, di := w.c, w.di
	r := &t.results[di]
	if r.state != stateRenamed && r.state != statePresent {
		return
	}
	path := filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel))
	switch {
	case err != nil && r.state == statePresent:
		r.state, r.err = StateFailed, fmt.Sprintf("%s is already there with the card's bytes but its folder cannot be made durable (fsync: %v); left as it was: check the destination drive", path, unwrapPath(err))
	case err != nil:
		r.state, r.err = StateFailed, c.writeError(path, err)
	case r.state == stateRenamed:
		r.state = StateCopied
	default:
		r.state = StatePresent
	}
}
