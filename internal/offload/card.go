package offload

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/resume"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/internal/verdict"
)

// Copy states (catalog.Copy.State; summary's, where the read model
// reads them).
const (
	StatePending  = summary.StatePending
	StateCopied   = summary.StateCopied
	StatePresent  = summary.StatePresent
	StateVerified = summary.StateVerified
	StateFailed   = summary.StateFailed
	StateSkipped  = summary.StateSkipped
)

// cardRun is one card's pipeline. Its state is grouped by concern, each
// group embedded (its fields read as the run's own): what the run counts
// (cardCounts), what it took over from earlier runs (cardResume), its
// place among the hops (cardHops), the card's health (cardHealth), its
// remote destinations (cardStores).
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
	// prev are the earlier runs' records of the card's files (nil: a
	// card new to the job), read a window at a time (prevrecords.go).
	prev *prevRecords
	// list is the card's plan, compact (planlist.go): its files in the
	// scan's order; each file's plan is made from it when it is read.
	list *planList
	// resumable: per destination, the kept temps a resume goes on
	// writing, by the card file's path (resumableTemps).
	resumable []map[string]*catalog.Partial

	// touched: this run read or verified something of the card.
	touched atomic.Bool
	// resealed: this run sealed the card (again): what it records is
	// news, even when its state stays as it was (a seal failing again).
	resealed bool

	cardCounts
	cardResume
	cardHops
	cardHealth
	cardStores

	ctx     context.Context // the job's context, for the writers' limiter waits
	mu      sync.Mutex
	destErr []error
}

// cardCounts is what a card's run counts: the progress sampler and
// the live model read it without a lock (the totals are set before the
// run starts).
type cardCounts struct {
	// files is how many files the card has (the plan's, kept once the
	// plan is released before the seal: releasePlan).
	files       int
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
	// lc: what the run counts for the live model (live.go).
	lc liveCounts
	// verifyAt is when the read-back began (under cardRun.mu).
	verifyAt time.Time
}

// cardResume is what a card's run takes over from the job's earlier runs.
type cardResume struct {
	// rechecks count the copies verified by an earlier run that this
	// run reads again, by why (vouch); set while planning.
	rechecks [recheckKinds]int
	// notReread: the card's bytes a resume did not read again (the kept
	// prefixes of files going on from the middle), and of how many files.
	notReread, notRereadFiles atomic.Int64
	// partials are the checkpoints an interrupted run left (mid-file
	// resume): rel -> destination id -> checkpoint.
	partials map[string]map[int64]*catalog.Partial
	// asides are, per destination, the failed copies moved aside
	// (FailedSuffix) found when planning: copy path (relative to the
	// destination root) -> their paths. A copy of that path that
	// verifies replaces them (removeAside).
	asides []map[string][]string
	// prevState is the card's state when the job was resumed ("" for a
	// new job).
	prevState string
}

// cardHops is a card's run among the hops: what earlier hops recorded,
// and a cascade's link between a card's two runs (cascade.go).
type cardHops struct {
	// history is what an ASC MHL history on the card records (an earlier
	// hop), by path: every file read is checked against it.
	history *ascmhl.Records
	// expect (a cascade's second run) are the hashes the card gave in the
	// first run, by path: every file read from the first copy must have
	// them. from is the hop-1 card; absent: a hop-1 card that is free and
	// not mounted, which a resume does not need.
	expect *cascade.Expect
	from   *cardRun
	absent bool
	// firstSealed (a second run): the first copy's chain file is the
	// card's extended by the first run's own seal (firstRunSealed).
	firstSealedOnce sync.Once
	firstSealed     bool
	// ran is closed when the card's run has returned (startCard): a
	// resumed second run waits for its card's first run to be over.
	ran chan struct{}
}

// cardHealth is whether the card still answers (health.go).
type cardHealth struct {
	readOK atomic.Int64 // files read whole from the card in this run
	eioRow atomic.Int64 // files in a row that failed with I/O errors
	lastOK atomic.Value // string: the last card file read whole
	// cardErr: the card became unreadable (under cardRun.mu).
	cardErr string
}

// cardStores are a card run's remote destinations (store.go).
type cardStores struct {
	// stores are the card's remote destinations, by index (nil: a folder
	// or an array), each keeping the card's listings there.
	stores []dest.Store
	// storeChain (a card sealed on its stores) is the card's ASC MHL
	// chain file, whose copy is the history's chain (storeseal.go).
	storeChain *storeFile
	// marks are what a store run keeps of each file between its upload
	// and its read-back (storewindow.go): a byte a destination, by the
	// list's index, paged to disk as the plan's are (planMarks); down
	// is, by destination, why its every copy failed (its listing; under
	// cardRun.mu), "" none.
	marks *planMarks
	down  []string
	// cardHistory are the card's files in its top-level ascmhl folder
	// (a store run's seal stages them), kept when the plan is let go.
	cardHistory []source.Entry
}

// newCardRun is card k's run on the scan sc, into folder out of each of
// its destinations; resumed: the job recorded the card's files before
// (its earlier runs' records are read as the plan and the run come to
// them).
func (j *Job) newCardRun(sc *source.Card, k *catalog.Card, out string, resumed bool) *cardRun {
	c := &cardRun{j: j, dests: j.hopDests(k.Hop), scan: sc, rec: k, out: out}
	c.ran = make(chan struct{})
	if resumed {
		c.prev = newPrevRecords(j.cat, k.ID)
	}
	c.cardCounts.files = sc.Files.Len()
	c.list = newPlanList(sc.Files, len(c.dests))
	if !c.storeRun() {
		// The plan is made on the scan's own list (not a copy): the card
		// lets go of it with the plan (releasePlan); a cloud run's
		// emptyDirs reads it from the scan.
		sc.Files = nil
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
	c.lc.dests = make([]destLive, nd)
	for di := range c.destCur {
		c.destCur[di].Store("")
	}
	c.vcurrent.Store("")
	c.openStores()
	return c
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
	proofs []*resume.Proof
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
	keep   bool               // wEnd without commit: keep the temp (checkpointed, interrupted)
	offset int64              // wCheckpoint
	digest string             // wCheckpoint: xxh3-64 of the first offset bytes
	ck     *resume.Checkpoint // wCheckpoint: the card side there
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
	c.ctx = ctx
	if c.absent {
		// A verified card that is not mounted (in a cascade: free): its
		// first run is done, a resume does not need it; its copies that
		// are not vouched for are read again first (absent.go).
		if c.from == nil {
			c.absentNotice(c.recheckAbsent(ctx))
		}
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
	if c.storeRun() {
		c.runStore(ctx)
		release()
		c.finishCard(ctx)
		return
	}
	c.startCopying()
	c.makeDestFolders()

	// The read-ahead (ahead.go): up to filesInFlight files hashed and
	// written at once behind the one reader, each with its own hashers.
	p := newPool(j.opts.Buffers*filesInFlight, j.opts.BlockSize)
	hr := newHashRing(j.algos, j.opts.Buffers, filesInFlight)
	defer hr.close()
	writers, wwg := c.startWriters()
	verifiers, vwg := c.startVerifiers(ctx)
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
	for i := range c.list.len() {
		if ctx.Err() != nil {
			break
		}
		fp := c.runPlan(i)
		t := c.copyFile(ctx, fp, p, hr, writers, lim)
		if t != nil {
			finish <- t
		} else {
			c.planDone(fp)
		}
	}
	for _, w := range writers {
		close(w)
	}
	wwg.Wait()
	close(finish)
	fwg.Wait()
	release()
	c.endCopying(ctx)
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

// startCopying records and announces that the card's copy starts.
func (c *cardRun) startCopying() {
	j := c.j
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
	for s := range c.scan.Skipped.All() {
		j.cat.PutSkipped(c.rec.ID, catalog.Skip{Rel: s.Rel, Kind: s.Kind, Reason: s.Reason})
	}
	// State: a resumed card's state before (verified: this run checks
	// it against its verified copies and copies only what is missing).
	j.emit(Event{Type: EvCardStarted, Card: c.label(), Hop: hopOf(c.rec), Path: c.rec.Path, State: verdict.State(c.prevState)})
}

// makeDestFolders creates the card's folders on each destination and
// makes their paths durable; a destination where that fails has its
// error (destErr), and its copies fail.
func (c *cardRun) makeDestFolders() {
	j := c.j
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
}

// startWriters starts one writer per destination; the group is done
// when every writer has returned (its channel closed).
func (c *cardRun) startWriters() ([]chan wmsg, *sync.WaitGroup) {
	writers := make([]chan wmsg, len(c.dests))
	var wwg sync.WaitGroup
	for di := range writers {
		// Room for the blocks of every file in flight and their begin
		// and end: a writer lags the reader by up to filesInFlight files.
		writers[di] = make(chan wmsg, (c.j.opts.Buffers+2)*filesInFlight)
		wwg.Add(1)
		go func(di int) {
			defer wwg.Done()
			c.writer(di, writers[di])
		}(di)
	}
	return writers, &wwg
}

// startVerifiers starts one verifier per destination, and one more (the
// last) re-reading the card for VerifySourceDest; none without
// verification (nil channels).
// verifyQueue is how many copies may wait for their read-back on each
// destination (and for the card's re-read) while the copy goes on: the
// files in flight, each held with its task and hashes (~1 kB), whatever
// the card's file count: at most ~4 MB a destination. Beyond it the copy
// waits for the read-back; 4,096 files is 32 GB of 8 MB frames, far more
// than any read-back lags. A var for tests (a small window over a small
// card: planwindow_test.go).
var verifyQueue = 4096

func (c *cardRun) startVerifiers(ctx context.Context) ([]chan vtask, *sync.WaitGroup) {
	j := c.j
	nd := len(c.dests)
	verifiers := make([]chan vtask, nd+1)
	var vwg sync.WaitGroup
	if j.opts.Verify != VerifyNone {
		for i := range verifiers {
			if i == nd && j.opts.Verify != VerifySourceDest {
				continue
			}
			verifiers[i] = make(chan vtask, verifyQueue)
			vwg.Add(1)
			go func(ch chan vtask) {
				defer vwg.Done()
				c.verifier(ctx, ch)
			}(verifiers[i])
		}
	}
	return verifiers, &vwg
}

// endCopying records that the card's reads are over (every copy written)
// and, unless interrupted, announces it and that it is being verified.
func (c *cardRun) endCopying(ctx context.Context) {
	j := c.j
	if c.rec.CopyFinished.IsZero() || c.bytesCopied.Load() > 0 {
		c.rec.CopyFinished = j.opts.Now()
	}
	if ctx.Err() == nil {
		j.emit(Event{Type: EvCardCopied, Card: c.label(), Hop: hopOf(c.rec)})
	}
	if j.opts.Verify != VerifyNone && ctx.Err() == nil {
		c.phase.Store("verifying")
		c.rec.State = "verifying"
		if c.rec.VerifyStarted.IsZero() {
			c.rec.VerifyStarted = c.verifyStart()
		}
		j.cat.UpdateCard(c.rec)
	}
}

// fromOf is the offset copy di goes on from (0: the start).
func (t *fileTask) fromOf(di int) int64 {
	if t.from == nil {
		return 0
	}
	return t.from[di]
}
