package offload

import (
	"context"
	"fmt"
	"sync"

	"github.com/dit-org/dit/internal/catalog"
)

// A store run holds a window of the card's files whole at once, never the
// card's list of them (a card of a million frames, ~1 KB a file held as
// a storeFile with its record and plan):
//
//   - the upload (streamStore; uploadFolder for a first copy in a
//     folder) makes each window's storeFiles from the card's compact list
//     (planList) and the catalog, reads, hashes and sends them, records
//     them (their hashes in the file's row, every final copy in its own)
//     and keeps of each only a byte a destination (storeMarks: final
//     there, sent by this run, final with no copy row);
//   - the read-back (verifyWindows) reads them back from the catalog a
//     window at a time (catalog.FilesNamed, which gives the file's row and
//     its copies: those this run made final, and, where it made none yet,
//     the earlier runs', as the plan's record of them), verifies each on
//     every destination against the remote's listing of its folder, reads
//     the card again (--verify source+dest) and records its final state.
//
// The card's top-level ASC MHL chain file of a run that seals in the
// cloud is held whole (c.storeChain): its copies are final only with the
// history, after the run.
//
// What stays whole per card: the planList (~20-40 bytes a file) and the
// marks. What a destination holds is listed a folder at a time as the
// windows come to it (storelists.go), and a first copy's files to send
// are written to a file as they are decided (dest.Names), sent in one
// transfer.

// storeWindow is how many of the card's files a store run holds whole at
// once (a variable: tests make it small).
var storeWindow = 512

// storeSample, when set (tests), is called after each window of a store
// run, upload and read-back alike.
var storeSample func()

// A file's store marks on one destination (cardStores.marks).
const (
	smDone  = 1 << 0 // final there (storeFile.done)
	smSent  = 1 << 1 // this run uploaded its object there (storeFile.sent)
	smNoRow = 1 << 2 // final with no copy row: failed before any upload (failStoreFile)
	// smLater, on the first destination's: every destination held an
	// object of the file before the upload, streamed after the others
	// (streamStore).
	smLater = 1 << 3
)

// newStoreFile is a storeFile for nd destinations, with rec.
func newStoreFile(fp *filePlan, rec *catalog.File, nd int) *storeFile {
	return &storeFile{fp: fp, rec: rec, want: rec.Sums, res: make([]destResult, nd), how: make([]string, nd), done: make([]bool, nd), sent: make([]bool, nd)}
}

// startMarks makes the run's marks: none set.
func (c *cardRun) startMarks() {
	c.marks = c.list.newMarks(c.list.len() * len(c.dests))
	c.down = make([]string, len(c.dests))
}

// storeDown fails, with why, every copy on destination di not final yet
// (its listing failed): those of the windows held now, and those of the
// windows to come as each is made (applyDown).
func (c *cardRun) storeDown(di int, why string, files []*storeFile) {
	c.mu.Lock()
	c.destErr[di] = fmt.Errorf("%s", why)
	c.down[di] = why
	c.mu.Unlock()
	c.applyDown(files)
}

// applyDown fails the files' copies not final on a destination that is
// down (storeDown).
func (c *cardRun) applyDown(files []*storeFile) {
	c.mu.Lock()
	down := append([]string(nil), c.down...)
	c.mu.Unlock()
	for di, why := range down {
		if why == "" {
			continue
		}
		for _, f := range files {
			if !f.done[di] {
				f.res[di].rel = relJoin(c.out, f.fp.ent.Rel)
				c.failedStore(di, f, why)
			}
		}
	}
}

// keepMarks keeps what the read-back needs of file i beside the catalog.
func (c *cardRun) keepMarks(i int, f *storeFile) {
	nd := len(c.dests)
	for di := range c.dests {
		var m uint8
		if f.done[di] {
			m |= smDone
			if f.noRow {
				m |= smNoRow
			}
		}
		if f.sent[di] {
			m |= smSent
		}
		c.marks.set(i*nd+di, m)
	}
}

// recordPending records every file of the card pending, as the run
// starts (a run interrupted leaves each one recorded), a window at a
// time: the catalog's queue of rows to write holds a window, not the
// card (its writer takes all that is queued in one batch when flushed).
func (c *cardRun) recordPending() {
	j := c.j
	for i := range c.list.len() {
		e := c.list.entry(i)
		j.cat.PutFile(&catalog.File{CardID: c.rec.ID, Rel: e.Rel, Size: e.Size, Mtime: e.Mtime, State: StatePending, CopyStarted: j.opts.Now()})
		if (i+1)%storeWindow == 0 {
			j.cat.Flush() // an error is the writer's: the next read says it
		}
	}
}

// storeRecords reads the records of files idx of the card from the
// catalog, by path (nil and the error: they cannot be read).
func (c *cardRun) storeRecords(idx []int) (map[string]*catalog.File, error) {
	rels := make([]string, len(idx))
	for k, i := range idx {
		rels[k] = c.list.rel(i)
	}
	got, err := c.j.cat.FilesNamed(c.rec.ID, rels)
	if err != nil {
		return nil, err
	}
	by := make(map[string]*catalog.File, len(got))
	for _, f := range got {
		by[f.Rel] = f
	}
	return by, nil
}

// storedFile is file i made again from its record cf (its row and its
// copies: the earlier runs' where this run made none final yet) and its
// marks; nil cf: none recorded (a catalog that lost it), pending.
func (c *cardRun) storedFile(i int, cf *catalog.File) *storeFile {
	ent := c.list.entry(i)
	if cf == nil {
		cf = &catalog.File{CardID: c.rec.ID, Rel: ent.Rel, Size: ent.Size, Mtime: ent.Mtime, State: StatePending, CopyStarted: c.j.opts.Now()}
	}
	rec := *cf
	rec.Copies = nil
	f := newStoreFile(&filePlan{ent: ent, prev: cf}, &rec, len(c.dests))
	nd := len(c.dests)
	for di, d := range c.dests {
		m := c.marks.get(i*nd + di)
		f.sent[di] = m&smSent != 0
		f.res[di].rel = relJoin(c.out, ent.Rel)
		if m&smDone == 0 {
			continue
		}
		f.done[di] = true
		switch cp := f.fp.prevCopy(d.rec.ID); {
		case m&smNoRow != 0:
			f.noRow = true
			f.res[di].state, f.res[di].err = StateFailed, rec.Error
		case cp != nil:
			f.res[di].state, f.res[di].err, f.res[di].written = cp.State, cp.Error, cp.Written
			f.how[di] = cp.VerifyAlgos
		}
	}
	return f
}

// storeWindows calls fn with the indexes of the card's files in windows
// of storeWindow, in the card's order, those for which pick says true
// (nil: every file).
func (c *cardRun) storeWindows(ctx context.Context, pick func(i int) bool, fn func(idx []int)) {
	idx := make([]int, 0, storeWindow)
	for i := range c.list.len() {
		if ctx.Err() != nil {
			return
		}
		if pick != nil && !pick(i) {
			continue
		}
		if idx = append(idx, i); len(idx) == storeWindow {
			fn(idx)
			idx = idx[:0]
		}
	}
	if len(idx) > 0 && ctx.Err() == nil {
		fn(idx)
	}
}

// verifyWindows verifies every file of the card not final on each
// destination against the listing of its folder there (storeHeld), a
// window at a time read back from the catalog, reads the card again (--verify source+dest),
// and records each file's final state.
func (c *cardRun) verifyWindows(ctx context.Context) {
	j := c.j
	lists := c.storeListers(false)
	c.storeWindows(ctx, nil, func(idx []int) {
		files := c.restoreWindow(idx)
		var wg sync.WaitGroup
		for di := range c.dests {
			wg.Go(func() {
				held, ok := c.storeHeld(ctx, lists[di], di, files, " after the upload")
				for _, f := range files {
					if !ok || f.done[di] || f == c.storeChain || ctx.Err() != nil {
						continue
					}
					c.verifyStore(ctx, di, f, held)
				}
			})
		}
		wg.Wait()
		if j.opts.Verify == VerifySourceDest && c.from == nil && ctx.Err() == nil {
			// The card streamed from its one read: read it again (a
			// cascade's card was re-read in its first run).
			c.rereadCard(ctx, files)
		}
		for _, f := range files {
			if ctx.Err() != nil {
				break
			}
			c.finalizeStore(f)
		}
		if storeSample != nil {
			storeSample()
		}
	})
}

// restoreWindow makes the files idx again from the catalog for their
// read-back (the chain file is the one held). A window whose records
// cannot be read fails on every destination it is not final on.
func (c *cardRun) restoreWindow(idx []int) []*storeFile {
	recs, err := c.storeRecords(idx)
	files := make([]*storeFile, len(idx))
	for k, i := range idx {
		if f := c.storeChain; f != nil && f.fp.ent.Rel == c.list.rel(i) {
			files[k] = f
			continue
		}
		f := c.storedFile(i, recs[c.list.rel(i)])
		files[k] = f
		if err != nil {
			why := fmt.Sprintf("cannot read the catalog's record of %s: %v", f.fp.ent.Rel, err)
			f.rec.State, f.rec.Error = StateFailed, why
			for di := range c.dests {
				if !f.done[di] {
					c.failedStore(di, f, why)
				} else if f.res[di].state == "" {
					f.res[di].state, f.res[di].err = StateFailed, why // its row unread
				}
			}
		}
	}
	c.applyDown(files)
	return files
}
