package offload

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/offload/dest"
)

// A card whose only destinations are stores (remote ones) is streamed:
// each file is read once from the card, and every block read is hashed
// and sent to each destination as it is read (Store.PutStream, one
// object per file, up to Store.Streams files at once). The objects' server-side MD5 is then
// compared with the MD5 of that one read. Where an object of a file's name
// is there already (an interrupted run left it), the file is read first
// and hashed; the object is verified or failed against that read, never
// written over. A file whose upload to a destination fails is read again
// and sent again there, a number of times with growing waits
// (storeretry.go); the bytes read and sent again are counted apart. The card's top-level ASC MHL chain file is read and hashed
// but not sent when the card is sealed on its stores: the new history's
// chain takes its name (storeseal.go).
//
// A second run from a first copy on a dit array streams too (a store's
// Put cannot read an array): each file the card gave is read through the array and
// checked against the card's hashes of the first run before anything is
// sent, so a first copy that differs from the card never reaches the
// remote (its first copy is withdrawn, as the local second run does); the
// read that is sent must hash as that first one.

// errStreamDone ends a destination's pipe once its upload has returned.
var errStreamDone = errors.New("upload ended")

// streamStore reads and sends every file of the card, a window at a time
// (storewindow.go), each file's folder listed there as the run comes to
// it (storelists.go). The files some destination has no object of go
// first, in the card's order; those every destination holds already (an
// interrupted run's; a destination down counts as holding it) are marked
// (smLater) and read after, in the card's order, and checked against the
// objects, nothing sent. A resume then sends within a moment of its
// start, not after reading again all that the killed run had sent (each
// file is still read whole, in one pass).
func (c *cardRun) streamStore(ctx context.Context) {
	j := c.j
	nd := len(c.dests)
	c.recordPending()
	workers := 0
	for di := range c.dests {
		if workers == 0 || c.stores[di].Streams() < workers {
			workers = c.stores[di].Streams()
		}
	}
	sem := make(chan struct{}, workers)
	// What is there already: never written over (dit replaces nothing on
	// a remote); a destination whose folder cannot be listed is not
	// written any more.
	lists := c.storeListers(false)
	win := make([]map[string]dest.Object, nd) // the window's objects there
	fresh := func() {
		for di := range win {
			win[di] = map[string]dest.Object{}
		}
	}
	fresh()
	objs := make([]dest.Object, nd)
	there := make([]bool, nd)
	c.storeWindows(ctx, func(i int) bool {
		rel := c.list.rel(i)
		all := true
		for di := range c.dests {
			objs[di], there[di] = dest.Object{}, c.isDown(di)
			if there[di] {
				continue
			}
			o, ok, err := lists[di].Lookup(ctx, rel)
			if err != nil {
				if ctx.Err() != nil {
					return false
				}
				c.storeDown(di, fmt.Sprintf("cannot list %s: %v", storePath(c.dests[di], lists[di].Folder(rel)), err), nil)
				there[di] = true // down: nothing sent there
				continue
			}
			objs[di], there[di] = o, ok
			all = all && ok
		}
		if all {
			c.marks.or(i*nd, smLater) // every destination holds it: after
			return false
		}
		for di, ok := range there {
			if ok {
				win[di][rel] = objs[di] // a destination down: none sent either
			}
		}
		return true
	}, func(idx []int) {
		c.streamFiles(ctx, idx, win, sem)
		fresh()
	})
	c.storeWindows(ctx, func(i int) bool { return c.marks.get(i*nd)&smLater != 0 }, func(idx []int) {
		for _, i := range idx {
			for di := range win {
				win[di][c.list.rel(i)] = dest.Object{} // held there (or down)
			}
		}
		c.streamFiles(ctx, idx, win, sem)
		fresh()
	})
	if ctx.Err() != nil {
		return
	}
	c.mu.Lock()
	c.verifyAt = j.opts.Now()
	c.mu.Unlock()
}

// streamFiles streams the window of files idx, up to cap(sem) at once
// (before: each destination's objects there before, by path), and keeps
// their marks and hashes.
func (c *cardRun) streamFiles(ctx context.Context, idx []int, before []map[string]dest.Object, sem chan struct{}) {
	files := c.streamWindow(idx)
	var wg sync.WaitGroup
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c.streamFile(ctx, f, before)
		})
	}
	wg.Wait()
	for k, f := range files {
		c.keepMarks(idx[k], f)
		if f != c.storeChain && ctx.Err() == nil {
			c.j.cat.PutFile(f.rec) // its hashes, read back with it
		}
	}
	if storeSample != nil {
		storeSample()
	}
}

// streamWindow makes the files idx of a streamed run from their records
// (recordPending's, and the earlier runs' copies: the plan's record of
// them), every copy to be made at the file's own path.
func (c *cardRun) streamWindow(idx []int) []*storeFile {
	recs, _ := c.storeRecords(idx) // unread: made as new
	files := make([]*storeFile, len(idx))
	for k, i := range idx {
		f := c.storedFile(i, recs[c.list.rel(i)])
		files[k] = f
	}
	c.applyDown(files)
	return files
}

// streamFile reads f from the card once and sends it to every destination
// that has no object of its name. Where one is there already (an
// interrupted run's, or anyone's), or the file must first be checked
// against the card (a first copy on an array), it is read and hashed
// first: an object there is verified or failed against that read, never
// written over; the read that is then sent must hash as the first. An
// upload that fails is tried again (sendStream, storeretry.go).
func (c *cardRun) streamFile(ctx context.Context, f *storeFile, before []map[string]dest.Object) {
	rel, size := f.fp.ent.Rel, f.fp.ent.Size
	c.current.Store(rel)
	if rel == chainRel && c.sealsInStore() {
		c.streamChain(ctx, f) // goes up as the new history's chain (storeseal.go)
		return
	}
	var send []int
	for di := range c.dests {
		if _, there := before[di][rel]; !there && !f.done[di] {
			send = append(send, di)
		}
	}
	want, checked, err := c.expectOf(rel)
	if err != nil {
		c.streamFailed(ctx, f, err)
		return
	}
	first := len(send) < len(c.dests) || checked
	var sums hashing.Sums
	if first {
		var err error
		if sums, _, _, err = c.streamRead(ctx, rel, size, nil, nil); err != nil {
			c.streamFailed(ctx, f, err)
			return
		}
		if checked {
			if msg := c.checkStreamed(rel, want, sums); msg != "" {
				c.streamFailed(ctx, f, errors.New(msg))
				return
			}
		}
		f.want, f.rec.Sums = sums, sums
	}
	if len(send) == 0 {
		return // verified below against the objects there
	}
	c.touched.Store(true)
	c.sendStream(ctx, f, send, sums, first) // storeretry.go
}

// streamFailed fails f on every destination: the card's file could not
// be read whole (an interruption leaves it as it is).
func (c *cardRun) streamFailed(ctx context.Context, f *storeFile, err error) {
	if ctx.Err() != nil {
		return
	}
	f.rec.State, f.rec.Error = StateFailed, fmt.Sprintf("cannot read %s: %v", filepath.Join(c.scan.Root, filepath.FromSlash(f.fp.ent.Rel)), err)
	if strings.HasPrefix(err.Error(), "second run") {
		f.rec.Error = err.Error()
	}
	for di := range f.res {
		if !f.done[di] {
			c.failedStore(di, f, f.rec.Error)
		}
	}
}

// streamRead reads the card's file rel once, hashes it with the job's
// algorithms and sends it to the destinations send as it is read. It
// returns the digests, each destination's upload error (by index),
// whether the read went to the end (whole: a read may stop early once
// every upload ended, acct.mayStop) and the read's error. acct (nil:
// the read is only hashed, counted nowhere) counts the file's bytes
// across its tries.
func (c *cardRun) streamRead(ctx context.Context, rel string, size int64, send []int, acct *streamAcct) (hashing.Sums, map[int]error, bool, error) {
	j := c.j
	src, err := j.opts.FS.Open(filepath.Join(c.scan.Root, filepath.FromSlash(rel)))
	if err != nil {
		return hashing.Sums{}, nil, false, err
	}
	defer src.Close()
	hs := make([]hash.Hash, len(j.algos))
	for i, a := range j.algos {
		hs[i] = a.New()
	}
	pws := map[int]*io.PipeWriter{}
	errs := map[int]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, di := range send {
		pr, pw := io.Pipe()
		pws[di] = pw
		wg.Go(func() {
			err := c.stores[di].PutStream(ctx, relJoin(c.out, rel), size, pr, func(e string) {
				c.destError(di, c.stores[di].Cause(e))
			})
			pr.CloseWithError(errStreamDone)
			mu.Lock()
			errs[di] = err
			mu.Unlock()
		})
	}
	n, rerr := c.streamBlocks(ctx, src, hs, pws, size, acct)
	whole := rerr == nil
	if errors.Is(rerr, errUploadsEnded) {
		rerr = nil // every upload ended: the rest is not needed
	}
	for _, pw := range pws {
		if rerr != nil {
			pw.CloseWithError(rerr) // the store gets less than size: no object
		} else {
			pw.Close()
		}
	}
	wg.Wait()
	if whole && n != size {
		rerr = fmt.Errorf("read %d bytes of %d: it changed while it was read", n, size)
	}
	if whole && rerr == nil && acct != nil && !acct.whole {
		acct.whole = true
		c.lc.filesCopied.Add(1)
	}
	var sums hashing.Sums
	for i, a := range j.algos {
		sums.Set(a, hashing.Encode(a, hs[i].Sum(nil)))
	}
	return sums, errs, whole && rerr == nil, rerr
}

// errUploadsEnded stops a read that no upload takes any more.
var errUploadsEnded = errors.New("every upload ended")

// streamBlocks reads src to its end, feeding every hasher and every pipe
// still open (a destination whose upload ended takes no more), and
// counts the bytes read and sent (acct; nil: none). With acct.mayStop it
// stops (errUploadsEnded) once no pipe is open.
func (c *cardRun) streamBlocks(ctx context.Context, src io.Reader, hs []hash.Hash, pws map[int]*io.PipeWriter, size int64, acct *streamAcct) (int64, error) {
	buf := storeBuf(size)
	var n int64
	dead := map[int]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if acct != nil && acct.mayStop && len(dead) == len(pws) {
			return n, errUploadsEnded
		}
		k, err := io.ReadFull(src, buf)
		if k > 0 {
			b := buf[:k]
			for _, h := range hs {
				h.Write(b)
			}
			for di, pw := range pws {
				if dead[di] {
					continue
				}
				if _, werr := pw.Write(b); werr != nil {
					dead[di] = true
					continue
				}
				acct.sent(c, di, n, int64(k))
			}
			acct.read(c, n, int64(k))
			n += int64(k)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if n > size {
			return n, fmt.Errorf("longer than the %d bytes it had: it changed while it was read", size)
		}
	}
}

// checkStreamed compares a file read from an array first copy with the
// card's hashes of the first run: "" when they agree; else the first copy
// is withdrawn (failFirstCopy) and the reason returned.
func (c *cardRun) checkStreamed(rel string, want, got hashing.Sums) string {
	m := cascade.Compare(rel, c.j.algos, want, got)
	if m == nil {
		return ""
	}
	c.failFirstCopy(m)
	return m.UploadError(DisplayPath(c.from.dests[0].root, relJoin(c.out, rel)), c.j.rec.ID)
}

// rereadCard is --verify source+dest for a card streamed to the cloud:
// every file this run read from the card (and did not fail) is read
// again, from the medium (fsys.OpenNoCache, as a folder run's card
// re-read), after its upload, hashed with the verification algorithms
// and compared with the read that was sent. A file the card does not give
// again fails on every destination, naming both hashes: the objects hold
// a read the card did not repeat (never replaced on a remote: a resume
// compares them with a new read). The card's chain file, which goes up as
// the new history's chain, is left to the seal.
func (c *cardRun) rereadCard(ctx context.Context, files []*storeFile) {
	j := c.j
	mh := hashing.NewMulti(j.valgos, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(j.opts.BlockSize), fsys.Block(j.opts.BlockSize)}
	var wait func(int) error
	if lim := j.opts.Limiter; lim != nil {
		wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, -1, n) }
	}
	for _, f := range files {
		if ctx.Err() != nil {
			return
		}
		if f == c.storeChain || f.rec.State == StateFailed || f.want.Get(hashing.MD5) == "" || !c.anyVerified(f) {
			continue
		}
		rel := f.fp.ent.Rel
		p := filepath.Join(c.scan.Root, filepath.FromSlash(rel))
		c.current.Store(rel)
		got, n, err := dest.HashFile(ctx, j.opts.FS, p, f.fp.ent.Size, bufs, mh, wait, func(int) {})
		if ctx.Err() != nil {
			return
		}
		var why string
		switch {
		case err != nil:
			why = fmt.Sprintf("source re-read: cannot read %s again: %v", p, err)
		case n != f.fp.ent.Size:
			why = fmt.Sprintf("source re-read: %s gave %d bytes, %d the first time (the card or reader returns unstable data)", p, n, f.fp.ent.Size)
		default:
			if _, bad, ok := got.Compare(f.want); !ok {
				why = fmt.Sprintf("source re-read: %s mismatch: the read sent to the cloud %s, read again %s (the card or reader returns unstable data)", bad, f.want.Get(bad), got.Get(bad))
			}
		}
		if why == "" {
			continue
		}
		f.rec.State, f.rec.Error = StateFailed, why
		for di, r := range f.res {
			if r.state == StateVerified {
				c.failedStore(di, f, "not verified: "+why)
			} else if !f.done[di] {
				c.failedStore(di, f, why)
			}
		}
	}
}

// anyVerified: f is verified on a destination (else there is nothing a
// re-read of the card could confirm).
func (c *cardRun) anyVerified(f *storeFile) bool {
	for _, r := range f.res {
		if r.state == StateVerified {
			return true
		}
	}
	return false
}
