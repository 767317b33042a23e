package sched

import (
	"context"
	"fmt"
	"github.com/dit-org/dit/internal/live"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// Config sets up a Scheduler.
type Config struct {
	// Topology has the job's cards as Sources and its destinations as
	// Destinations, both in command-line order (see ForJob).
	Topology *plan.Topology
	// Plan says what the job does besides moving bytes (hashes, read-back,
	// CPU).
	Plan plan.Options
	// Simulate throttles each card to its medium (and its port's
	// per-device cap), each bus to its usable rate per direction and each
	// destination to its write rate: the field's hardware on any machine.
	Simulate bool
	// Scale multiplies every simulated and planned rate the buckets
	// enforce (0: 1). With Scale 0.1 a simulated job runs at a tenth of
	// the field rates, so a small machine keeps up; plans stay in field
	// units and are recorded with their scale. Only with Simulate.
	Scale float64
	// PhysicsOnly, with Simulate, throttles the simulated hardware but does
	// not enforce the plan's shares: the cards then share buses as the
	// token buckets let them (the planner-accuracy benchmark compares that
	// with the plan).
	PhysicsOnly bool
	// Observe plans, re-plans and records but enforces nothing: a job
	// without a bus budget, whose plan is what its estimates start from
	// and what dit job show sets against the run.
	Observe bool
	// Spares are the topology file's other sources: a card that joins the
	// job (AddCard) is planned with the one of its name (dit watch: cards
	// arrive one after another).
	Spares []plan.Source
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnPlan, if set, is told of the plan and of every re-plan.
	OnPlan func(r *plan.Result, reason string)
}

// Card is a job card as the scheduler tracks it.
type Card struct {
	Label     string
	CatalogID int64
	Bytes     int64 // to copy
	Files     int   // to copy (0: unknown)
}

// Scheduler is an offload.Limiter that enforces a bus-budget plan with
// token buckets (golang.org/x/time/rate), per card, per bus direction and
// per destination, and re-plans when a card has finished copying.
type Scheduler struct {
	cfg   Config
	topo  *plan.Topology
	scale float64

	// runCPU is the CPU as it runs here (cfg.Plan.CPU is in field units:
	// divided by the scale).
	runCPU *plan.CPU

	mu      sync.Mutex
	res     *plan.Result
	run     *plan.Result // res in the run's units (scaled); res at scale 1
	cards   []Card
	copied  []int64
	done    []bool
	cat     *catalog.Catalog
	jobID   int64
	planErr error

	share  []*rate.Limiter // per card: its planned rate
	media  []*rate.Limiter // per card (simulate): its medium
	busIn  map[string]*rate.Limiter
	busOut map[string]*rate.Limiter
	dest   []*rate.Limiter // per destination: limit (and write rate, simulate)
	// verifyShare is per destination the read-back the plan reserves for
	// it while cards are copying; destRead (simulate) its read rate.
	verifyShare []*rate.Limiter
	destRead    []*rate.Limiter
	// chains of buckets each card read, each destination write and each
	// destination read-back passes
	readChain   [][]*rate.Limiter
	writeChain  [][]bucketCost
	verifyChain [][]*rate.Limiter
	// firstCopyChain paces a cascade's second runs reading the first
	// copy (simulating: the first run-1 destination's read rate and the
	// buses up from its port); cards beyond the plan's read through it.
	firstCopyChain []*rate.Limiter
}

type bucketCost struct {
	l    *rate.Limiter
	cost float64 // tokens per byte of data (RAID write amplification)
}

var _ offload.Limiter = (*Scheduler)(nil)

// New plans the topology and sets up the buckets. Nothing is recorded
// until Start.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Topology == nil {
		return nil, fmt.Errorf("sched: no topology")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Scheduler{cfg: cfg, topo: cfg.Topology.Clone(), scale: 1, runCPU: cfg.Plan.CPU}
	if cfg.Scale > 0 {
		if !cfg.Simulate {
			return nil, fmt.Errorf("a rate scale (%g) only applies to a simulation: add --simulate", cfg.Scale)
		}
		s.scale = cfg.Scale
	}
	if cfg.Plan.CPU != nil && s.scale != 1 {
		// The hashing really runs here, at rate x scale: in field units the
		// CPU is 1/scale times as fast.
		c := &plan.CPU{Cores: cfg.Plan.CPU.Cores, PerCore: map[hashing.Algo]float64{}}
		for a, v := range cfg.Plan.CPU.PerCore {
			c.PerCore[a] = v / s.scale
		}
		for a, v := range s.topo.Profiles.HashRates {
			if _, ok := c.PerCore[a]; !ok {
				c.PerCore[a] = v / s.scale
			}
		}
		s.cfg.Plan.CPU = c
	}
	n := len(s.topo.Sources)
	s.cards = make([]Card, n)
	for i, src := range s.topo.Sources {
		s.cards[i] = Card{Label: src.Name, Bytes: src.Size}
	}
	s.copied = make([]int64, n)
	s.done = make([]bool, n)
	res, run, err := s.plan()
	if err != nil {
		return nil, err
	}
	s.res, s.run = res, run
	s.buckets()
	s.apply(res)
	return s, nil
}

// burst is a bucket's depth: a quarter second of its rate (at least
// 256 KiB), so a card that stalled (an fsync, a busy core) catches up a
// little without bursting past its share for long.
func burst(r float64) int {
	const minBurst = 256 << 10
	if math.IsInf(r, 1) || r <= 0 {
		return minBurst
	}
	return max(minBurst, int(r/4))
}

// newBucket returns an empty bucket filling at r bytes/s (r <= 0 or +Inf:
// no limit). It starts empty so that a job does not begin with a burst.
func newBucket(r float64) *rate.Limiter {
	if r <= 0 || math.IsInf(r, 1) {
		return rate.NewLimiter(rate.Inf, burst(r))
	}
	l := rate.NewLimiter(rate.Limit(r), burst(r))
	l.AllowN(time.Now(), l.Burst())
	return l
}

// buckets creates the token buckets of the simulated hardware and the
// destination limits.
func (s *Scheduler) buckets() {
	t := s.topo
	sim := s.cfg.Simulate
	n := len(t.Sources)
	s.share = make([]*rate.Limiter, n)
	s.media = make([]*rate.Limiter, n)
	s.busIn, s.busOut = map[string]*rate.Limiter{}, map[string]*rate.Limiter{}
	for i := range t.Buses {
		b := &t.Buses[i]
		if !sim {
			continue
		}
		k := t.BusKind(b)
		s.busIn[b.Name] = newBucket(k.Usable * s.scale)
		if k.HalfDuplex {
			s.busOut[b.Name] = s.busIn[b.Name]
		} else {
			s.busOut[b.Name] = newBucket(k.Usable * s.scale)
		}
	}
	s.readChain = make([][]*rate.Limiter, n)
	for i := range t.Sources {
		s.share[i] = newBucket(0)
		chain := []*rate.Limiter{s.share[i]}
		if sim {
			r := t.MediaRate(i)
			if b := t.BusByName(t.Sources[i].Bus); b != nil {
				if k := t.BusKind(b); k.Device > 0 && (r == 0 || k.Device < r) {
					r = k.Device
				}
			}
			s.media[i] = newBucket(r * s.scale)
			chain = append(chain, s.media[i])
			for _, b := range t.Chain(t.Sources[i].Bus) {
				chain = append(chain, s.busIn[b.Name])
			}
		}
		s.readChain[i] = chain
	}
	s.dest = make([]*rate.Limiter, len(t.Destinations))
	s.writeChain = make([][]bucketCost, len(t.Destinations))
	for di := range t.Destinations {
		d := t.Dest(di)
		amp := plan.WriteAmplification(d.Blades, d.RAID)
		capacity := math.Inf(1)
		if d.Limit > 0 {
			capacity = d.Limit * s.scale
		}
		if sim {
			if d.Write > 0 {
				capacity = min(capacity, d.Write/amp*s.scale)
			}
			if d.BladeRate > 0 && d.Blades > 1 {
				capacity = min(capacity, d.BladeRate*float64(d.Blades)/amp*s.scale)
			}
		}
		s.dest[di] = newBucket(capacity)
		chain := []bucketCost{{s.dest[di], 1}}
		if sim {
			k := t.Profiles.Buses
			for _, b := range t.Chain(d.Bus) {
				chain = append(chain, bucketCost{s.busOut[b.Name], amp})
				if bk := k[b.Kind]; bk.Device > 0 && b.Name == d.Bus {
					chain = append(chain, bucketCost{newBucket(bk.Device * s.scale), amp})
				}
			}
		}
		s.writeChain[di] = chain
	}
	// Read-back of the copies on a destination, as the planner charges it:
	// the plan's share of it, and simulating the destination's read rate
	// and every bus up from its port in the read direction (one byte per
	// byte, no parity; with the writes on a half-duplex bus).
	s.verifyShare = make([]*rate.Limiter, len(t.Destinations))
	s.destRead = make([]*rate.Limiter, len(t.Destinations))
	s.verifyChain = make([][]*rate.Limiter, len(t.Destinations))
	for di := range t.Destinations {
		d := t.Dest(di)
		s.verifyShare[di] = newBucket(0)
		chain := []*rate.Limiter{s.verifyShare[di]}
		if sim {
			s.destRead[di] = newBucket(d.Read * s.scale)
			chain = append(chain, s.destRead[di])
			for _, b := range t.Chain(d.Bus) {
				chain = append(chain, s.busIn[b.Name])
			}
		}
		s.verifyChain[di] = chain
	}
	s.firstCopyChain = nil
	if sim {
		first, cascade := -1, false
		for di, d := range t.Destinations {
			if d.Run == 2 {
				cascade = true
			} else if first < 0 {
				first = di
			}
		}
		if cascade && first >= 0 {
			s.firstCopyChain = []*rate.Limiter{s.destRead[first]}
			for _, b := range t.Chain(t.Destinations[first].Bus) {
				s.firstCopyChain = append(s.firstCopyChain, s.busIn[b.Name])
			}
		}
	}
}

// plan plans the cards still copying, in field units (res) and in the
// units of the run (run: the simulated hardware at its scale, the real
// CPU); the caller holds mu (or is New).
func (s *Scheduler) plan() (res, run *plan.Result, err error) {
	t := s.topo.Clone()
	t.Sources = t.Sources[:0:0]
	for i, src := range s.topo.Sources {
		if s.done[i] {
			continue
		}
		if c := s.cards[i]; c.Bytes > 0 {
			src.Size = max(c.Bytes-s.copied[i], 1)
			if c.Files > 0 {
				// The files left, as the bytes: their costs are paid
				// along the bytes.
				src.Files = max(int(float64(c.Files)*float64(src.Size)/float64(c.Bytes)+0.5), 1)
			}
			src.Copying = s.copied[i] > 0
		}
		t.Sources = append(t.Sources, src)
	}
	o := s.cfg.Plan
	o.NoFits = true
	if res, err = plan.Plan(t, o); err != nil || s.scale == 1 {
		return res, res, err
	}
	o.CPU = s.runCPU
	if run, err = plan.Plan(t.Scaled(s.scale), o); err != nil {
		return nil, nil, err
	}
	return res, run, nil
}

// apply sets each card's share bucket from a plan.
func (s *Scheduler) apply(r *plan.Result) {
	for i, src := range s.topo.Sources {
		cp := r.Card(src.Name)
		if cp == nil || s.done[i] {
			continue
		}
		lim := rate.Inf
		enforce := s.cfg.Simulate && !s.cfg.PhysicsOnly
		if !s.cfg.Simulate && !s.cfg.Observe {
			// On real hardware a card limited by its own medium or by the
			// CPU is not held back: only shares of a common budget are
			// enforced, so one card cannot starve another.
			enforce = cp.LimitedBy != plan.LimitMedia && cp.LimitedBy != plan.LimitCPU && cp.LimitedBy != plan.LimitUnknown
		}
		if enforce && cp.Rate > 0 {
			lim = rate.Limit(cp.Rate * s.scale)
		}
		s.share[i].SetLimit(lim)
		s.share[i].SetBurst(burst(float64(lim)))
	}
	s.applyVerify(r)
}

// applyVerify sets each destination's read-back share from a plan: the
// read-back the plan reserves for it (its ReadLoad: every card copying is
// read back from every destination at its planned rate). Simulating (and
// not PhysicsOnly) it is always enforced, like the cards' shares; on real
// hardware only when a card is held by a budget the read-back also uses
// (a bus up from the destination's port, or the destination), so
// verification cannot starve the copies it shares a bus with, and is never
// held back otherwise. With no card left copying, nothing is reserved and
// read-back goes as fast as the buckets of the simulated hardware let it.
func (s *Scheduler) applyVerify(r *plan.Result) {
	t := s.topo
	copying := false
	for _, d := range s.done {
		copying = copying || !d
	}
	for di := range s.verifyShare {
		lim := rate.Inf
		if copying && r != nil && di < len(r.Destinations) && r.Destinations[di].ReadLoad > 0 {
			enforce := s.cfg.Simulate && !s.cfg.PhysicsOnly
			if !s.cfg.Simulate && !s.cfg.Observe {
				d := t.Dest(di)
				shared := map[string]bool{"dest:" + d.Name: true}
				for _, b := range t.Chain(d.Bus) {
					shared["bus:"+b.Name] = true
				}
				for _, c := range r.Cards {
					enforce = enforce || shared[c.LimitedBy]
				}
			}
			if enforce {
				lim = rate.Limit(r.Destinations[di].ReadLoad * s.scale)
			}
		}
		s.verifyShare[di].SetLimit(lim)
		s.verifyShare[di].SetBurst(burst(float64(lim)))
	}
}

// Plan returns the plan in force, in field units (what is recorded, with
// the scale).
func (s *Scheduler) Plan() *plan.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

// RunPlan returns the plan in force in the units of the run: simulating
// at a scale, every rate Scale times and every ETA 1/Scale times the
// field plan's (the rates the buckets enforce, the times the run takes),
// with the CPU as it runs here. At scale 1 it is Plan.
func (s *Scheduler) RunPlan() *plan.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run
}

// Topology is the topology the scheduler plans (the job's cards and
// destinations).
func (s *Scheduler) Topology() *plan.Topology { return s.topo }

// Scale is the rate scale the buckets run at.
func (s *Scheduler) Scale() float64 { return s.scale }

// Start binds the scheduler to a job before it runs: cards are the job's
// cards in its order (labels, catalog ids, bytes to copy), each one a
// source of the topology by label. The plan is re-made with the sizes and
// recorded in cat (if not nil) as seq 0.
func (s *Scheduler) Start(cat *catalog.Catalog, jobID int64, cards []Card) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The job may have fewer cards than were planned (cards it leaves
	// out): follow the job's cards, in its order, by label.
	var sources []plan.Source
	for _, c := range cards {
		i := s.index(c.Label)
		if i < 0 {
			return fmt.Errorf("sched: card %s of the job is not in the topology", c.Label)
		}
		sources = append(sources, s.topo.Sources[i])
	}
	s.topo.Sources = sources
	s.cards = append([]Card(nil), cards...)
	s.copied = make([]int64, len(cards))
	s.done = make([]bool, len(cards))
	s.buckets()
	s.cat, s.jobID = cat, jobID
	return s.replanLocked("start")
}

func (s *Scheduler) replanLocked(reason string) error {
	res, run, err := s.plan()
	if err != nil {
		s.planErr = err
		return err
	}
	s.res, s.run = res, run
	s.apply(res)
	if s.cfg.OnPlan != nil {
		s.cfg.OnPlan(res, reason)
	}
	return s.record(res, reason)
}

// CardCopied re-plans without card i (its copy is finished), giving its
// budget to the others. It returns the error of recording the re-plan.
func (s *Scheduler) CardCopied(i int) error { return s.cardOff(i, "copied") }

// cardOff re-plans without card i, which is copied or whose run ended
// before it was (what says why, recorded with the plan: "A002 copied",
// "A002 interrupted").
func (s *Scheduler) cardOff(i int, what string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.done) || s.done[i] {
		return nil
	}
	s.done[i] = true
	// Its buckets no longer hold anyone back.
	s.share[i].SetLimit(rate.Inf)
	for _, d := range s.done {
		if !d {
			return s.replanLocked(s.cards[i].Label + " " + what)
		}
	}
	// The last card: nothing left to plan, no copy for read-back to spare.
	s.applyVerify(s.res)
	return nil
}

// AddCard follows a card added to the running job (offload.Job.AddCard,
// event EvCardAdded): the card must be a source of the topology, by label;
// it takes the next index, the buckets are rebuilt and the plan re-made,
// recorded as "<label> added", so the budget is shared anew.
func (s *Scheduler) AddCard(c Card) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index(c.Label) >= 0 {
		return nil
	}
	var src *plan.Source
	for _, cand := range append(append([]plan.Source(nil), s.cfg.Topology.Sources...), s.cfg.Spares...) {
		if cand.Name == c.Label && src == nil {
			cp := cand
			src = &cp
		}
	}
	if src == nil {
		err := fmt.Errorf("sched: card %s was added to the job but is not in the topology: it runs unplanned", c.Label)
		s.planErr = err
		return err
	}
	if c.CatalogID == 0 && s.cat != nil {
		if ks, err := s.cat.Cards(s.jobID); err == nil {
			for _, k := range ks {
				if k.Label == c.Label {
					c.CatalogID = k.ID
				}
			}
		}
	}
	s.topo.Sources = append(s.topo.Sources, *src)
	s.cards = append(s.cards, c)
	s.copied = append(s.copied, 0)
	s.done = append(s.done, false)
	s.buckets()
	for i, d := range s.done {
		if d {
			s.share[i].SetLimit(rate.Inf)
		}
	}
	return s.replanLocked(c.Label + " added")
}

// Observe follows the job's events: wrap Options.OnEvent with it. A card
// whose phase leaves copying (verifying, done) or that ends is re-planned
// away; progress events keep the bytes copied for the ETAs.
func (s *Scheduler) Observe(e offload.Event) {
	switch e.Type {
	case offload.EvProgress:
		if e.Progress == nil {
			return
		}
		var finished []int
		s.mu.Lock()
		for _, c := range e.Progress.Cards {
			i := s.index(c.Label)
			if i < 0 || c.Hop == 2 {
				continue
			}
			s.copied[i] = c.BytesCopied
			// A run that is done is re-planned away by its run_done
			// event, which says how it ended (copied, or interrupted).
			if (c.Phase == live.Verifying || c.Phase == live.Sealing) && !s.done[i] {
				finished = append(finished, i)
			}
		}
		s.mu.Unlock()
		for _, i := range finished {
			s.CardCopied(i)
		}
	case offload.EvRunDone, offload.EvCardCopied:
		if e.Hop == 2 {
			return // a second run: its card's budget was freed when it was copied
		}
		s.mu.Lock()
		i := s.index(e.Card)
		s.mu.Unlock()
		what := "copied"
		if e.Type == offload.EvRunDone && e.State.Bad() {
			what = string(e.State) // its run ended before its copy did
		}
		s.cardOff(i, what)
	case offload.EvCardAdded:
		s.AddCard(Card{Label: e.Card, Bytes: e.Bytes})
	}
}

func (s *Scheduler) index(label string) int {
	for i, c := range s.cards {
		if c.Label == label {
			return i
		}
	}
	return -1
}

// Err returns the first error of planning or recording a re-plan.
func (s *Scheduler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.planErr
}

// wait takes n tokens from l in burst-sized pieces, so a large block never
// asks for more than the bucket holds; it returns early when ctx ends.
func wait(ctx context.Context, l *rate.Limiter, n int) error {
	if l == nil {
		return nil
	}
	for n > 0 {
		if l.Limit() == rate.Inf {
			return ctx.Err()
		}
		k := min(n, l.Burst())
		if err := l.WaitN(ctx, k); err != nil {
			if _, ok := ctx.Deadline(); ok && ctx.Err() == nil {
				// rate refuses at once a wait that would outlast the
				// deadline: the block cannot be had before ctx ends.
				<-ctx.Done()
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		n -= k
	}
	return nil
}

// WaitRead paces a block read from card: its share of the plan, and when
// simulating its medium and every bus up from its port.
func (s *Scheduler) WaitRead(ctx context.Context, card int, n int) error {
	s.mu.Lock()
	if card < 0 || card >= len(s.readChain) {
		// Not a card of the plan: a cascade's second run reading the
		// first copy (simulated: that destination's reads).
		chain := s.firstCopyChain
		s.mu.Unlock()
		for _, l := range chain {
			if err := wait(ctx, l, n); err != nil {
				return err
			}
		}
		return nil
	}
	chain := s.readChain[card]
	s.mu.Unlock()
	for _, l := range chain {
		if err := wait(ctx, l, n); err != nil {
			return err
		}
	}
	return nil
}

// WaitWrite paces a block written by card to dest: the destination's
// limit (and, simulating, its write rate and every bus up from its port,
// parity included).
func (s *Scheduler) WaitWrite(ctx context.Context, card, dest int, n int) error {
	s.mu.Lock()
	if dest < 0 || dest >= len(s.writeChain) {
		s.mu.Unlock()
		return nil
	}
	chain := s.writeChain[dest]
	s.mu.Unlock()
	for _, bc := range chain {
		if err := wait(ctx, bc.l, int(math.Ceil(float64(n)*bc.cost))); err != nil {
			return err
		}
	}
	return nil
}

// WaitVerify paces a block read back for verification: a copy of card on
// dest passes the destination's read-back share of the plan (and,
// simulating, its read rate and every bus up from its port); the card
// itself re-read (dest -1, --verify source+dest) is paced like any read
// from the card (WaitRead).
func (s *Scheduler) WaitVerify(ctx context.Context, card, dest int, n int) error {
	if dest < 0 {
		return s.WaitRead(ctx, card, n)
	}
	s.mu.Lock()
	if dest >= len(s.verifyChain) {
		s.mu.Unlock()
		return nil
	}
	chain := s.verifyChain[dest]
	s.mu.Unlock()
	for _, l := range chain {
		if err := wait(ctx, l, n); err != nil {
			return err
		}
	}
	return nil
}
