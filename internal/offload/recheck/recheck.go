package recheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/hashing/inorder"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/raid"
)

// Result is one copy read back by [Job].
type Result struct {
	Card  string `json:"card"`
	Path  string `json:"path"`  // the copy, absolute
	State string `json:"state"` // summary.StateVerified, summary.StateFailed, Missing, Resealed
	Error string `json:"error,omitempty"`
}

// States of a Result besides a copy's (verified, failed).
const (
	// Missing: the copy is not there (or was never made).
	Missing = "missing"
	// Resealed: the copy is the card's ASC MHL chain, which dit
	// extended after the copy by design: it is checked by dit mhl verify,
	// not against the card.
	Resealed = "resealed"
)

// Options are the choices of [JobWith].
type Options struct {
	// All recomputes every recorded hash, not only the fastest.
	All bool
	// OnResult, if set, is called once per copy read back (or found
	// missing), in order.
	OnResult func(Result)
	// OnProgress, if set, is called from the goroutine running
	// JobWith after each block read back and after each copy, with
	// the totals so far; it must return quickly (a front end that prints
	// keeps the last value and prints on its own schedule).
	OnProgress func(Progress)
	// Now is the clock of the progress's rate and estimate (tests);
	// default time.Now.
	Now func() time.Time
	// Remote are the remote kind's settings (remote.Settings), which
	// reach the job's remote destinations (nil: the kind's defaults,
	// rclone on PATH with the user's configuration). A remote copy is
	// checked by the storage's own MD5 of the object, or read back when
	// it has none or with All.
	Remote dest.Settings
	// WrapStore, if set, wraps each remote destination's store as the
	// check opens it (tests count its listings, inject faults here).
	WrapStore func(dest.Store) dest.Store
}

// Progress is how far a [JobWith] is.
type Progress struct {
	Copies     int   `json:"copies"`      // copies to check: files x destinations
	CopiesDone int   `json:"copies_done"` // checked (or found missing) so far
	Bytes      int64 `json:"bytes"`       // bytes to read back: recorded sizes of the copies to read
	BytesRead  int64 `json:"bytes_read"`  // read back so far
	// Checked are the copies among Copies checked by the storage's own
	// checksum as a listing gives it (cloud objects: S3's ETag), not
	// read back: none of their bytes is in Bytes. One that must be read
	// back after all (no such checksum) moves to Bytes when its turn
	// comes.
	Checked int `json:"checked"`
	// Rate is the read-back's rate (bytes per second, 0 until measured)
	// and ETA the time until every byte is read back at it (unknown
	// before): the live model's (live.Meter), which front ends render.
	Rate float64       `json:"rate_bytes_per_s"`
	ETA  live.Estimate `json:"eta_s"`
}

// Percent is the part of the bytes read back, 0-100 (never above; 100
// when there is nothing to read back).
func (p Progress) Percent() float64 {
	if p.Bytes <= 0 {
		return 100
	}
	return min(100, 100*float64(min(max(p.BytesRead, 0), p.Bytes))/float64(p.Bytes))
}

// Job reads every copy of a job back from its medium now and compares
// it with the source hashes in the catalog: the fastest recorded hash, or
// all of them with all=true. Copies that differ or are missing are marked
// failed in the catalog; copies that match get a new verified time. A file
// the job never copied is reported as missing on that destination.
func Job(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, all bool, onResult func(Result)) (ok bool, err error) {
	return JobWith(ctx, cat, fsy, jobID, Options{All: all, OnResult: onResult})
}

// JobWith is [Job] with its options, and progress reports.
func JobWith(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, opt Options) (ok bool, err error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	r := &rechecker{cat: cat, onResult: opt.OnResult, onProgress: opt.OnProgress, remote: opt.Remote, all: opt.All}
	r.stores, r.listers, r.wrap = map[string]dest.Store{}, map[string]*dest.Lister{}, opt.WrapStore
	if r.onResult == nil {
		r.onResult = func(Result) {}
	}
	if r.onProgress == nil {
		r.onProgress = func(Progress) {}
	}
	// The rate and estimate are the live model's, decided here.
	var meter live.Meter
	report, now := r.onProgress, opt.Now
	if now == nil {
		now = time.Now
	}
	r.onProgress = func(p Progress) {
		// The copies read back a few at once: their bytes so far count.
		p.BytesRead += r.reading.Load()
		p.Rate, p.ETA = meter.Observe(now(), p.BytesRead, p.Bytes)
		report(p)
	}
	j, err := cat.Job(jobID)
	if err != nil {
		return false, err
	}
	if j.State == catalog.JobRunning {
		return false, fmt.Errorf("job %d is still running: verify it when it has finished", jobID)
	}
	if err := cat.DropStrayCopies(jobID); err != nil {
		return false, err
	}
	algos, err := hashing.ParseList(j.Hashes)
	if err != nil {
		return false, err
	}
	r.valgos = dest.VerifyAlgos(algos, opt.All)
	dests, err := cat.Dests(jobID)
	if err != nil {
		return false, err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return false, err
	}
	if err := r.checkStores(ctx, j, dests); err != nil {
		return false, err
	}
	cardDests := runDests(cards, dests)
	if err := r.totals(jobID, cards, cardDests); err != nil {
		return false, err
	}
	roots := make([]string, len(dests))
	for i, d := range dests {
		roots[i] = d.Path
	}
	fsy, arrays, err := dest.MountArrays(fsy, roots, raid.OpenOptions{})
	if err != nil {
		return false, err
	}
	defer func() {
		for _, a := range arrays {
			a.Close()
		}
	}()
	r.fsy = fsy
	r.startPool(dests)
	defer r.stopPool()
	r.onProgress(r.prog)
	r.ok = true
	if err := r.cards(ctx, j, cards, cardDests); err != nil {
		return false, err
	}
	return r.ok, cat.Flush()
}

// cards checks the cards' copies, each card's on the destinations of
// its run (cardDests), in the catalog's order: a destination's copies
// are read back a few at once (FilesInFlight), and what each finds is
// recorded and reported in that order.
func (r *rechecker) cards(ctx context.Context, j *catalog.Job, cards []*catalog.Card, cardDests [][]*catalog.Dest) error {
	for ci, k := range cards {
		out, _ := dest.ExpandLayout(j.Layout, j.Name, k.Label, j.Started)
		// The card's files one at a time from the catalog, in path
		// order: a card of a million frames is never held whole (only
		// the few read back at once and those waiting for their turn).
		err := r.cat.EachFile(k.ID, nil, func(f *catalog.File) error {
			// EachFile reuses f: the copies read back hold their own.
			f = &catalog.File{CardID: f.CardID, Rel: f.Rel, Size: f.Size, Mtime: f.Mtime, State: f.State, Sums: f.Sums, Error: f.Error,
				CopyStarted: f.CopyStarted, CopyFinished: f.CopyFinished, Copies: slices.Clone(f.Copies)}
			for _, d := range cardDests[ci] {
				var cp *catalog.Copy
				for i := range f.Copies {
					if f.Copies[i].DestID == d.ID {
						cp = &f.Copies[i]
					}
				}
				if err := r.copy(ctx, k, f, d, cp, out); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, d := range cardDests[ci] {
			if dest.IsRemote(d.Path) {
				if err := r.pool.Later(func() error { return r.storeCardHistory(ctx, j, k, d, out) }); err != nil {
					return err
				}
			}
		}
	}
	return r.pool.Finish()
}

// checkStores reaches the job's remote destinations with the rclone
// configuration the job was started with (unless one is given), and
// checks each before anything is read (as a job's start does: rclone
// there, the configuration file there, the remote in it, its folder
// readable), naming what is wrong.
func (r *rechecker) checkStores(ctx context.Context, j *catalog.Job, dests []*catalog.Dest) error {
	config, bwLimit := "", ""
	if r.remote != nil {
		config, bwLimit = r.remote.Recorded()
	}
	if config == "" {
		config = j.RcloneConfig
	}
	var limit int64
	if bwLimit != "" {
		v, err := dest.ParseBwLimit(bwLimit)
		if err != nil {
			return err
		}
		limit = v
	}
	r.remote = dest.Settle(r.remote, config, limit)
	var clouds []string
	for _, d := range dests {
		clouds = append(clouds, d.Path)
	}
	if err := dest.CheckRemotes(ctx, r.remote, clouds); err != nil {
		return fmt.Errorf("job %d's cloud copies cannot be checked (nothing was read): %w", j.ID, err)
	}
	return nil
}

// runDests are, for each card, the destinations of its run.
//
// Each card's copies are on the destinations of its run: a
// cascade's card (hop 1) on the -d destinations, its second run (hop
// 2, read from the first copy) on the --then ones; a job without a
// cascade has only the first. Each copy is read once, by the run that
// made it, and checked against the hashes that run recorded.
func runDests(cards []*catalog.Card, dests []*catalog.Dest) [][]*catalog.Dest {
	cardDests := make([][]*catalog.Dest, len(cards))
	for i, k := range cards {
		for _, d := range dests {
			if d.Run() == max(k.Hop, 1) {
				cardDests[i] = append(cardDests[i], d)
			}
		}
	}
	return cardDests
}

// rechecker is one JobWith: what it reads with, its progress, and
// whether every copy verified so far (ok).
type rechecker struct {
	cat    *catalog.Catalog
	fsy    fsys.FS
	valgos []hashing.Algo
	// pool reads the folder destinations' copies back, a group a
	// destination (groups: by its ID), each read with a slot of slots;
	// reading counts the bytes of the copies under way.
	pool    *inorder.Pool
	groups  map[int64]int
	slots   [][]*slot
	reading atomic.Int64
	// mh and bufs read a cloud copy back, one at a time (nil: the job
	// has none).
	mh         *hashing.Multi
	bufs       [][]byte
	prog       Progress
	onResult   func(Result)
	onProgress func(Progress)
	ok         bool
	remote     dest.Settings
	all        bool
	// stores are the remote destinations opened so far, by path (each
	// wrapped by wrap, if set), and listers what each holds, a few
	// folders' listings at a time.
	stores  map[string]dest.Store
	wrap    func(dest.Store) dest.Store
	listers map[string]*dest.Lister
	// histories are the cloud ASC MHL histories checked so far.
	histories map[string]historyCheck
}

// totals counts the copies to check and the bytes to read back, for the
// progress reports, from the cards' totals (catalog card_totals: no file
// read).
func (r *rechecker) totals(jobID int64, cards []*catalog.Card, cardDests [][]*catalog.Dest) error {
	if err := r.cat.Flush(); err != nil {
		return err
	}
	tot, err := r.cat.JobTotals(jobID)
	if err != nil {
		return err
	}
	for i, k := range cards {
		t := tot[k.ID]
		if t == nil {
			continue
		}
		var bytes int64
		for _, b := range t.Bytes {
			bytes += b
		}
		for _, d := range cardDests[i] {
			r.prog.Copies += t.NFiles()
			if dest.IsRemote(d.Path) && !r.all {
				r.prog.Checked += t.NFiles()
			} else {
				r.prog.Bytes += bytes
			}
		}
	}
	return nil
}

// copy reads back f's copy on d (cp: its record, nil: none; out: the
// card's folder) and records and reports what it finds, after the
// copies before it: a copy on a folder is read back on a slot of d's
// group of the pool, the others' turns taken in order (a copy never
// made, a cloud one). Its error is the interruption's (of its own or of
// a copy before it).
func (r *rechecker) copy(ctx context.Context, k *catalog.Card, f *catalog.File, d *catalog.Dest, cp *catalog.Copy, out string) error {
	if dest.IsRemote(d.Path) {
		return r.pool.Later(func() error { return r.storeCopy(ctx, k, f, d, cp, out) })
	}
	rel := path.Join(out, f.Rel)
	if cp != nil && cp.Path != "" {
		rel = cp.Path
	}
	p := filepath.Join(d.Path, filepath.FromSlash(rel))
	if neverCopied(f, cp) {
		// (A file found failed stays so: no need to read.)
		return r.pool.Later(func() error { r.readBack(k, f, d, cp, rel, p, nil); return nil })
	}
	g := r.groups[d.ID]
	var rb readBack
	return r.pool.Go(g, func(i int) {
		s := r.slot(g, i)
		rb.got, rb.n, rb.err = dest.HashFile(ctx, r.fsy, p, f.Size, s.bufs, s.mh, nil, func(n int) {
			// Its bytes so far, up to its recorded size.
			add := min(rb.read+int64(n), f.Size) - rb.read
			rb.read += add
			r.reading.Add(add)
			r.pool.Wake()
		})
	}, func() error {
		r.reading.Add(-rb.read)
		if errors.Is(rb.err, context.Canceled) && !neverCopied(f, cp) {
			return rb.err
		}
		r.readBack(k, f, d, cp, rel, p, &rb)
		return nil
	})
}

// readBack is what reading a copy back found: its hashes, its length,
// the read's error, and the bytes counted as read so far (up to the
// recorded size).
type readBack struct {
	got  hashing.Sums
	n    int64
	err  error
	read int64
}

// neverCopied reports a copy dit never made of a file that failed
// (cp: its record, nil: none). A copy dit wrote and later found bad (by
// dit verify, or by a cascade's second run) is read again: it is there.
func neverCopied(f *catalog.File, cp *catalog.Copy) bool {
	return f.State == summary.StateFailed && (cp == nil || cp.State == summary.StateSkipped || (cp.State == summary.StateFailed && !cp.Written))
}

// readBack takes, in its turn, what reading f's copy at p (rel on d)
// back found (rb; nil: it was not read) and records and reports it.
func (r *rechecker) readBack(k *catalog.Card, f *catalog.File, d *catalog.Dest, cp *catalog.Copy, rel, p string, rb *readBack) {
	res := Result{Card: k.Label, Path: p}
	// Counted as read once its turn is over, whatever was read.
	readTo := r.prog.BytesRead + f.Size
	// (A copy before it on another destination may have failed the
	// file since this one was read: it counts as never copied then.)
	if rb == nil || neverCopied(f, cp) {
		res.State, res.Error = Missing, "never copied: "+f.Error
		r.ok = false
		r.onResult(res)
		r.done(readTo)
		return
	}
	res.State, res.Error = readBackState(f, rb.got, rb.n, rb.err)
	if res.State == summary.StateFailed && isHistoryChain(f.Rel) {
		// The card carried an ASC MHL history: the seal appended
		// a generation to the copy's chain by design. The chain
		// is checked by dit mhl verify, not against the card.
		r.onResult(Result{Card: k.Label, Path: p, State: Resealed,
			Error: "ASC MHL chain extended by dit after the copy; check it with dit mhl verify"})
		r.done(readTo)
		return
	}
	r.record(k, f, d, cp, rel, p, res, hashing.Names(r.valgos))
	r.onResult(res)
	r.done(readTo)
}

// done counts a copy's turn as over, its bytes read (readTo).
func (r *rechecker) done(readTo int64) {
	r.prog.CopiesDone++
	r.prog.BytesRead = readTo
	r.onProgress(r.prog)
}

// readBackState is the state of a copy of f read back (got, n bytes;
// err: the read's error, not an interruption) and why.
func readBackState(f *catalog.File, got hashing.Sums, n int64, err error) (state, why string) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Missing, "the copy is gone"
	case err != nil:
		return summary.StateFailed, "read-back failed: " + err.Error()
	case n != f.Size:
		return summary.StateFailed, fmt.Sprintf("size %d, the source had %d", n, f.Size)
	}
	if _, bad, same := got.Compare(f.Sums); !same {
		return summary.StateFailed, fmt.Sprintf("%s differs: source %s, copy %s", bad, f.Sums.Get(bad), got.Get(bad))
	}
	return summary.StateVerified, ""
}

// record puts what the re-read of f's copy at p (rel on d) found in the
// catalog: a copy that did not verify fails, and its file with it.
func (r *rechecker) record(k *catalog.Card, f *catalog.File, d *catalog.Dest, cp *catalog.Copy, rel, p string, res Result, how string) {
	ncp := catalog.Copy{DestID: d.ID, Path: rel, State: res.State, VerifyAlgos: how, Error: res.Error}
	if cp != nil {
		ncp.Written = cp.Written
	}
	if res.State == summary.StateVerified {
		ncp.VerifiedAt = time.Now() // when this re-read compared it
	} else {
		r.ok = false
		ncp.State = summary.StateFailed
		ncp.Error = "dit verify: " + res.Error
		if f.State != summary.StateFailed {
			f.State, f.Error = summary.StateFailed, "dit verify: copy at "+p+": "+res.Error
			r.cat.PutFile(f)
		}
	}
	if res.State != summary.StateVerified || cp == nil || cp.State != summary.StateVerified || cp.VerifyAlgos != how {
		r.cat.PutCopy(k.ID, f.Rel, &ncp)
	}
}

// isHistoryChain reports an ASC MHL chain file (ascmhl/ascmhl_chain.xml at
// any depth), which dit's seal rewrites on the destination after the copy.
func isHistoryChain(rel string) bool {
	return path.Base(rel) == "ascmhl_chain.xml" && path.Base(path.Dir(rel)) == "ascmhl"
}

// storeMethod is the verify_algos of a remote copy verified by method
// with algos.
func storeMethod(method string, algos []hashing.Algo) string {
	return method + hashing.Names(algos)
}
