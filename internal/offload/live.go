package offload

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/live"
)

// liveCounts are what a run counts for the live model (package live)
// besides the pipeline's own byte counters: files read whole, bytes
// sent again after a retry, and per destination the read-back's files
// and working time, retries and the last error seen there.
type liveCounts struct {
	copyFiles   int // files the run reads from its source
	filesCopied atomic.Int64
	resent      atomic.Int64
	retries     atomic.Int64
	// sealEach: the files each destination's hash lists name (set when
	// the run begins writing them; 0: it has not, or writes none).
	sealEach atomic.Int64
	// proxies, proxiesMade: the card's clips to make proxies of and
	// those done with (CountProxies).
	proxies, proxiesMade atomic.Int64
	dests                []destLive
}

// CountProxies tells the live model how far the editorial proxies of
// card label are: made (made or failed: done with) of total clips. The
// proxies are made outside the engine (internal/proxies, once a card's
// run is done); whoever makes them calls this as each clip is done. The
// card's first run (its latest, after a retry) carries the figures:
// Snapshot and the progress events. A count that changes once that run
// ended (most proxies are made then, many after the job's last tick) is
// told at once: a progress event of the snapshot, recorded as the job's
// latest (LiveProgress), so that event readers and dit serve see the
// final count.
func (j *Job) CountProxies(label string, made, total int) {
	var run *cardRun
	for _, c := range j.cardList() {
		if c.label() == label && c.rec.Hop <= 1 {
			run = c
		}
	}
	if run == nil {
		return
	}
	t, m := int64(max(total, 0)), int64(max(made, 0))
	changed := run.lc.proxies.Swap(t) != t
	changed = run.lc.proxiesMade.Swap(m) != m || changed
	if changed && run.ended.Load() {
		j.emitSnapshot()
	}
}

// emitSnapshot tells the front ends the job's snapshot now (Snapshot: a
// progress event) between the model's ticks, and records it.
func (j *Job) emitSnapshot() {
	p := j.Snapshot()
	if b, err := json.Marshal(p); err == nil {
		j.cat.PutLive(j.rec.ID, j.opts.Now(), b)
	}
	j.emit(Event{Type: EvProgress, Progress: &p})
}

type destLive struct {
	verifyFiles   int
	filesVerified atomic.Int64
	busy          atomic.Int64 // ns spent reading back
	resent        atomic.Int64
	retries       atomic.Int64
	retry, of     atomic.Int64 // the retry in progress, of how many
	// retrying: the streamed files being tried again there (the retry
	// in progress is forgotten when none is); retryMu orders it with
	// retry and of.
	retrying int
	retryMu  sync.Mutex
	lastErr  atomic.Value // string
	errAt    atomic.Int64 // Unix ns
	// sealFailed: the card's hash lists could not be written there in
	// this run (seal).
	sealFailed atomic.Bool
	// sealWalks: the walks of the card's files that write its hash lists
	// there, as the seal said (SealProgress; 0: not said yet); sealed:
	// the files those walks came to, every walk counted (sealWalks x
	// the files once they are written); sealSteps: every file any of
	// the seal's walks came to, lookups too (live.After.SealSteps).
	sealWalks, sealed, sealSteps atomic.Int64
}

// sealCounting is files, counting each file the seal walks for
// destination di (the run moves while it grows).
func (c *cardRun) sealCounting(di int, files SealFiles) SealFiles {
	return func(fn func(*SealFile) error) error {
		return files(func(f *SealFile) error {
			c.lc.dests[di].sealSteps.Add(1)
			return fn(f)
		})
	}
}

// sealProgress is destination di's SealProgress: how far its hash lists
// are (live.After's FilesSealed).
type sealProgress struct{ l *destLive }

func (p sealProgress) Walks(n int) { p.l.sealWalks.Store(int64(max(n, 1))) }
func (p sealProgress) Walked()     { p.l.sealed.Add(1) }

// sealNamed is how many files destination l's hash lists name so far,
// of each: its walks' files counted once (the walks' steps over their
// number), at most each.
func sealNamed(l *destLive, each int64) int64 {
	return min(l.sealed.Load()/max(l.sealWalks.Load(), 1), each)
}

// sealWritten records that destination di's hash lists are written:
// every file of the card is named there.
func (c *cardRun) sealWritten(di int) {
	l := &c.lc.dests[di]
	l.sealed.Store(c.lc.sealEach.Load() * max(l.sealWalks.Load(), 1))
}

// sealFailedAt records that the card's hash lists could not be written
// to destination di: its state is then live.DestSealFailed.
func (c *cardRun) sealFailedAt(di int) {
	if di >= 0 && di < len(c.lc.dests) {
		c.lc.dests[di].sealFailed.Store(true)
	}
}

// destRetry records that destination di is tried again: retry n (1:
// the first) of tries allowed (0: no limit known), after err (""
// unknown: the last error said there stays).
func (c *cardRun) destRetry(di, n, tries int, err string) {
	d := &c.lc.dests[di]
	d.retries.Add(1)
	c.lc.retries.Add(1)
	d.retryMu.Lock()
	d.retry.Store(int64(n))
	d.of.Store(int64(tries))
	d.retryMu.Unlock()
	if err != "" {
		d.lastErr.Store(err)
		d.errAt.Store(c.j.opts.Now().UnixNano())
	}
}

// retryBegun records that a streamed file is being tried again at
// destination di; retryEnded that it is done with (sent, or failed):
// with no other being tried again there, no retry is in progress.
func (c *cardRun) retryBegun(di int) {
	d := &c.lc.dests[di]
	d.retryMu.Lock()
	d.retrying++
	d.retryMu.Unlock()
}

func (c *cardRun) retryEnded(di int) {
	d := &c.lc.dests[di]
	d.retryMu.Lock()
	defer d.retryMu.Unlock()
	if d.retrying--; d.retrying == 0 {
		d.retry.Store(0)
		d.of.Store(0)
	}
}

// destError records the last error seen at destination di while it is
// still at work (a failing try inside rclone, say).
func (c *cardRun) destError(di int, err string) {
	c.lc.dests[di].lastErr.Store(err)
	c.lc.dests[di].errAt.Store(c.j.opts.Now().UnixNano())
}

// verifiedOne records one file read back at destination di, in busy.
func (c *cardRun) verifiedOne(di int, busy time.Duration) {
	if di < 0 || di >= len(c.lc.dests) {
		return
	}
	c.lc.dests[di].filesVerified.Add(1)
	c.lc.dests[di].busy.Add(int64(busy))
}

// busyClock counts a read-back's time at destination di as its bytes
// come, a block at a time, so that each tick of the live model sees the
// time spent on the bytes it sees. A file's whole time counted when it
// ended fell in one tick beside a second's bytes: a copy of clips of a
// few seconds each was measured reading back at a fraction of its rate,
// and a card's "safe in" jumped from 3 s to 12 s as its copy ended.
type busyClock struct {
	c    *cardRun
	di   int
	last time.Time
}

func (c *cardRun) busyClock(di int) *busyClock {
	return &busyClock{c: c, di: di, last: c.j.opts.Now()}
}

// tick counts the time since the last tick (a block read back) as busy.
func (b *busyClock) tick() {
	now := b.c.j.opts.Now()
	if b.di >= 0 && b.di < len(b.c.lc.dests) {
		b.c.lc.dests[b.di].busy.Add(int64(now.Sub(b.last)))
	}
	b.last = now
}

// done counts the file's end (its close, what followed its last block)
// and the file read back.
func (b *busyClock) done() {
	b.tick()
	b.c.verifiedOne(b.di, 0)
}

// livePhase is the run's phase as the live model names it.
func (c *cardRun) livePhase() live.Phase {
	switch p, _ := c.phase.Load().(string); p {
	case "copying":
		return live.Copying
	case "verifying":
		return live.Verifying
	case "sealing":
		return live.Sealing
	case "done":
		return live.Done
	}
	return live.Queued
}

// counters reads the run's counters for the live model (the current
// file and each destination's state included).
func (c *cardRun) counters(now time.Time) live.Counters {
	p := c.progress()
	k := live.Counters{Key: c, Label: p.Label, Hop: p.Hop, Phase: p.Phase, Files: p.Files, FilesToCopy: c.lc.copyFiles, Bytes: p.Bytes,
		FilesCopied: int(c.lc.filesCopied.Load()), BytesCopied: p.BytesCopied, BytesResent: c.lc.resent.Load(),
		FilesDone: p.FilesDone, FilesFailed: p.FilesFailed, VerifyTotal: p.VerifyTotal, BytesVerified: p.BytesVerified,
		CardSide: live.CardSide{Current: p.Current, Retries: int(c.lc.retries.Load())}}
	k.Proxies, k.ProxiesMade = int(c.lc.proxies.Load()), int(c.lc.proxiesMade.Load())
	for di, d := range p.Dests {
		l := &c.lc.dests[di]
		dc := live.DestCounters{Dest: d.Dest, State: d.State, Bytes: d.Bytes, BytesWritten: d.BytesWritten,
			BytesResent: l.resent.Load(), VerifyTotal: d.VerifyTotal, BytesVerified: d.BytesVerified,
			VerifyFiles: l.verifyFiles, FilesVerified: int(l.filesVerified.Load()), VerifyBusy: time.Duration(l.busy.Load()),
			FilesFailed: d.FilesFailed, Current: d.Current, Retries: int(l.retries.Load()), Retry: int(l.retry.Load()), RetryOf: int(l.of.Load())}
		// The last error is said while it is recent: a minute after it,
		// with the destination moving again, it is history.
		if e, _ := l.lastErr.Load().(string); e != "" && now.Sub(time.Unix(0, l.errAt.Load())) < time.Minute {
			dc.LastError, dc.ErrorAt = e, time.Unix(0, l.errAt.Load())
		}
		k.VerifyFiles += l.verifyFiles
		k.FilesVerified += int(l.filesVerified.Load())
		k.SealSteps += l.sealSteps.Load()
		if each := c.lc.sealEach.Load(); each > 0 {
			k.SealFiles += int(each)
			k.FilesSealed += int(sealNamed(l, each))
		}
		k.Dests = append(k.Dests, dc)
	}
	return k
}

// The engine's own costs where the plan gives none, measured on a 2-core
// VM writing two SSD folders (docs/benchmarks.md): a file's own cost in
// the copy (open, create, sync, rename: 3,000 files of 10 kB at 20 MB/s
// took 3.0-4.0 s, 1.5 s of it their bytes) and in the read-back, and the
// sealing of a card (its hash lists: 0.28 s for 3,004 files). A plan
// gives its own, measured on the destinations (internal/plan's costs).
const (
	DefaultPerFile       = 800 * time.Microsecond
	DefaultVerifyPerFile = 200 * time.Microsecond
	DefaultSealFixed     = 150 * time.Millisecond
	DefaultSealPerFile   = 50 * time.Microsecond
)

// withDefaults is the plan's prior p with the engine's own figures where
// it has none: the throttle as the read rate, the default costs.
func withDefaults(p live.Prior, throttle float64) live.Prior {
	if throttle > 0 && (p.Rate <= 0 || throttle < p.Rate) {
		p.Rate = throttle // the card is read no faster
	}
	if p.PerFile <= 0 {
		p.PerFile = DefaultPerFile
	}
	if p.VerifyPerFile <= 0 {
		p.VerifyPerFile = DefaultVerifyPerFile
	}
	if p.Fixed <= 0 && p.SealPerFile <= 0 {
		p.Fixed, p.SealPerFile = DefaultSealFixed, DefaultSealPerFile
	}
	return p
}

// newModel is the job's live model, started at start: its plan's
// figures (Options.Prior, else the throttle), and for a resumed job what
// its earlier runs read and how long they were active.
func (j *Job) newModel(start time.Time) *live.Model {
	cfg := live.Config{Verify: j.opts.Verify != VerifyNone, Cascade: len(j.opts.Then) > 0,
		ThenDests: len(j.opts.Then), ThenSlots: j.opts.ThenParallel, Prior: j.opts.Prior, StallAfter: j.opts.StallAfter}
	plan, throttle := j.opts.Prior, j.opts.Throttle
	cfg.Prior = func(label string, hop int) live.Prior {
		var p live.Prior
		if plan != nil {
			p = plan(label, hop)
		}
		return withDefaults(p, throttle)
	}
	if j.resume {
		if a, err := JobActivity(j.cat, j.rec.ID); err == nil {
			cfg.EarlierBytes, cfg.EarlierActive = a.BytesCopied, a.Active
		}
	}
	return live.NewModel(cfg, start)
}

// tickModel feeds the live model the counters of cards at now, records
// the snapshot in the catalog (for dit serve and dit watch in other
// processes) and tells the front ends of stalls that begin or end.
func (j *Job) tickModel(m *live.Model, now time.Time, cards []*cardRun, stalled map[string]bool) live.Progress {
	cs := make([]live.Counters, 0, len(cards))
	for _, c := range cards {
		if c.destWritten == nil {
			continue
		}
		cs = append(cs, c.counters(now))
	}
	p := m.Tick(now, cs)
	if b, err := json.Marshal(p); err == nil {
		j.cat.PutLive(j.rec.ID, now, b)
	}
	for _, c := range p.Cards {
		key := c.Label
		if c.Hop == 2 {
			key += "\x00" + "2"
		}
		switch {
		case c.Stall != nil && !stalled[key]:
			stalled[key] = true
			j.emit(Event{Type: EvStalled, Card: c.Label, Hop: c.Hop, Path: c.Stall.Where, Message: c.Stall.String()})
		case c.Stall == nil && stalled[key]:
			delete(stalled, key)
			j.emit(Event{Type: EvMoving, Card: c.Label, Hop: c.Hop})
		}
	}
	return p
}

// LiveProgress reads the latest live snapshot a running job recorded
// (ok false: none; at: when it was taken), for front ends in another
// process than the engine's (dit serve, dit watch).
func LiveProgress(cat *catalog.Catalog, jobID int64) (p Progress, at time.Time, ok bool, err error) {
	b, at, err := cat.Live(jobID)
	if err != nil || b == nil {
		return p, at, false, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, at, false, err
	}
	return p, at, true, nil
}
