package offload

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/verdict"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/raid"
)

// storeFile is one file of a store run on one destination.
type storeFile struct {
	fp   *filePlan
	want hashing.Sums // what the object must hash as: the card's read
	rec  *catalog.File
	res  []destResult // per destination
	how  []string     // per destination: verify_algos of a verified copy
	done []bool       // per destination: final (verified before, or now)
	// sent: this run uploaded the object (else one was at its name
	// before: an earlier run's, or anyone's), by destination.
	sent []bool
	// noRow: failed on every destination before any upload, with no
	// copy row (failStoreFile).
	noRow bool
}

// runStore is the run of a card whose destinations are stores (remote
// ones): the first copy in a folder (c.scan.Root) is uploaded from it
// (Store.Put); the card itself, or a first copy on a dit array, is
// streamed from dit's read (storestream.go). Then every object is verified (the storage's
// MD5, else read back). What the remote already holds and verifies is not
// sent again (a resumed upload). The card's files are held a window at a
// time (storewindow.go).
func (c *cardRun) runStore(ctx context.Context) {
	j := c.j
	c.startCopying()
	if empty := c.emptyDirs(); len(empty) > 0 {
		msg := fmt.Sprintf("%s: an object store keeps no empty folders: %s will not be in the cloud copy", destList(c.dests), strings.Join(empty, ", "))
		if c.from != nil {
			msg += ", and the card's ASC MHL history lists it: after a download, create it (mkdir) before verifying the history"
		}
		j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Message: msg})
	}
	c.startMarks()
	if c.streamed() {
		// The card itself, read once, or a first copy on a dit array,
		// read through the array (storestream.go).
		c.streamStore(ctx)
	} else {
		c.uploadFolder(ctx)
	}
	c.endCopying(ctx)
	c.verifyWindows(ctx)
	if c.rec.VerifyStarted.IsZero() {
		c.rec.VerifyStarted = j.opts.Now()
	}
}

// uploadFolder uploads a first copy in a folder to every destination: a
// window of its files at a time, each file's hashes found (storeFiles),
// recorded, and those a destination does not hold verified (the listing
// of their folder there, storelists.go) written to its list to send
// (uploadDecide); then every destination at once its own transfer of
// them (a --cloud-bwlimit limits each). A destination whose folder cannot
// be listed is sent nothing, and its copies fail.
func (c *cardRun) uploadFolder(ctx context.Context) {
	nd := len(c.dests)
	send := make([]*dest.Names, nd)
	for di, d := range c.dests {
		var err error
		if send[di], err = dest.NewNames(c.stores[di]); err != nil {
			c.storeDown(di, fmt.Sprintf("cannot upload to %s: %v", d.root, err), nil)
			continue
		}
		defer send[di].Remove()
	}
	lists := c.storeListers(false)
	c.storeWindows(ctx, nil, func(idx []int) {
		files := c.storeFiles(ctx, idx)
		if c.sealsInStore() {
			c.holdChain(files) // goes up with the new history (storeseal.go)
		}
		c.applyDown(files)
		for di := range c.dests {
			if c.isDown(di) {
				continue
			}
			if before, ok := c.storeHeld(ctx, lists[di], di, files, ""); ok {
				c.uploadDecide(di, files, before, send[di])
			}
		}
		for k, f := range files {
			c.keepMarks(idx[k], f)
			if f.rec.State != StatePending {
				c.j.cat.PutFile(f.rec) // failed: read back as it is
			}
		}
		if storeSample != nil {
			storeSample()
		}
	})
	if ctx.Err() != nil {
		return
	}
	var wg sync.WaitGroup
	for di := range c.dests {
		if c.isDown(di) {
			continue
		}
		wg.Go(func() { c.uploadStore(ctx, di, send[di]) })
	}
	wg.Wait()
}

// storeFiles are the files idx of a first copy in a folder with the
// hashes each object must have: the card's, as its first run read them
// (c.expect), or, for a file the card did not give (the first copy's hash
// lists), the first copy's as dit reads it now.
func (c *cardRun) storeFiles(ctx context.Context, idx []int) []*storeFile {
	j := c.j
	nd := len(c.dests)
	var out []*storeFile
	for _, i := range idx {
		fp := c.filePlanAt(i)
		rec := &catalog.File{CardID: c.rec.ID, Rel: fp.ent.Rel, Size: fp.ent.Size, Mtime: fp.ent.Mtime, State: StatePending, CopyStarted: j.opts.Now()}
		f := newStoreFile(fp, rec, nd)
		w, ok, err := c.expectOf(fp.ent.Rel)
		switch {
		case err != nil:
			// Not checked against the card: not uploaded.
			failStoreFile(f, err.Error(), relJoin(c.out, fp.ent.Rel))
		case ok && w.Get(hashing.MD5) != "":
			f.want = w
		default:
			mh := hashing.NewMulti(j.algos, 2)
			c.current.Store(fp.ent.Rel)
			sums, n, err := dest.HashFile(ctx, j.opts.FS, filepath.Join(c.scan.Root, filepath.FromSlash(fp.ent.Rel)), fp.ent.Size, storeBufs(fp.ent.Size), mh, nil, func(int) {})
			mh.Close()
			if err == nil && n != fp.ent.Size {
				err = fmt.Errorf("read %d bytes of %d", n, fp.ent.Size)
			}
			if err != nil {
				failStoreFile(f, fmt.Sprintf("cannot read %s: %v", filepath.Join(c.scan.Root, filepath.FromSlash(fp.ent.Rel)), err), relJoin(c.out, fp.ent.Rel))
			}
			f.want = sums
		}
		f.rec.Sums = f.want
		if f.rec.State == StatePending {
			j.cat.PutFile(f.rec) // its copies' rows refer to it
		}
		out = append(out, f)
	}
	return out
}

// uploadDecide settles the files on store di that it holds verified
// already (before: what it holds of them), and adds the others to send.
func (c *cardRun) uploadDecide(di int, files []*storeFile, before map[string]dest.Object, send *dest.Names) {
	for _, f := range files {
		if f.done[di] || f == c.storeChain {
			continue
		}
		rel := f.fp.ent.Rel
		f.res[di].rel = relJoin(c.out, rel)
		if o, ok := before[rel]; ok && c.serverMatch(o, f) {
			// Held already (an earlier run sent it): verified by the
			// storage's own checksum, not sent again.
			c.verifiedStore(di, f, storeMethod(RemoteByStorage, []hashing.Algo{hashing.MD5}))
			continue
		}
		if _, there := before[rel]; !there {
			f.sent[di] = true // Put sends only these (never over an object)
		}
		send.Add(rel)
	}
}

// uploadStore uploads the files send to store di.
func (c *cardRun) uploadStore(ctx context.Context, di int, send *dest.Names) {
	j := c.j
	d := c.dests[di]
	st := c.stores[di]
	if send.Len() > 0 {
		c.touched.Store(true)
		var seen uploadSeen
		err := st.Put(ctx, c.scan.Root, send, c.out, func(p dest.Progress) {
			c.uploadProgress(di, p, &seen)
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			// What went up is verified all the same; what did not is failed then.
			c.j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Message: fmt.Sprintf("upload to %s: %v", d.root, err)})
		}
	}
	c.mu.Lock()
	if c.verifyAt.IsZero() {
		c.verifyAt = j.opts.Now()
	}
	c.mu.Unlock()
}

// serverMatch: the object o is f as the card gave it, by the storage's own
// MD5 and its size.
func (c *cardRun) serverMatch(o dest.Object, f *storeFile) bool {
	m := o.StorageMD5
	return m != "" && o.Size == f.fp.ent.Size && strings.EqualFold(m, f.want.Get(hashing.MD5))
}

// verifyStore verifies f's object on destination di: the storage's MD5,
// or else the object read back and hashed. A storage's own MD5 that
// differs from the card's proves the object differs: it is not read back.
func (c *cardRun) verifyStore(ctx context.Context, di int, f *storeFile, held map[string]dest.Object) {
	d := c.dests[di]
	rel := f.fp.ent.Rel
	where := storePath(d, relJoin(c.out, rel))
	o, ok := held[rel]
	switch {
	case !ok:
		c.failedStore(di, f, fmt.Sprintf("%s is not on the remote after the upload: upload again with dit offload --resume %d", where, c.j.rec.ID))
		return
	case o.Size != f.fp.ent.Size:
		c.failedStore(di, f, fmt.Sprintf("%s holds %d bytes, the card's file %d: %s", where, o.Size, f.fp.ent.Size, c.mismatchCause(ctx, di, f)))
		return
	case c.serverMatch(o, f):
		f.res[di].written = true
		c.verifiedStore(di, f, storeMethod(RemoteByStorage, []hashing.Algo{hashing.MD5}))
		return
	case o.StorageMD5 != "" && f.want.Get(hashing.MD5) != "":
		f.res[di].written = f.sent[di]
		c.failedStore(di, f, fmt.Sprintf("%s differs from the card: md5 %s read from the card, %s the storage's own (S3 ETag): %s",
			where, f.want.Get(hashing.MD5), o.StorageMD5, c.mismatchCause(ctx, di, f)))
		return
	}
	f.res[di].written = true
	got, algos, err := c.readBackStore(ctx, di, rel, f.fp.ent.Size)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		c.failedStore(di, f, fmt.Sprintf("%s cannot be read back: %v", where, err))
		return
	}
	compared, bad, ok := f.want.Compare(got)
	if !ok {
		if len(compared) == 0 {
			c.failedStore(di, f, fmt.Sprintf("%s: no hash in common with the card's to compare (%s): the card is NOT safe to format", where, hashing.Names(algos)))
			return
		}
		c.failedStore(di, f, fmt.Sprintf("%s differs from the card: %s %s read from the card, %s read back from the cloud: %s",
			where, bad, f.want.Get(bad), got.Get(bad), c.mismatchCause(ctx, di, f)))
		return
	}
	c.verifiedStore(di, f, storeMethod(RemoteByReadBack, compared))
}

// mismatchCause says what is known of an object of f on destination di
// that is not the card's file, and what to do. An object this run did
// not send was there before (an earlier run's or anyone's): dit never
// replaces it. One it sent from a first copy in a folder: the first copy
// is read again and compared with the card's hashes, which tells a first
// copy gone bad from a transfer or storage fault. One it sent from its
// own read (the card, or an array's first copy checked against the
// card): the storage holds other bytes than were sent.
func (c *cardRun) mismatchCause(ctx context.Context, di int, f *storeFile) string {
	id := c.j.rec.ID
	const notSafe = "the card is NOT safe to format"
	switch {
	case !f.sent[di]:
		return fmt.Sprintf("%s; the object was at that name before this run's upload (an earlier run's, or anyone's), and dit never overwrites or deletes on a remote: move it away and resume with dit offload --resume %d", notSafe, id)
	case !c.streamed():
		first := DisplayPath(c.from.dests[0].root, relJoin(c.out, f.fp.ent.Rel))
		mh := hashing.NewMulti(c.j.algos, 2)
		got, n, err := dest.HashFile(ctx, c.j.opts.FS, filepath.Join(c.scan.Root, filepath.FromSlash(f.fp.ent.Rel)), f.fp.ent.Size,
			storeBufs(f.fp.ent.Size), mh, nil, func(int) {})
		mh.Close()
		if err != nil {
			return fmt.Sprintf("%s; it was uploaded from the first copy %s, which cannot be read now (%v): keep the card, and check the first copy with dit verify %d", notSafe, first, err, id)
		}
		if _, bad, ok := f.want.Compare(got); !ok || n != f.fp.ent.Size {
			what := fmt.Sprintf("%s %s, the card's %s", bad, got.Get(bad), f.want.Get(bad))
			if n != f.fp.ent.Size {
				what = fmt.Sprintf("%d bytes, the card's file %d", n, f.fp.ent.Size)
			}
			return fmt.Sprintf("%s; the first copy %s it was uploaded from no longer matches the card (%s): the first copy is bad; keep the card, check it with dit verify %d, and offload the card again", notSafe, first, what, id)
		}
		return fmt.Sprintf("%s; the first copy %s it was uploaded from still matches the card: the storage holds other bytes than were sent; move the object away and resume with dit offload --resume %d", notSafe, first, id)
	}
	return fmt.Sprintf("%s; the storage holds other bytes than dit sent from its read: move the object away and resume with dit offload --resume %d", notSafe, id)
}

// readBackStore reads the object of rel on destination di back from the
// remote and hashes it with the job's verification algorithms.
func (c *cardRun) readBackStore(ctx context.Context, di int, rel string, size int64) (hashing.Sums, []hashing.Algo, error) {
	j := c.j
	rc, err := c.stores[di].Open(ctx, relJoin(c.out, rel), size)
	if err != nil {
		return hashing.Sums{}, nil, err
	}
	algos := j.valgos
	mh := hashing.NewMulti(algos, 2)
	defer mh.Close()
	busy := c.busyClock(di)
	sums, _, err := dest.HashOpen(ctx, rc, 0, -1, storeBufs(size), mh, nil, func(n int) {
		c.bytesVerif.Add(int64(n))
		c.destVerif[di].Add(int64(n))
		busy.tick()
	})
	busy.done()
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return sums, algos, err
}

// storeBlock is the most a store run reads at once from a file or an
// object (1 MiB).
const storeBlock = 1 << 20

// storeBuf is a buffer to read a file or object of size bytes: a block,
// or less for a smaller one, one byte more than its size (so that a read
// to its end sees one that grew), 4 KiB at least. A card of frames reads
// its files into small buffers: a block of 1 MiB made (and cleared) for
// each file of 512 bytes cost more CPU than the rest of its upload, and
// called a collection every few files.
func storeBuf(size int64) []byte {
	return make([]byte, min(storeBlock, max(size+1, 4<<10)))
}

// storeBufs are two buffers (storeBuf) for a read that overlaps its
// hashing (dest.HashOpen).
func storeBufs(size int64) [][]byte { return [][]byte{storeBuf(size), storeBuf(size)} }

// uploadSeen is what uploadProgress keeps of one upload to a
// destination.
type uploadSeen struct {
	sent int64  // bytes the transfer said it sent, every try counted
	try  int    // the try it said it is at
	err  string // the last error it said
	// counted: a retry is counted since err was said (or since the
	// start, none said): bytes sent again count no other.
	counted bool
	retries int // retries counted in this upload
}

// uploadProgress counts what an upload to destination di sent: bytes
// beyond what the destination needs were sent again after a failed try,
// counted apart. A new try of the transfer is a retry there (retry 1 of
// Tries-1); so are bytes sent again with no new try said (rclone's own
// low-level retries, which a transfer through the daemon does not
// count), once for each error the transfer says (its limit unknown:
// RetryOf 0). The last error said is the destination's.
func (c *cardRun) uploadProgress(di int, p dest.Progress, u *uploadSeen) {
	if p.Err != "" && p.Err != u.err {
		u.err, u.counted = p.Err, false // a new error: its resend is a retry
	}
	if p.Try > u.try {
		u.try = p.Try
		if p.Try > 1 {
			u.retries, u.counted = max(u.retries+1, p.Try-1), true
			c.destRetry(di, p.Try-1, max(p.Tries-1, 0), c.stores[di].Cause(u.err))
		}
	}
	if p.Err != "" {
		c.destError(di, c.stores[di].Cause(p.Err))
	}
	d := p.Bytes - u.sent
	if d <= 0 {
		return
	}
	u.sent = p.Bytes
	need := c.destNeed[di]
	fresh := min(d, max(need-c.destWritten[di].Load(), 0))
	if fresh > 0 {
		c.bytesCopied.Add(fresh)
		c.destWritten[di].Add(fresh)
	}
	if d > fresh {
		c.lc.resent.Add(d - fresh)
		c.lc.dests[di].resent.Add(d - fresh)
		if !u.counted {
			u.retries++
			u.counted = true
			c.destRetry(di, u.retries, 0, c.stores[di].Cause(u.err))
		}
	}
}

func (c *cardRun) verifiedStore(di int, f *storeFile, how string) {
	if p := f.fp.prevCopy(c.dests[di].rec.ID); p == nil || p.State != StateVerified {
		c.touched.Store(true)
	}
	f.res[di].state, f.how[di], f.done[di] = StateVerified, how, true
	if !strings.HasPrefix(how, RemoteByReadBack) {
		c.bytesVerif.Add(f.fp.ent.Size)
		c.destVerif[di].Add(f.fp.ent.Size)
		c.verifiedOne(di, time.Millisecond) // checked by the storage, listed at once
	}
	c.recordStoreCopy(di, f)
}

func (c *cardRun) failedStore(di int, f *storeFile, why string) {
	c.touched.Store(true)
	f.res[di].state, f.res[di].err, f.done[di] = StateFailed, why, true
	c.recordStoreCopy(di, f)
}

func (c *cardRun) recordStoreCopy(di int, f *storeFile) {
	r := f.res[di]
	cp := &catalog.Copy{DestID: c.dests[di].rec.ID, Path: r.rel, State: r.state, Written: r.written, Error: r.err}
	if r.state == StateVerified {
		cp.VerifyAlgos, cp.VerifiedAt = f.how[di], c.j.opts.Now()
		if p := f.fp.prevCopy(cp.DestID); p != nil && p.State == StateVerified && p.VerifyAlgos == cp.VerifyAlgos && !p.VerifiedAt.IsZero() {
			// Verified before, the same way: it keeps its time (the hash
			// date of its ASC MHL record, which a resumed seal writes
			// again byte for byte).
			cp.VerifiedAt = p.VerifiedAt
		}
	}
	c.j.cat.PutCopy(c.rec.ID, f.fp.ent.Rel, cp)
}

// finalizeStore records a file of a store run once it is final on every
// destination, and tells the front ends.
func (c *cardRun) finalizeStore(f *storeFile) {
	j := c.j
	for _, d := range f.done {
		if !d {
			return
		}
	}
	if f.rec.State != StateFailed {
		var why []string
		for _, r := range f.res {
			if r.state != StateVerified {
				why = append(why, r.err)
			}
		}
		f.rec.State = StateVerified
		if len(why) > 0 {
			f.rec.State, f.rec.Error = StateFailed, strings.Join(why, "; ")
		}
	}
	f.rec.CopyFinished = j.opts.Now()
	j.cat.PutFile(f.rec)
	if f.rec.State == StateFailed {
		c.filesFailed.Add(1)
	}
	ev := Event{Type: EvFile, Card: c.label(), Hop: hopOf(c.rec), Path: f.rec.Rel, State: verdict.State(f.rec.State), Message: f.rec.Error}
	for di, r := range f.res {
		if r.state == StateFailed {
			c.destFailed[di].Add(1)
		}
		ev.Copies = append(ev.Copies, copyOf(c.dests[di].root, r))
	}
	c.filesDone.Add(1)
	j.emit(ev)
}

// emptyDirs are the card's folders that hold no file, at any depth.
func (c *cardRun) emptyDirs() []string {
	full := map[string]bool{}
	for _, f := range c.scan.Files.All() {
		for d := path.Dir(f.Rel); d != "." && d != "/" && !full[d]; d = path.Dir(d) {
			full[d] = true
		}
	}
	var out []string
	for _, d := range c.scan.Dirs {
		if d.Rel != "" && d.Rel != "." && !full[d.Rel] {
			out = append(out, d.Rel)
		}
	}
	return out
}

// planStore sets a store run's totals before it runs (the progress reads
// them without a lock): every file is read back, or checked, on every
// destination; what a destination holds already with the card's MD5 (an
// interrupted upload) is not sent again, the rest is. A remote that cannot
// be listed now counts as holding nothing.
func (c *cardRun) planStore() {
	lists := c.storeListers(true)
	for di := range c.dests {
		var need int64
		var files int
		c.lc.dests[di].verifyFiles = c.list.len()
		for i := range c.list.len() {
			rel, size := c.list.rel(i), c.list.size(i)
			c.verifyTotal += size
			c.destVerifTotal[di] += size
			o, ok, _ := lists[di].Lookup(context.Background(), rel) // its folder listed as the look comes to it
			w0, _, _ := c.expectOf(rel)                             // unread: uploaded (counted here)
			w := w0.Get(hashing.MD5)
			if ok && w != "" && o.Size == size && strings.EqualFold(o.StorageMD5, w) {
				continue
			}
			if rel == chainRel && c.sealsInStore() {
				continue // goes up with the history (storeseal.go)
			}
			need += size
			files++
		}
		c.destNeed[di] = need
		c.copyTotal = max(c.copyTotal, need)
		c.lc.copyFiles = max(c.lc.copyFiles, files)
	}
}

// failStoreFile settles f failed with msg on every destination (rel:
// the copy's path), before anything is uploaded.
func failStoreFile(f *storeFile, msg, rel string) {
	f.rec.State, f.rec.Error = StateFailed, msg
	for di := range f.res {
		f.res[di] = destResult{state: StateFailed, err: msg, rel: rel}
		f.done[di] = true
	}
	f.noRow = true
}

// streamed: the run reads its files itself and streams them to the
// remote: from the card (no first copy), or from a first copy on a dit
// array, which only dit reads (a remote's Put sees the blades' own
// files).
func (c *cardRun) streamed() bool {
	return c.from == nil || raid.IsBlade(c.from.dests[0].root)
}

// expectOf is what the card gave for rel in the first run, which the
// remote copy must hash as; not the card's own ASC MHL chain once the first
// run's seal extended it on the first copy (by design: its generations
// are checked one by one), which goes up as the first copy holds it.
func (c *cardRun) expectOf(rel string) (hashing.Sums, bool, error) {
	if c.expect == nil {
		return hashing.Sums{}, false, nil
	}
	w, ok, err := c.expect.Of(rel)
	if ok && rel == chainRel && c.firstRunSealed() {
		return hashing.Sums{}, false, nil
	}
	return w, ok, err
}
