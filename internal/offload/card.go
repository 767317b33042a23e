package offload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/internal/units"
)

// Copy states (catalog.Copy.State).
const (
	StatePending  = "pending"
	StateCopied   = "copied"
	StatePresent  = "present"
	StateVerified = "verified"
	StateFailed   = "failed"
	StateSkipped  = "skipped"
)

type planMode int

const (
	modeWrite   planMode = iota // no file at the target: write a temp, rename
	modeCompare                 // a file is there: compare bytes
	modeDone                    // verified by an earlier run of this job
	modeRefuse                  // verified earlier, but the card's file changed since: keep the copy
	// modeSealed: the card's ASC MHL chain file, at its copy's place the
	// card's chain extended by this job's own seal (sealedChain), not
	// recorded verified: the card's file is read (its hashes), nothing is
	// written, and the copy counts as verified.
	modeSealed
)

type destPlan struct {
	mode       planMode
	rel        string // relative to the destination root (slash)
	target     string // absolute
	replaceOwn bool   // the file at target was written by this job and never verified
	prev       *catalog.Copy
	// partial: an interrupted run left a temp of this copy with a
	// checkpoint (mid-file resume); Temp is its full path.
	partial *catalog.Partial
}

type filePlan struct {
	ent   source.Entry
	dests []destPlan
	prev  *catalog.File
	// probe: the file failed in an earlier run and a copy this job wrote
	// may be replaced; it is replaced only by a stable read: the card's
	// file is hashed once before the copy read, and both reads must agree.
	probe bool
}

// cardRun is one card's pipeline.
type cardRun struct {
	j *Job
	// ended: this run's pipeline returned in this process; doneSent: the
	// card's card_done was sent (on its hop-1 run; runMu held for both
	// reads that decide it).
	ended    atomic.Bool
	doneSent bool
	// dests are the destinations this card is copied to: the first run's
	// (hop 1), or for a cascade's second run (hop 2) the later ones.
	dests []*destination
	scan  *source.Card
	rec   *catalog.Card
	out   string // layout folder, relative to each destination root
	prev  map[string]*catalog.File
	files []*filePlan
	names map[string]bool // the card's file paths (slash-separated, relative)

	copyTotal   int64
	verifyTotal int64
	bytesCopied atomic.Int64
	bytesVerif  atomic.Int64
	filesDone   atomic.Int64
	filesFailed atomic.Int64
	current     atomic.Value // string
	phase       atomic.Value // string
	// activeAt and doneAt (Unix ns) are when this run started copying and
	// ended (phase "done"): the sampler clips a card's first and last
	// sample to them, so a card that starts or ends within a second is
	// not charged the whole second.
	activeAt, doneAt atomic.Int64
	destWritten      []atomic.Int64
	destVerif        []atomic.Int64
	// Per destination (DestProgress): the bytes the plan writes there (at
	// most: a file already there is compared), the bytes to read back, the
	// files that failed there, the file being read back there (destCur,
	// "" between files); vcurrent is the file last read back.
	destNeed, destVerifTotal []int64
	destFailed               []atomic.Int64
	destCur                  []atomic.Value // string
	vcurrent                 atomic.Value   // string

	// history is what an ASC MHL history on the card records (an earlier
	// hop), by path: every file read is checked against it.
	history map[string]*ascmhl.Record
	// expect (a cascade's second run) are the hashes the card gave in the
	// first run, by path: every file read from the first copy must have
	// them. from is the hop-1 card; absent: a hop-1 card that is free and
	// not mounted, which a resume does not need.
	expect map[string]hashing.Sums
	from   *cardRun
	absent bool
	// firstSealed (a second run): the first copy's chain file is the
	// card's extended by the first run's own seal (firstRunSealed).
	firstSealedOnce sync.Once
	firstSealed     bool
	// ran is closed when the card's run has returned (startCard): a
	// resumed second run waits for its card's first run to be over.
	ran chan struct{}
	// partials are the checkpoints an interrupted run left (mid-file
	// resume): rel -> destination id -> checkpoint.
	partials map[string]map[int64]*catalog.Partial
	// asides are, per destination, the failed copies moved aside
	// (FailedSuffix) found when planning: copy path (relative to the
	// destination root) -> their paths. A copy of that path that
	// verifies replaces them (removeAside).
	asides []map[string][]string

	// prevState is the card's state when the job was resumed ("" for a new
	// job); touched: this run read or verified something of the card.
	prevState string
	touched   atomic.Bool
	readOK    atomic.Int64 // files read whole from the card in this run
	eioRow    atomic.Int64 // files in a row that failed with I/O errors
	lastOK    atomic.Value // string: the last card file read whole

	ctx      context.Context // the job's context, for the writers' limiter waits
	mu       sync.Mutex
	cardErr  string // the card became unreadable
	destErr  []error
	verifyAt time.Time
}

func (j *Job) newCardRun(sc *source.Card, k *catalog.Card, out string, prev []*catalog.File) *cardRun {
	c := &cardRun{j: j, dests: j.hopDests(k.Hop), scan: sc, rec: k, out: out, prev: map[string]*catalog.File{}, ran: make(chan struct{})}
	for _, f := range prev {
		c.prev[f.Rel] = f
	}
	c.files = make([]*filePlan, len(sc.Files))
	c.names = make(map[string]bool, len(sc.Files))
	for i, e := range sc.Files {
		c.files[i] = &filePlan{ent: e, prev: c.prev[e.Rel]}
		c.names[e.Rel] = true
	}
	c.phase.Store("pending")
	c.current.Store("")
	nd := len(c.dests)
	c.destErr = make([]error, nd)
	c.destWritten = make([]atomic.Int64, nd)
	c.destVerif = make([]atomic.Int64, nd)
	c.destNeed, c.destVerifTotal = make([]int64, nd), make([]int64, nd)
	c.destFailed = make([]atomic.Int64, nd)
	c.destCur = make([]atomic.Value, nd)
	for di := range c.destCur {
		c.destCur[di].Store("")
	}
	c.vcurrent.Store("")
	return c
}

// computeTotals sums what the plan will read and read back; called once
// after planning, before the pipeline starts.
func (c *cardRun) computeTotals() {
	for _, fp := range c.files {
		readNeeded := false
		for di := range fp.dests {
			if m := fp.dests[di].mode; m != modeDone && m != modeRefuse {
				readNeeded = true
				if c.j.opts.Verify != VerifyNone && m != modeSealed {
					c.verifyTotal += fp.ent.Size
					c.destVerifTotal[di] += fp.ent.Size
				}
			}
		}
		if readNeeded {
			c.copyTotal += fp.ent.Size
		}
	}
}

// plan decides, for destination di, what to do with each file, and returns
// the bytes that will be written there.
func (c *cardRun) plan(di int) (int64, error) {
	d := c.dests[di]
	if err := c.checkDestFolders(di); err != nil {
		return 0, err
	}
	// Temps of an interrupted run go; only after the check above, so that
	// nothing is removed through a link.
	// Temps a resume goes on writing: only those whose checkpoint still
	// fits the card's file and the temp; any other goes with the rest.
	keepTemp := map[string]bool{}
	resumable := map[string]*catalog.Partial{}
	if len(c.partials) > 0 {
		for _, fp := range c.files {
			p := c.partials[fp.ent.Rel][d.rec.ID]
			if p == nil || p.Size != fp.ent.Size || !p.Mtime.Equal(fp.ent.Mtime) || !fsys.CanAppend(c.j.opts.FS, p.Temp) {
				continue
			}
			if ti, err := c.j.opts.FS.Lstat(p.Temp); err == nil && ti.Mode().IsRegular() && ti.Size() >= p.Offset {
				keepTemp[p.Temp], resumable[fp.ent.Rel] = true, p
			}
		}
	}
	base := filepath.Join(d.root, filepath.FromSlash(c.out))
	aside := map[string][]string{}
	removeTemps(c.j.opts.FS, base, "", func(rel string) bool {
		return c.names[rel] || keepTemp[filepath.Join(base, filepath.FromSlash(rel))]
	}, func(p, of string) {
		aside[relJoin(c.out, of)] = append(aside[relJoin(c.out, of)], p)
	})
	c.mu.Lock()
	if len(c.asides) < len(c.dests) {
		c.asides = make([]map[string][]string, len(c.dests))
	}
	c.asides[di] = aside
	c.mu.Unlock()
	var need int64
	for _, fp := range c.files {
		if len(fp.dests) < len(c.dests) {
			fp.dests = make([]destPlan, len(c.dests))
		}
		rel := relJoin(c.out, fp.ent.Rel)
		dp := destPlan{rel: rel, target: filepath.Join(d.root, filepath.FromSlash(rel))}
		var prevCopy *catalog.Copy
		if fp.prev != nil {
			for i := range fp.prev.Copies {
				if fp.prev.Copies[i].DestID == d.rec.ID {
					prevCopy = &fp.prev.Copies[i]
				}
			}
		}
		unchanged := fp.prev != nil && fp.prev.Size == fp.ent.Size && fp.prev.Mtime.Equal(fp.ent.Mtime)
		if prevCopy != nil && prevCopy.Path != "" {
			dp.rel = prevCopy.Path
			dp.target = filepath.Join(d.root, filepath.FromSlash(prevCopy.Path))
		}
		dp.prev = prevCopy
		// A copy counts as verified only while its file does: a file that
		// failed (the card read differently twice, a copy that did not
		// verify) has hashes that cannot be trusted, so every copy of it is
		// compared again with a new read of the card, and one this job wrote
		// is replaced when it differs.
		verified := prevCopy != nil && prevCopy.State == StateVerified && fp.prev.State != StateFailed
		// Refused before (the card's file changed after its copy was
		// verified): still the verified footage, refused again while it
		// is there.
		refused := prevCopy != nil && prevCopy.State == StateFailed && strings.HasPrefix(prevCopy.Error, ChangedSinceVerified)
		if refused {
			if _, err := c.j.opts.FS.Lstat(dp.target); err == nil {
				dp.mode = modeRefuse
				fp.dests[di] = dp
				continue
			}
		}
		if verified {
			fi, err := c.j.opts.FS.Lstat(dp.target)
			exists := err == nil
			// Intact: still the size and time dit gave it (the card file's
			// time, within the 2 s of FAT destinations).
			intact := exists && fi.Mode().IsRegular() && fi.Size() == fp.prev.Size &&
				fi.ModTime().Sub(fp.prev.Mtime).Abs() <= 2*time.Second
			switch {
			case unchanged && intact:
				dp.mode = modeDone
				fp.dests[di] = dp
				continue
			case unchanged && exists && c.sealedChain(di, fp, dp):
				// The card's ASC MHL chain, verified, then extended by
				// this job's seal: done (a resume writes nothing).
				dp.mode = modeDone
				fp.dests[di] = dp
				continue
			case !unchanged && exists:
				// A reformatted card with the same names must never
				// overwrite footage verified from the old one.
				dp.mode = modeRefuse
				fp.dests[di] = dp
				continue
			}
			// Changed since it was verified (or gone): compared below like
			// anyone's file, never replaced as dit's own.
		}
		fi, err := c.j.opts.FS.Lstat(dp.target)
		switch {
		case err == nil && c.sealedChain(di, fp, dp):
			// The card's chain that this job's seal extended, whose copy
			// is not recorded verified (a run interrupted between the
			// seal and the catalog): never replaced (it would lose the
			// generations), never a conflict.
			dp.mode = modeSealed
		case err == nil:
			dp.mode = modeCompare
			dp.replaceOwn = prevCopy != nil && prevCopy.Written && !verified
			if dp.replaceOwn && fp.prev != nil && fp.prev.State == StateFailed {
				fp.probe = true
			}
			if dp.replaceOwn || c.j.opts.OnConflict == ConflictRename || !fi.Mode().IsRegular() || fi.Size() != fp.ent.Size {
				need += fp.ent.Size
			}
		case errors.Is(err, fs.ErrNotExist):
			dp.mode = modeWrite
			need += fp.ent.Size
			dp.partial = resumable[fp.ent.Rel]
			if fp.prev != nil && fp.prev.State == StateFailed && len(aside[dp.rel]) > 0 {
				// Its failed copy was moved aside (moveAside) and goes
				// once a new one verifies: that new copy comes, as a
				// replaced one would, from two reads that agree.
				fp.probe = true
			}
		default:
			return 0, fmt.Errorf("cannot check %s: %w", dp.target, err)
		}
		fp.dests[di] = dp
	}
	c.destNeed[di] = need
	return need, nil
}

// checkDestFolders refuses a symbolic link on the way from destination di's
// root to any folder of the card's copy: it could lead onto the card (the
// "copy" would be the card's own file, compared with itself and read back
// as verified, and temps would be written onto the card) or into another
// destination (one physical copy counted as two).
func (c *cardRun) checkDestFolders(di int) error {
	root := c.dests[di].root
	base := filepath.Join(root, filepath.FromSlash(c.out))
	dirs := []string{base}
	for _, dir := range c.scan.Dirs {
		dirs = append(dirs, filepath.Join(base, filepath.FromSlash(dir.Rel)))
	}
	checked := map[string]bool{}
	for _, p := range dirs {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		cur := root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, part)
			exists, seen := checked[cur]
			if !seen {
				fi, err := c.j.opts.FS.Lstat(cur)
				switch {
				case errors.Is(err, fs.ErrNotExist):
				case err != nil:
					return fmt.Errorf("cannot check %s: %w", cur, err)
				case fi.Mode()&fs.ModeSymlink != 0:
					return usageErrorf("%s is a symbolic link: dit writes a card's copy only into real folders of the destination (a link could lead onto the card or into another destination): replace it with a folder, or use another --layout", cur)
				}
				exists = err == nil
				checked[cur] = exists
			}
			if !exists {
				break // created by dit as a real folder
			}
		}
	}
	return nil
}

// fileTask follows one file through the pipeline.
type fileTask struct {
	plan    *filePlan
	active  []bool
	results []destResult
	wg      sync.WaitGroup // destination writers
	sums    <-chan hashing.Sums
	readErr error
	size    int64
	mtime   time.Time
	started time.Time
	copied  time.Time
	rec     *catalog.File

	vmu      sync.Mutex
	vpending int
	srcErr   string
	// unstable: srcErr says the card gave two reads of the file that
	// differ (the copies written now hold one of them, unconfirmed).
	unstable bool
	// aside: the copies of it moved aside (moveAside), under vmu.
	aside []string
	// resumeAt: the furthest offset a copy goes on from (mid-file
	// resume); from: each copy's own (nil: every copy from the start).
	resumeAt int64
	from     []int64
	// proofs: each copy's kept prefix as read back at resume (resume.go;
	// nil: none), which its verification goes on from.
	proofs []*proofRead
}

type destResult struct {
	state   string
	err     string
	rel     string // where the copy is, relative to the destination root
	written bool
}

type wmsgKind int

const (
	wBegin wmsgKind = iota
	wData
	wCheckpoint // make the temp durable this far and record it
	wEnd
)

type wmsg struct {
	kind   wmsgKind
	task   *fileTask
	buf    *buffer
	n      int
	from   int // wData: the copy needs buf.b[from:n] (it goes on from inside the block)
	commit bool
	keep   bool     // wEnd without commit: keep the temp (checkpointed, interrupted)
	offset int64    // wCheckpoint
	digest string   // wCheckpoint: xxh3-64 of the first offset bytes
	ck     *ckState // wCheckpoint: the card side there
}

type vtask struct {
	task *fileTask
	di   int // -1: re-read the source
	path string
}

// run copies and verifies the card. It returns when every file has reached
// its final state or ctx is cancelled.
func (c *cardRun) run(ctx context.Context) {
	j := c.j
	nd := len(c.dests)
	c.ctx = ctx
	if c.absent {
		// A free card of a cascade that is not mounted: its first run is
		// done, a resume does not need it.
		c.setDone()
		return
	}
	if c.from != nil && !c.waitFirstRun(ctx) {
		c.rec.State = "interrupted"
		c.setDone()
		j.cat.UpdateCard(c.rec)
		return
	}
	turn := j.waitTurn(ctx, c)
	if turn == nil {
		c.rec.State = "interrupted"
		c.setDone()
		j.cat.UpdateCard(c.rec)
		return
	}
	// A second run holds its turn while it reads the first copy: once it
	// is copied the next card's second run starts, while this one's
	// copies are read back and sealed.
	var once sync.Once
	release := func() { once.Do(turn) }
	defer release()
	now := j.opts.Now()
	// The card's copy and verify windows span every run of the job: first
	// start, last end (the time actually spent is in the samples).
	c.rec.State, c.rec.Error = "copying", ""
	if c.rec.CopyStarted.IsZero() {
		c.rec.CopyStarted = now
	}
	c.activeAt.Store(now.UnixNano())
	c.phase.Store("copying")
	j.cat.UpdateCard(c.rec)
	for _, s := range c.scan.Skipped {
		j.cat.PutSkipped(c.rec.ID, catalog.Skip{Rel: s.Rel, Kind: s.Kind, Reason: s.Reason})
	}
	// State: a resumed card's state before (verified: this run checks
	// it against its verified copies and copies only what is missing).
	j.emit(Event{Type: EvCardStarted, Card: c.label(), Path: c.rec.Path, State: c.prevState})

	for di, d := range c.dests {
		base := filepath.Join(d.root, filepath.FromSlash(c.out))
		md := mkdirs{fsy: j.opts.FS, root: d.root}
		if err := md.mkdirAll(base); err != nil {
			c.destErr[di] = fmt.Errorf("cannot create %s: %w", base, err)
			continue
		}
		for _, dir := range c.scan.Dirs {
			if err := md.mkdirAll(filepath.Join(base, filepath.FromSlash(dir.Rel))); err != nil {
				c.destErr[di] = fmt.Errorf("cannot create folder %s: %w", dir.Rel, err)
				break
			}
		}
		if c.destErr[di] == nil {
			if err := md.sync(); err != nil {
				c.destErr[di] = err
			}
		}
	}

	p := newPool(j.opts.Buffers, j.opts.BlockSize)
	mh := hashing.NewMulti(j.algos, j.opts.Buffers)
	defer mh.Close()
	writers := make([]chan wmsg, nd)
	var wwg sync.WaitGroup
	for di := range writers {
		writers[di] = make(chan wmsg, j.opts.Buffers)
		wwg.Add(1)
		go func(di int) {
			defer wwg.Done()
			c.writer(di, writers[di])
		}(di)
	}
	verifiers := make([]chan vtask, nd+1)
	var vwg sync.WaitGroup
	if j.opts.Verify != VerifyNone {
		for i := range verifiers {
			if i == nd && j.opts.Verify != VerifySourceDest {
				continue
			}
			verifiers[i] = make(chan vtask, 1<<16)
			vwg.Add(1)
			go func(ch chan vtask) {
				defer vwg.Done()
				c.verifier(ctx, ch)
			}(verifiers[i])
		}
	}
	finish := make(chan *fileTask, j.opts.Buffers*4)
	var fwg sync.WaitGroup
	fwg.Add(1)
	go func() {
		defer fwg.Done()
		c.finisher(ctx, finish, verifiers)
	}()

	var lim *rate.Limiter
	if j.opts.Throttle > 0 {
		lim = rate.NewLimiter(rate.Limit(j.opts.Throttle), j.opts.BlockSize)
	}
	for _, fp := range c.files {
		if ctx.Err() != nil {
			break
		}
		t := c.copyFile(ctx, fp, p, mh, writers, lim)
		if t != nil {
			finish <- t
		}
	}
	for _, w := range writers {
		close(w)
	}
	wwg.Wait()
	close(finish)
	fwg.Wait()
	release()
	if c.rec.CopyFinished.IsZero() || c.bytesCopied.Load() > 0 {
		c.rec.CopyFinished = j.opts.Now()
	}
	if ctx.Err() == nil {
		j.emit(Event{Type: EvCardCopied, Card: c.label()})
	}
	if j.opts.Verify != VerifyNone && ctx.Err() == nil {
		c.phase.Store("verifying")
		c.rec.State = "verifying"
		if c.rec.VerifyStarted.IsZero() {
			c.rec.VerifyStarted = c.verifyStart()
		}
		j.cat.UpdateCard(c.rec)
	}
	for _, v := range verifiers {
		if v != nil {
			close(v)
		}
	}
	vwg.Wait()
	if c.rec.VerifyStarted.IsZero() {
		// Interrupted while copying: its read-back began all the same.
		c.mu.Lock()
		c.rec.VerifyStarted = c.verifyAt
		c.mu.Unlock()
	}
	c.finishCard(ctx)
}

func (c *cardRun) verifyStart() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verifyAt.IsZero() {
		return c.j.opts.Now()
	}
	return c.verifyAt
}

// copyFile reads one file once, feeding the hashers and every destination
// writer. It returns nil when nothing had to be done.
func (c *cardRun) copyFile(ctx context.Context, fp *filePlan, p *pool, mh *hashing.Multi, writers []chan wmsg, lim *rate.Limiter) *fileTask {
	j := c.j
	nd := len(c.dests)
	t := &fileTask{plan: fp, active: make([]bool, nd), results: make([]destResult, nd), started: j.opts.Now(),
		size: fp.ent.Size, mtime: fp.ent.Mtime}
	nActive := 0
	sealed := false
	for di := range fp.dests {
		dp := &fp.dests[di]
		t.results[di].rel = dp.rel
		switch {
		case dp.mode == modeDone:
			t.results[di] = destResult{state: StateVerified, rel: dp.rel, written: dp.prev != nil && dp.prev.Written}
		case dp.mode == modeRefuse:
			// Not written (not ours to replace) from now on: the copy is
			// footage verified from the card as it was, and no later run
			// of this job may overwrite it with what the card holds now.
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, written: false,
				err: fmt.Sprintf(ChangedSinceVerified+" (size %d -> %d, modified %s -> %s); the verified copy at %s is kept: offload the card as a new job",
					fp.prev.Size, fp.ent.Size, fp.prev.Mtime.UTC().Format(time.RFC3339), fp.ent.Mtime.UTC().Format(time.RFC3339), dp.target)}
		case c.destErr[di] != nil:
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, err: c.destErr[di].Error()}
		case dp.mode == modeSealed:
			// Its copy is the card's chain extended by this job's seal
			// (checked when planned): verified as such; the card's file
			// is still read below, for its hashes.
			t.results[di] = destResult{state: StateVerified, rel: dp.rel, written: dp.prev != nil && dp.prev.Written}
			sealed = true
		default:
			t.active[di] = true
			nActive++
		}
	}
	if nActive == 0 && !sealed {
		kept := fp.prev != nil
		for di, r := range t.results {
			kept = kept && (r.state == StateVerified || fp.dests[di].mode == modeRefuse)
		}
		if kept {
			// Nothing to read: keep the recorded source hashes and stat.
			t.sums = closedSums(fp.prev.Sums)
			t.size, t.mtime = fp.prev.Size, fp.prev.Mtime
			return t
		}
		for _, r := range t.results {
			if r.err != "" {
				t.readErr = errors.New(r.err)
				break
			}
		}
		return t
	}
	c.touched.Store(true)
	if msg := c.cardGone(); msg != "" {
		t.readErr = errors.New(msg)
		return t
	}
	c.current.Store(fp.ent.Rel)
	src := filepath.Join(c.scan.Root, filepath.FromSlash(fp.ent.Rel))
	f, err := j.opts.FS.Open(src)
	if err != nil {
		t.readErr = c.readFailure(src, err)
		return t
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		t.readErr = c.readFailure(src, err)
		return t
	}
	if !before.Mode().IsRegular() {
		t.readErr = fmt.Errorf("%s is no longer a regular file", src)
		return t
	}
	t.size, t.mtime = before.Size(), before.ModTime()
	var probe hashing.Sums
	if fp.probe {
		if probe, err = c.probeRead(ctx, src, t.size); err != nil {
			t.readErr = c.readFailure(src, err)
			return t
		}
	}
	// Mid-file resume: big files are checkpointed as they are written; an
	// interrupted one goes on, copy by copy, from the last checkpoint its
	// kept temp still proves, the card read from the start or from the
	// middle, and checked against the checkpoints (resume.go: cardSide);
	// a card whose file is not the one a kept part came from has the file
	// copied again whole (restart).
	var cs *cardSide
	if every := j.opts.CheckpointEvery; every > 0 && t.size >= 2*every && !fp.probe {
		if cs, err = c.newCardSide(ctx, t, f, mh); err != nil {
			t.readErr = c.readFailure(src, err)
			return t
		}
	}
	t.wg.Add(nActive)
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wBegin, task: t}
		}
	}
	var total int64
	if cs != nil {
		total = cs.start
	}
	var rerr error
	for {
		buf, err := p.get(ctx)
		if err != nil {
			rerr = err
			break
		}
		if j.opts.Limiter != nil {
			// Wait before reading, so a pause or a budget holds the card's
			// reads at once (the block about to be read is what is paced).
			want := int(min(int64(len(buf.b)), max(t.size-total, 1)))
			if werr := j.opts.Limiter.WaitRead(ctx, c.rec.Seq, want); werr != nil {
				p.put(buf)
				rerr = werr
				break
			}
		}
		n, err := io.ReadFull(f, buf.b)
		if n > 0 {
			// Read from the card: counted now, even if an interruption
			// stops it before it is written (it was moved all the same).
			c.bytesCopied.Add(int64(n))
			if lim != nil {
				if werr := lim.WaitN(ctx, n); werr != nil {
					buf.refs.Store(1)
					buf.release()
					rerr = werr
					break
				}
			}
			lo := 0 // the hashers and writers get buf.b[lo:n]
			if cs != nil {
				if at := cs.see(total, buf.b[:n]); at > 0 {
					p.put(buf)
					return c.restart(ctx, t, p, mh, writers, lim, at)
				}
				lo = int(min(max(cs.feed-total, 0), int64(n)))
			}
			end := total + int64(n)
			sent := 0
			for di := range writers {
				if t.active[di] && (t.from == nil || end > t.from[di]) {
					sent++
				}
			}
			if lo == n && sent == 0 {
				p.put(buf) // the span a resume reads again, before its point
			} else {
				buf.refs.Store(int32(1 + sent))
				mh.Write(buf.b[lo:n], buf.release)
			}
			for di, w := range writers {
				if t.active[di] && (t.from == nil || end > t.from[di]) {
					m := wmsg{kind: wData, task: t, buf: buf, n: n}
					if t.from != nil && t.from[di] > total {
						m.from = int(t.from[di] - total) // goes on from inside this block
					}
					w <- m
				}
			}
			total = end
			if d, st, ok := cs.checkpoint(total, t.size, mh); ok {
				// Every copy is made durable this far and says so.
				for di, w := range writers {
					if t.active[di] {
						w <- wmsg{kind: wCheckpoint, task: t, offset: total, digest: d, ck: st}
					}
				}
			}
		} else {
			p.put(buf)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			rerr = c.readFailure(src, err)
			break
		}
		if ctx.Err() != nil {
			rerr = ctx.Err()
			break
		}
	}
	if rerr == nil {
		after, err := f.Stat()
		switch {
		case err != nil:
			rerr = c.readFailure(src, err)
		case after.Size() != before.Size() || total != before.Size():
			rerr = fmt.Errorf("%s changed while it was read (size %d before, %d after, %d bytes read): is the card still being written?", src, before.Size(), after.Size(), total)
		case !after.ModTime().Equal(before.ModTime()):
			rerr = fmt.Errorf("%s changed while it was read (modified at %s, before that %s): is the card still being written?", src, after.ModTime().Format(time.RFC3339Nano), before.ModTime().Format(time.RFC3339Nano))
		}
		if rerr == nil {
			if li, err := j.opts.FS.Lstat(src); err != nil || !sameSourceFile(li, after) {
				rerr = fmt.Errorf("%s was replaced or removed while it was read", src)
				if msg := c.cardGone(); msg != "" {
					rerr = errors.New(msg) // the whole card went
				}
			}
		}
	}
	if rerr == nil {
		c.noteRead(src, nil)
	}
	sums := mh.Finish()
	if fp.probe && rerr == nil {
		// Nothing is replaced before the two reads agree.
		got := <-sums
		sums = closedSums(got)
		if a := hashing.Fastest(j.algos); got.Get(a) != probe.Get(a) {
			rerr = fmt.Errorf("%s read differently twice (%s %s, then %s): the card or reader returns unstable data; the earlier copies are left as they are", src, a, probe.Get(a), got.Get(a))
		}
	}
	t.readErr = rerr
	if rerr == nil {
		t.sums = sums
	}
	// An interrupted checkpointed copy keeps its temp for a resume.
	keep := cs != nil && errors.Is(rerr, context.Canceled)
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wEnd, task: t, commit: rerr == nil, keep: keep}
		}
	}
	t.copied = j.opts.Now()
	return t
}

// resume finds, for each active copy of a checkpointed file, the offset
// it goes on from: the last checkpoint its kept temp still proves (read
// back from its destination, all copies at once, with the digest recorded
// when the card was read), 0 for a copy with none. nil: no copy goes on
// from a checkpoint.
func (c *cardRun) resume(ctx context.Context, t *fileTask) []resumePoint {
	fp := t.plan
	pts := make([]resumePoint, len(fp.dests))
	var wg sync.WaitGroup
	for di := range fp.dests {
		q := fp.dests[di].partial
		if !t.active[di] || q == nil || q.Size != t.size || !q.Mtime.Equal(t.mtime) { // as the card's file is now
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pts[di] = c.provenPoint(ctx, di, q)
		}()
	}
	wg.Wait()
	for _, pt := range pts {
		if pt.at > 0 {
			return pts
		}
	}
	return nil
}

// restart copies a file again whole after a mid-file resume found, at
// offset at, that the card's file is not the one a kept part came from
// (same size and time, other bytes): this run's writes of it are undone
// (the kept temps go), a warning says why, and the file is read again
// from the start, every copy written from that one read.
func (c *cardRun) restart(ctx context.Context, t *fileTask, p *pool, mh *hashing.Multi, writers []chan wmsg, lim *rate.Limiter, at int64) *fileTask {
	j := c.j
	fp := t.plan
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wEnd, task: t, commit: false}
		}
	}
	t.wg.Wait()
	mh.Reset()
	msg := fmt.Sprintf("%s changed on the card since the interrupted copy (its first %s read now differ from what was copied then, under the same size and time): copied again whole from the card as it is now",
		fp.ent.Rel, units.FormatBytes(at))
	j.emit(Event{Type: EvWarning, Card: c.label(), Path: fp.ent.Rel, Message: msg})
	j.addWarning(c.rec.Label + ": " + msg)
	for di := range fp.dests {
		fp.dests[di].partial = nil
	}
	return c.copyFile(ctx, fp, p, mh, writers, lim)
}

// probeRead hashes the card's file src (the fastest hash) with a read of
// its own, paced as a re-read of the card.
func (c *cardRun) probeRead(ctx context.Context, src string, size int64) (hashing.Sums, error) {
	j := c.j
	mh := hashing.NewMulti([]hashing.Algo{hashing.Fastest(j.algos)}, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(j.opts.BlockSize), fsys.Block(j.opts.BlockSize)}
	var wait func(int) error
	if lim := j.opts.Limiter; lim != nil {
		wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, -1, n) }
	}
	sums, n, err := hashFile(ctx, j.opts.FS, src, size, bufs, mh, wait, func(int) {})
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes read, %d expected: is the card still being written?", n, size)
	}
	return sums, err
}

func closedSums(s hashing.Sums) <-chan hashing.Sums {
	ch := make(chan hashing.Sums, 1)
	ch <- s
	return ch
}

// readFailure turns a read error into the file's failure reason, and
// notices a card that has gone away.
func (c *cardRun) readFailure(src string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if msg := c.cardGone(); msg != "" {
		return errors.New(msg)
	}
	c.noteRead(src, err)
	if msg := c.cardGone(); msg != "" {
		return errors.New(msg)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s vanished from the card before it was copied", src)
	}
	if errors.Is(err, syscall.EIO) {
		return fmt.Errorf("cannot read %s: %w (a bad spot on the card, or a failing card or reader)", src, syscall.EIO)
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("cannot read %s: permission denied: %w", src, err)
	}
	return fmt.Errorf("cannot read %s: %w", src, err)
}

// cardGone returns a reason when the card root is no longer the volume that
// was scanned (pulled, unmounted); from then on no file is attempted.
func (c *cardRun) cardGone() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cardErr != "" {
		return c.cardErr
	}
	fi, err := c.j.opts.FS.Lstat(c.scan.Root)
	gone := err != nil
	if !gone && c.scan.VolumeID != "" {
		if id := fsys.VolumeID(fi); id != "" {
			gone = id != c.scan.VolumeID
		}
	}
	if gone {
		c.cardErr = fmt.Sprintf("card %s removed: %s is no longer there (pulled or unmounted) after %d of %d files: reinsert it and run %s",
			c.rec.Label, c.scan.Root, c.readOK.Load(), len(c.files), c.j.ResumeCommand())
	}
	return c.cardErr
}

// ioErrorsInARow is how many files in a row must fail with input/output
// errors before dit takes the card (or its reader) as gone.
const ioErrorsInARow = 3

// noteRead tells a bad spot from a card that stopped answering. After a
// file read whole (src) it remembers the file; after an input/output error
// it reads the start of that file again from the medium: if a file that
// read well before fails now, the card or its reader is gone, and the
// card's remaining files fail with one message, not one error each. When
// there is no such file yet, ioErrorsInARow files failing in a row say
// the same.
func (c *cardRun) noteRead(src string, err error) {
	if err == nil {
		c.readOK.Add(1)
		c.eioRow.Store(0)
		c.lastOK.Store(src)
		return
	}
	if !errors.Is(err, syscall.EIO) && !errors.Is(err, syscall.ENXIO) && !errors.Is(err, syscall.ENODEV) && !errors.Is(err, syscall.ENOTCONN) {
		c.eioRow.Store(0)
		return
	}
	row := c.eioRow.Add(1)
	why := ""
	if good, _ := c.lastOK.Load().(string); good != "" {
		if perr := c.probe(good); perr != nil {
			var errno syscall.Errno
			if errors.As(perr, &errno) {
				perr = errno
			}
			rel, _ := filepath.Rel(c.scan.Root, good)
			why = fmt.Sprintf("%s, read before, now gives: %v", filepath.ToSlash(rel), perr)
		}
	}
	if why == "" && row >= ioErrorsInARow {
		why = fmt.Sprintf("read errors on %d files in a row", row)
	}
	if why == "" {
		return
	}
	c.mu.Lock()
	if c.cardErr == "" {
		c.cardErr = fmt.Sprintf("card %s stopped answering after %d of %d files (%s): reinsert it (or try another reader) and run %s",
			c.rec.Label, c.readOK.Load(), len(c.files), why, c.j.ResumeCommand())
	}
	c.mu.Unlock()
}

// probe reads the first block of a card file again from the medium.
func (c *cardRun) probe(p string) error {
	f, err := c.j.opts.FS.OpenNoCache(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var b [4096]byte
	if _, err := f.Read(b[:]); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// sameSourceFile compares two infos of the source file.
func sameSourceFile(a, b fs.FileInfo) bool {
	same, known := fsys.SameInode(a, b)
	if !known {
		return a.Size() == b.Size()
	}
	return same
}

// finisher records each file once its writers are done, and hands the
// copies to the verifiers.
func (c *cardRun) finisher(ctx context.Context, in <-chan *fileTask, verifiers []chan vtask) {
	j := c.j
	for t := range in {
		t.wg.Wait()
		var sums hashing.Sums
		if t.readErr == nil {
			sums = <-t.sums
			c.checkKept(t, sums)
			c.checkHistory(t, sums)
			if msg := c.checkExpect(t, sums); msg != "" {
				c.dropWritten(t)
				t.readErr = errors.New(msg)
			}
		}
		f := &catalog.File{CardID: c.rec.ID, Rel: t.plan.ent.Rel, Size: t.size, Mtime: t.mtime, Sums: sums,
			CopyStarted: t.started, CopyFinished: t.copied, State: StateCopied}
		if t.plan.prev != nil && t.readErr == nil && allModeDone(t.plan) {
			f.CopyStarted, f.CopyFinished = t.plan.prev.CopyStarted, t.plan.prev.CopyFinished
		}
		t.rec = f
		if t.readErr != nil {
			if errors.Is(t.readErr, context.Canceled) {
				// Interrupted: the file stays pending for a resume.
				continue
			}
			f.State, f.Error = StateFailed, t.readErr.Error()
			for di := range t.results {
				if t.results[di].state == "" || t.active[di] {
					// A copy of ours already there stays ours (a later run
					// may still replace it).
					dp := t.plan.dests[di]
					own := dp.mode == modeCompare && dp.replaceOwn
					t.results[di] = destResult{state: StateFailed, rel: t.results[di].rel, written: own, err: "not copied: " + t.readErr.Error()}
				}
			}
		}
		j.cat.PutFile(f)
		if c.partials[f.Rel] != nil || t.resumeAt > 0 || (j.opts.CheckpointEvery > 0 && t.size >= 2*j.opts.CheckpointEvery) {
			j.cat.DeletePartials(c.rec.ID, f.Rel) // copied (or failed): no resume from the middle any more
		}
		var todo []vtask
		for di, r := range t.results {
			cp := &catalog.Copy{DestID: c.dests[di].rec.ID, Path: r.rel, State: r.state, Written: r.written, Error: r.err}
			if dp := t.plan.dests[di]; dp.mode == modeDone && r.state == StateVerified && dp.prev != nil {
				// Verified by an earlier run: keep when and how.
				cp.VerifyAlgos, cp.VerifiedAt = dp.prev.VerifyAlgos, dp.prev.VerifiedAt
			} else if dp.mode == modeSealed && r.state == StateVerified {
				cp.VerifiedAt = j.opts.Now() // the chain checked now (sealedChain)
			}
			j.cat.PutCopy(c.rec.ID, f.Rel, cp)
			if (r.state == StateCopied || r.state == StatePresent) && j.opts.Verify != VerifyNone {
				todo = append(todo, vtask{task: t, di: di, path: filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel))})
			}
		}
		if len(todo) > 0 && j.opts.Verify == VerifySourceDest {
			todo = append(todo, vtask{task: t, di: -1, path: filepath.Join(c.scan.Root, filepath.FromSlash(f.Rel))})
		}
		if len(todo) == 0 {
			c.finalize(t)
			continue
		}
		c.touched.Store(true)
		c.mu.Lock()
		if c.verifyAt.IsZero() {
			c.verifyAt = j.opts.Now()
		}
		c.mu.Unlock()
		t.vpending = len(todo)
		for _, v := range todo {
			idx := v.di
			if idx < 0 {
				idx = len(c.dests)
			}
			select {
			case verifiers[idx] <- v:
			case <-ctx.Done():
			}
		}
	}
}

// checkKept compares a file read again on resume (another destination
// needed it) with the hashes its kept copies were verified against. Same
// size and time but other bytes: an unstable card or reader, or another
// card at the same path. A kept copy was never compared with the new
// hashes, so it is not verified against them, and the file fails.
func (c *cardRun) checkKept(t *fileTask, sums hashing.Sums) {
	prev := t.plan.prev
	if prev == nil {
		return
	}
	for di := range t.results {
		dp := t.plan.dests[di]
		if dp.mode != modeDone || t.active[di] {
			continue
		}
		if _, bad, ok := sums.Compare(prev.Sums); !ok {
			msg := fmt.Sprintf("the card's file reads differently now (%s %s) than when this job verified its copy at %s (%s %s), under the same size and time: an unstable card or reader, or another card at %s? The earlier copy is kept",
				bad, sums.Get(bad), dp.target, bad, prev.Sums.Get(bad), c.scan.Root)
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, written: dp.prev != nil && dp.prev.Written, err: msg}
			t.srcErr, t.unstable = msg, true
		}
	}
}

// checkHistory compares a file read from the card with the hashes the
// card's own ASC MHL history records for it (an earlier hop: the camera,
// another tool). A difference means the card changed since that hop, or
// reads wrong: a finding the DIT must act on, so the file fails (the card
// is not safe to format), naming both hashes.
func (c *cardRun) checkHistory(t *fileTask, sums hashing.Sums) {
	r := c.history[t.plan.ent.Rel]
	if r == nil {
		return
	}
	for _, a := range hashing.All {
		recorded, ok := r.Values[a]
		if got := sums.Get(a); !ok || got == "" || got == recorded {
			continue
		}
		t.srcErr = fmt.Sprintf("differs from the card's own ASC MHL history (an earlier hop, generation %d): %s recorded %s, read now %s: the card changed since, or reads wrong; it is not safe to format: check the card and the earlier copies",
			r.FirstSeq, a, recorded, sums.Get(a))
		return
	}
}

// historyMissing lists the files the card's own ASC MHL history records
// (and did not record as failed) that the card does not have now (left
// out on purpose with --ignore excepted).
func (c *cardRun) historyMissing() []string {
	if len(c.history) == 0 {
		return nil
	}
	var ign *ignore.Matcher
	if len(c.j.opts.Ignore) > 0 {
		ign = ignore.New(c.j.opts.Ignore)
	}
	var out []string
	for rel, r := range c.history {
		if c.names[rel] || r.LastFailed || (ign != nil && ign.Match(rel, false)) {
			continue
		}
		out = append(out, ascmhl.DisplayName(rel))
	}
	sort.Strings(out)
	return out
}

func allModeDone(fp *filePlan) bool {
	for _, d := range fp.dests {
		if d.mode != modeDone {
			return false
		}
	}
	return true
}

// verifier reads copies back from the medium and compares them with the
// source hashes.
func (c *cardRun) verifier(ctx context.Context, in <-chan vtask) {
	j := c.j
	var bufs [][]byte
	mh := hashing.NewMulti(j.valgos, 2)
	defer mh.Close()
	for v := range in {
		if ctx.Err() != nil {
			continue // drain: interrupted files stay unverified
		}
		if bufs == nil {
			bufs = [][]byte{fsys.Block(j.opts.BlockSize), fsys.Block(j.opts.BlockSize)}
		}
		var counter *atomic.Int64
		if v.di >= 0 {
			counter = &c.destVerif[v.di]
		}
		var wait func(int) error
		if lim := j.opts.Limiter; lim != nil {
			di := v.di // -1: the card re-read
			if di >= 0 {
				di = c.dests[di].rec.Seq
			}
			wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, di, n) }
		}
		if v.di >= 0 {
			c.vcurrent.Store(v.task.rec.Rel)
			c.destCur[v.di].Store(v.task.rec.Rel)
		}
		got, n, err := c.readBack(ctx, v, bufs, mh, wait, func(n int) {
			if counter != nil {
				counter.Add(int64(n))
				c.bytesVerif.Add(int64(n))
			}
		})
		if v.di >= 0 {
			c.destCur[v.di].Store("")
		}
		want := v.task.rec.Sums
		var state, reason string
		switch {
		case errors.Is(err, context.Canceled):
			continue
		case err != nil:
			state, reason = StateFailed, "read-back failed: "+err.Error()
		case n != v.task.size:
			state, reason = StateFailed, fmt.Sprintf("read-back size %d differs from the source's %d", n, v.task.size)
		default:
			if algos, bad, ok := got.Compare(want); !ok {
				if len(algos) == 0 {
					state, reason = StateFailed, "no hash to compare"
				} else {
					state, reason = StateFailed, fmt.Sprintf("%s mismatch: source %s, read back %s", bad, want.Get(bad), got.Get(bad))
				}
			} else {
				state = StateVerified
			}
		}
		if v.di < 0 {
			if state != StateVerified {
				v.task.srcErr = "source re-read: " + reason + " (the card or reader returns unstable data)"
				v.task.unstable = true
			}
		} else {
			r := v.task.results[v.di]
			cp := &catalog.Copy{DestID: c.dests[v.di].rec.ID, Path: r.rel, State: state, Written: r.written,
				VerifyAlgos: hashing.Names(j.valgos), Error: reason}
			if state == StateVerified {
				cp.VerifiedAt = j.opts.Now()
				c.removeAside(v.di, r.rel)
			} else if !r.written {
				cp.Error = "verify: " + reason + " (copy at " + v.path + ")"
			} else {
				// Ours: it never keeps the card's file name.
				cp.Error = "verify: " + reason + c.asideNote(v.task, v.path)
			}
			v.task.results[v.di].state, v.task.results[v.di].err = state, cp.Error
			j.cat.PutCopy(c.rec.ID, v.task.rec.Rel, cp)
		}
		v.task.vmu.Lock()
		v.task.vpending--
		last := v.task.vpending == 0
		v.task.vmu.Unlock()
		if last {
			c.finalize(v.task)
		}
	}
}

// finalize records a file's final state and tells the front ends.
func (c *cardRun) finalize(t *fileTask) {
	j := c.j
	f := t.rec
	if f.State != StateFailed {
		all := true
		failed := false
		var why []string
		for _, r := range t.results {
			all = all && r.state == StateVerified
			if r.state == StateFailed || r.state == StateSkipped {
				failed = true
				if r.err != "" {
					why = append(why, r.err)
				}
			}
		}
		switch {
		case t.srcErr != "":
			f.State, f.Error = StateFailed, t.srcErr
			// The copies hold what the first read gave: equal to hashes the
			// card did not give again, so none of them is verified.
			for di, r := range t.results {
				if r.state != StateVerified {
					continue
				}
				msg := "not verified: " + t.srcErr
				if t.unstable && t.active[di] && r.written {
					// Written now from a read the card did not give
					// again: it does not keep the card's file name.
					msg += c.asideNote(t, filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel)))
				}
				t.results[di].state, t.results[di].err = StateFailed, msg
				j.cat.PutCopy(c.rec.ID, f.Rel, &catalog.Copy{DestID: c.dests[di].rec.ID, Path: r.rel, State: StateFailed,
					Written: r.written, Error: msg})
			}
			t.vmu.Lock()
			if len(t.aside) > 0 {
				f.Error += "; the copies that did not verify were moved aside to " + strings.Join(t.aside, ", ")
			}
			t.vmu.Unlock()
		case failed:
			f.State, f.Error = StateFailed, strings.Join(why, "; ")
		case all:
			f.State = StateVerified
		default:
			f.State = StateCopied
		}
		j.cat.PutFile(f)
	}
	if f.State == StateVerified && crashpoint.On() {
		if j.cat.Flush() == nil {
			crashpoint.Hit(fmt.Sprintf("file: verified, run %d", max(c.rec.Hop, 1)))
		}
	}
	if f.State == StateFailed {
		c.filesFailed.Add(1)
	}
	for di, r := range t.results {
		if r.state == StateFailed || r.state == StateSkipped {
			c.destFailed[di].Add(1)
		}
	}
	c.filesDone.Add(1)
	ev := Event{Type: EvFile, Card: c.label(), Path: f.Rel, State: f.State, Message: f.Error}
	for di, r := range t.results {
		ev.Copies = append(ev.Copies, CopyState{Dest: c.dests[di].root, State: r.state, Error: r.err})
	}
	j.emit(ev)
}

// fatEpoch is just after the earliest time a FAT or exFAT volume can
// record (1980-01-01, local time): a card root before it has no real time
// of its own.
var fatEpoch = time.Date(1980, 1, 2, 0, 0, 0, 0, time.UTC)

// finishCard sets folder mtimes and the card's final state.
func (c *cardRun) finishCard(ctx context.Context) {
	j := c.j
	now := j.opts.Now()
	if j.opts.Verify != VerifyNone && !c.rec.VerifyStarted.IsZero() && (c.rec.VerifyFinished.IsZero() || c.bytesVerif.Load() > 0) {
		c.rec.VerifyFinished = now
	}
	dirs := append([]source.Entry(nil), c.scan.Dirs...)
	sort.Slice(dirs, func(a, b int) bool { return strings.Count(dirs[a].Rel, "/") > strings.Count(dirs[b].Rel, "/") })
	for _, d := range c.dests {
		for _, dir := range dirs {
			p := filepath.Join(d.root, filepath.FromSlash(c.out), filepath.FromSlash(dir.Rel))
			j.opts.FS.Chtimes(p, dir.Mtime, dir.Mtime)
		}
		// The card folder is the card's root: it gets the root's time too,
		// unless the card's file system has none (FAT and exFAT roots
		// report 1970 or 1980): then it keeps the time of the copy.
		if rt := c.scan.Mtime; rt.After(fatEpoch) {
			j.opts.FS.Chtimes(filepath.Join(d.root, filepath.FromSlash(c.out)), rt, rt)
		}
	}
	var final string
	missing := c.historyMissing()
	lost := c.expectMissing()
	unreadable := c.unreadable()
	switch {
	case ctx.Err() != nil:
		c.rec.State = "interrupted"
	case len(lost) > 0:
		final = StateFailed
		c.failLostFirstCopies(lost)
		shown := lost
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(lost)-5))
		}
		c.rec.Error = fmt.Sprintf("second run: %d file(s) verified in the first run are missing from the first copy %s: %s: it lost them since; the card is NOT safe to format: keep the card and copy it again",
			len(lost), DisplayPath(c.from.dests[0].root, c.out), strings.Join(shown, ", "))
	case len(missing) > 0:
		final = StateFailed
		shown := missing
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(missing)-5))
		}
		c.rec.Error = fmt.Sprintf("%d file(s) the card's own ASC MHL history (an earlier hop) lists are not on the card: %s: the card lost them since, and its history will not verify on the copies; it is not safe to format: check the card and the earlier copies",
			len(missing), strings.Join(shown, ", "))
	case c.cardGone() != "":
		final, c.rec.Error = StateFailed, c.cardGone()
	case c.filesFailed.Load() > 0:
		final = StateFailed
		c.rec.Error = fmt.Sprintf("%d file(s) failed", c.filesFailed.Load())
	case len(unreadable) > 0:
		// What could not be read was not copied: the card is not whole
		// on any destination, whatever was verified.
		u := unreadable
		shown := u
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(u)-5))
		}
		final = StateFailed
		c.rec.Error = fmt.Sprintf("%d entr(ies) on the card could not be read and were not copied: %s: it is NOT safe to format: make them readable (permissions, a failing card) and offload it again",
			len(u), strings.Join(shown, ", "))
	case j.opts.Verify == VerifyNone:
		final = StateCopied
	default:
		final = StateVerified
	}
	if final == "" {
		c.setDone()
		c.current.Store("")
		j.cat.UpdateCard(c.rec)
		return
	}
	// Copied and verified, now sealed: the card's hash lists are written
	// on every destination before it may read "verified" (safe to format).
	// A card sealed in an earlier run of the job that this run did not
	// touch is not sealed again (a resume with nothing to do writes
	// nothing).
	sealedBefore := c.prevState == StateVerified || c.prevState == StateCopied || c.prevState == StateFailed
	if j.opts.Seal == nil || (sealedBefore && !c.touched.Load()) {
		c.rec.State = final
	} else {
		if c.rec.Sealed.IsZero() || c.touched.Load() {
			// A new seal time, hence a new generation; an unfinished seal
			// of an untouched card keeps its time and is redone as itself.
			c.rec.Sealed = j.opts.Now()
		}
		c.rec.State = catalog.CardSealing
		c.phase.Store("sealing")
		j.cat.UpdateCard(c.rec)
		if err := j.cat.Flush(); err == nil {
			crashpoint.Hit("card: sealing recorded")
		}
		problems := c.seal(ctx)
		// A card whose lists are not all written stays sealing, whatever
		// else happened to it: a resume writes them (a card that ended
		// failed, verified or copied only once they are written, so a
		// resume with nothing to copy never takes it as sealed).
		switch {
		case len(problems) == 0:
			c.rec.State = final
		case ctx.Err() != nil:
		case final == StateFailed && c.rec.Error != "":
			c.rec.Error += "; " + strings.Join(problems, "; ")
		default:
			c.rec.Error = strings.Join(problems, "; ")
		}
	}
	if c.rec.State == StateVerified && (c.rec.DoneAt.IsZero() || c.touched.Load()) {
		c.rec.DoneAt = j.opts.Now()
	}
	c.setDone()
	c.current.Store("")
	j.cat.UpdateCard(c.rec)
	if err := j.cat.Flush(); err == nil && c.rec.State != catalog.CardSealing {
		crashpoint.Hit("card: sealed")
	}
}

// unreadable lists the card's entries its scan could not read.
func (c *cardRun) unreadable() []string {
	var out []string
	for _, s := range c.scan.Skipped {
		if s.Kind == "unreadable" {
			out = append(out, s.Rel)
		}
	}
	return out
}

// ChangedSinceVerified begins the error of a file whose card file changed
// after the job verified its copy: the copy is kept, and only a new job
// copies the card as it is now.
const ChangedSinceVerified = "the card's file changed since this job verified its copy"

// setDone ends the run's phases (phase "done", at doneAt).
func (c *cardRun) setDone() {
	c.doneAt.Store(c.j.opts.Now().UnixNano())
	c.phase.Store("done")
	c.vcurrent.Store("")
}

// fromOf is the offset copy di goes on from (0: the start).
func (t *fileTask) fromOf(di int) int64 {
	if t.from == nil {
		return 0
	}
	return t.from[di]
}
