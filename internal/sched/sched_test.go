package sched

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/verdict"
)

func topo(t *testing.T, doc string) *plan.Topology {
	t.Helper()
	top, err := plan.ParseTopology("t.yaml", []byte(doc))
	require.NoError(t, err)
	return top
}

// pump plays the scheduler's pacing forward in virtual time for d: each
// card reads a 64 KiB block through its read chain and writes it through
// destination 0's chain, as the copy loop does, and every wait is a
// reservation on that limiter at the virtual time the card reaches it
// (split into bursts like wait). It returns the bytes/s each card
// achieved: the limiters' sharing alone, which machine load cannot move.
func pump(t *testing.T, s *Scheduler, cards []int, d time.Duration) []float64 {
	t.Helper()
	const block = 64 << 10
	type step struct {
		l *rate.Limiter
		n int
	}
	steps := func(c int) []step {
		var out []step
		add := func(l *rate.Limiter, n int) {
			if l == nil || l.Limit() == rate.Inf {
				return
			}
			for n > 0 {
				k := min(n, l.Burst())
				out = append(out, step{l, k})
				n -= k
			}
		}
		for _, l := range s.readChain[c] {
			add(l, block)
		}
		for _, bc := range s.writeChain[0] {
			add(bc.l, int(math.Ceil(float64(block)*bc.cost)))
		}
		return out
	}
	type cursor struct {
		at    time.Time
		plan  []step
		i     int
		bytes int64
	}
	start := time.Now().Add(time.Hour) // after every limiter's last use
	end := start.Add(d)
	cur := make([]*cursor, len(cards))
	for k, c := range cards {
		cur[k] = &cursor{at: start, plan: steps(c)}
		require.NotEmpty(t, cur[k].plan, "card %d is paced by nothing", c)
	}
	for {
		// The card whose next wait comes first takes its reservation.
		k := -1
		for j, c := range cur {
			if c.at.Before(end) && (k < 0 || c.at.Before(cur[k].at)) {
				k = j
			}
		}
		if k < 0 {
			break
		}
		c := cur[k]
		st := c.plan[c.i]
		r := st.l.ReserveN(c.at, st.n)
		require.True(t, r.OK(), "a block above the burst")
		c.at = c.at.Add(r.DelayFrom(c.at))
		if c.i++; c.i == len(c.plan) {
			c.i = 0
			if !c.at.After(end) {
				c.bytes += block
			}
		}
	}
	got := make([]float64, len(cards))
	for k, c := range cur {
		got[k] = float64(c.bytes) / d.Seconds()
	}
	return got
}

const threeOnOneBus = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-a}
  - {name: A003, media: cfast2, bus: usb-a}
  - {name: A004, media: axs, bus: usb-b}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
`

// scale puts 1 GB/s of field rate at 20 MB/s here.
const scale = 0.02

func TestSimulatedHardwareSharesLikeThePlan(t *testing.T) {
	top := topo(t, threeOnOneBus)
	for _, physics := range []bool{false, true} {
		s, err := New(Config{Topology: top, Simulate: true, Scale: scale, PhysicsOnly: physics})
		require.NoError(t, err)
		p := s.Plan()
		require.Equal(t, "bus:usb-a", p.Card("A001").LimitedBy)
		require.Equal(t, plan.LimitMedia, p.Card("A004").LimitedBy)
		got := pump(t, s, []int{0, 1, 2, 3}, time.Minute)
		for i, c := range p.Cards {
			want := c.Rate * scale
			require.InEpsilon(t, want, got[i], 0.1, "%s (physics only %v): planned %.1f MB/s, achieved %.1f MB/s", c.Name, physics, want/1e6, got[i]/1e6)
		}
	}
}

func TestRealModeEnforcesOnlySharesOfCommonBudgets(t *testing.T) {
	s, err := New(Config{Topology: topo(t, threeOnOneBus)})
	require.NoError(t, err)
	// A001..A003 share usb-a: held to their share; A004 runs free.
	require.InDelta(t, 1.15e9/3, float64(s.share[0].Limit()), 1)
	require.Equal(t, rate.Inf, s.share[3].Limit())
	require.Nil(t, s.media[0], "nothing simulated")
	_, err = New(Config{Topology: topo(t, threeOnOneBus), Scale: 0.5})
	require.ErrorContains(t, err, "only applies to a simulation: add --simulate")
}

func TestWaitsSplitIntoBurstsAndEndWithTheContext(t *testing.T) {
	s, err := New(Config{Topology: topo(t, threeOnOneBus), Simulate: true, Scale: 1e-6})
	require.NoError(t, err)
	// 4 MiB is far above the bucket's burst: it must be split, not refused.
	l := s.readChain[3][1]
	require.Less(t, l.Burst(), 4<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = s.WaitRead(ctx, 3, 4<<20)
	// At 1e-6 x the rates the 4 MiB would take hours: returning at all,
	// with the context's error, is ending with the context.
	require.ErrorIs(t, err, context.DeadlineExceeded, "the wait ends with the context")
	require.NoError(t, s.WaitRead(context.Background(), 99, 1), "an unknown card is not paced")
}

// threeReadersOneLimitedRAID: three CFast readers, each on its own bus,
// into one destination held to 0.9 GB/s.
const threeReadersOneLimitedRAID = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2}
  - {name: usb-c, kind: usb3.2-gen2}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-b}
  - {name: A003, media: cfast2, bus: usb-c}
destinations:
  - {name: raid, kind: nvme-tb, limit: 0.9GB/s}
`

func TestReplanWhenACardIsCopiedIsRecorded(t *testing.T) {
	top := topo(t, threeReadersOneLimitedRAID)
	cat, j, cards := jobWithCards(t, "A001", "A002", "A003")
	cards[2].Bytes = 45e9
	var reasons []string
	s, err := New(Config{Topology: top, OnPlan: func(_ *plan.Result, why string) { reasons = append(reasons, why) }})
	require.NoError(t, err)
	require.ErrorContains(t, s.Start(cat, j.ID, []Card{{Label: "B001"}}), "card B001 of the job is not in the topology")
	require.NoError(t, s.Start(cat, j.ID, cards))
	require.InDelta(t, 0.3e9, float64(s.share[0].Limit()), 1)

	// A progress event: A003 moved to verifying; A001 and A002 copied 45 GB.
	s.Observe(offload.Event{Type: offload.EvProgress, Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying", BytesCopied: 45e9}, {Label: "A002", Phase: "copying", BytesCopied: 45e9},
		{Label: "A003", Phase: "verifying", BytesCopied: 45e9}}}})
	require.InDelta(t, 0.45e9, float64(s.share[0].Limit()), 1)
	require.Equal(t, rate.Inf, s.share[2].Limit())
	s.Observe(offload.Event{Type: offload.EvRunDone, Card: "A003"})
	require.Equal(t, []string{"start", "A003 copied"}, reasons, "the card is re-planned once")

	plans, err := cat.Plans(j.ID)
	require.NoError(t, err)
	require.Len(t, plans, 2)
	require.Len(t, plans[0].Cards, 3)
	require.InDelta(t, 0.3e9, plans[0].Cards[0].Rate, 1)
	require.Equal(t, "dest:raid", plans[0].Cards[0].LimitedBy)
	require.InDelta(t, 150, *plans[0].Cards[2].ETASeconds, 1e-6)
	require.Equal(t, "A003 copied", plans[1].Reason)
	require.Len(t, plans[1].Cards, 2)
	for _, c := range plans[1].Cards {
		require.InDelta(t, 0.45e9, c.Rate, 1)
		require.InDelta(t, 100, *c.ETASeconds, 1e-6, "45 GB left at 0.45 GB/s")
		require.NotZero(t, c.CardID)
	}
	require.Contains(t, plans[1].Detail, `"total_bytes_per_s":900000000`)
}

// A card whose run ends before its copy does (interrupted, its card
// unreadable) gives its budget back too, and the plan it leaves says so:
// never "copied" for a card that was not. A done card's progress does
// not re-plan it: its run_done event, which says how it ended, does.
func TestReplanWhenARunEndsUncopiedSaysHow(t *testing.T) {
	top := topo(t, threeReadersOneLimitedRAID)
	cat, j, cards := jobWithCards(t, "A001", "A002", "A003")
	var reasons []string
	s, err := New(Config{Topology: top, OnPlan: func(_ *plan.Result, why string) { reasons = append(reasons, why) }})
	require.NoError(t, err)
	require.NoError(t, s.Start(cat, j.ID, cards))
	s.Observe(offload.Event{Type: offload.EvProgress, Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying"}, {Label: "A002", Phase: "done"}, {Label: "A003", Phase: "copying"}}}})
	require.Equal(t, []string{"start"}, reasons, "a done phase alone says nothing of how it ended")
	s.Observe(offload.Event{Type: offload.EvRunDone, Card: "A002", State: verdict.Interrupted})
	s.Observe(offload.Event{Type: offload.EvRunDone, Card: "A003", State: verdict.Failed})
	require.Equal(t, []string{"start", "A002 interrupted", "A003 failed"}, reasons)
	require.Equal(t, rate.Inf, s.share[1].Limit(), "its budget given back")
	plans, err := cat.Plans(j.ID)
	require.NoError(t, err)
	require.Len(t, plans, 3)
	require.Equal(t, "A002 interrupted", plans[1].Reason)
	require.Len(t, plans[2].Cards, 1, "A001 alone left")
}

func TestForJobMatchesCardsAndDestinations(t *testing.T) {
	dir := t.TempDir()
	a, b, raid := filepath.Join(dir, "A001"), filepath.Join(dir, "cards", "B007"), filepath.Join(dir, "raid")
	for _, p := range []string{a, b, raid} {
		require.NoError(t, os.MkdirAll(p, 0o755))
	}
	top := topo(t, `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
sources:
  - {name: card-b, path: `+b+`, media: axs, bus: usb-a}
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A099, media: cfast2}
destinations:
  - {name: shuttle, write_rate: 1GB/s}
  - {name: raid, write_rate: 2GB/s}
`)
	got, err := ForJob(top, []string{b, a}, []string{raid})
	require.NoError(t, err)
	require.Len(t, got.Sources, 2)
	require.Equal(t, "B007", got.Sources[0].Name, "matched by path, named by its folder")
	require.Equal(t, "axs", got.Sources[0].Media)
	require.Equal(t, "A001", got.Sources[1].Name)
	require.Equal(t, a, got.Sources[1].Path)
	require.Len(t, got.Destinations, 1)
	require.Equal(t, 2e9, got.Destinations[0].Write)

	_, err = ForJob(top, []string{filepath.Join(dir, "A002")}, []string{raid})
	require.ErrorContains(t, err, "card "+filepath.Join(dir, "A002")+" is not in t.yaml: add a source with path:")
	_, err = ForJob(top, []string{a}, []string{filepath.Join(dir, "backup")})
	require.ErrorContains(t, err, "destination "+filepath.Join(dir, "backup")+" is not in t.yaml")
}

func TestStartFollowsTheJobsCards(t *testing.T) {
	s, err := New(Config{Topology: topo(t, threeOnOneBus)})
	require.NoError(t, err)
	require.InDelta(t, 1.15e9/3, float64(s.share[0].Limit()), 1)
	// The job left A001 and A004 out: A003 and A002 (in that order) share usb-a.
	require.NoError(t, s.Start(nil, 1, []Card{{Label: "A003"}, {Label: "A002"}}))
	require.Len(t, s.Plan().Cards, 2)
	require.Equal(t, "A003", s.Plan().Cards[0].Name)
	require.Equal(t, plan.LimitMedia, s.Plan().Cards[0].LimitedBy, "two CFast readers fit the bus")
	require.Equal(t, rate.Inf, s.share[0].Limit())
	require.Len(t, s.readChain, 2)
}

// A card added to the running job (offload.EvCardAdded) joins the plan: the
// budget is shared anew and the re-plan is recorded.
func TestReplanWhenACardIsAdded(t *testing.T) {
	top := topo(t, threeReadersOneLimitedRAID)
	cat, j, cards := jobWithCards(t, "A001", "A002")
	s, err := New(Config{Topology: top})
	require.NoError(t, err)
	require.NoError(t, s.Start(cat, j.ID, cards))
	require.InDelta(t, 0.45e9, float64(s.share[0].Limit()), 1, "two cards share the 0.9 GB/s limit")
	k := &catalog.Card{JobID: j.ID, Label: "A003", Path: "/c/A003", State: "pending", Seq: 2}
	require.NoError(t, cat.AddCard(k))
	s.Observe(offload.Event{Type: offload.EvCardAdded, Card: "A003", Bytes: 45e9})
	require.Len(t, s.readChain, 3)
	for i := 0; i < 3; i++ {
		require.InDelta(t, 0.3e9, float64(s.share[i].Limit()), 1, "three cards share it now")
	}
	plans, err := cat.Plans(j.ID)
	require.NoError(t, err)
	require.Len(t, plans, 2)
	require.Equal(t, "A003 added", plans[1].Reason)
	require.Len(t, plans[1].Cards, 3)
	require.Equal(t, k.ID, plans[1].Cards[2].CardID)
	// A card the topology does not know runs unplanned, and says so.
	require.ErrorContains(t, s.AddCard(Card{Label: "B009"}), "not in the topology")
}

// jobWithCards records a running job with the given cards (90 GB each to
// copy) in a catalog in t.TempDir().
func jobWithCards(t *testing.T, labels ...string) (*catalog.Catalog, *catalog.Job, []Card) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "j", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, cat.CreateJob(j))
	var cards []Card
	for _, l := range labels {
		k := &catalog.Card{JobID: j.ID, Label: l, Path: "/c/" + l, State: "pending", Seq: len(cards)}
		require.NoError(t, cat.AddCard(k))
		cards = append(cards, Card{Label: l, CatalogID: k.ID, Bytes: 90e9})
	}
	return cat, j, cards
}

// verifyMeter wraps the scheduler and measures the read-back it lets
// through: bytes, and the time from the first wait to the last.
type verifyMeter struct {
	*Scheduler
	mu          sync.Mutex
	bytes       int64
	first, last time.Time
}

func (m *verifyMeter) WaitVerify(ctx context.Context, card, dest int, n int) error {
	m.mu.Lock()
	if m.first.IsZero() {
		m.first = time.Now()
	}
	m.mu.Unlock()
	err := m.Scheduler.WaitVerify(ctx, card, dest, n)
	m.mu.Lock()
	m.bytes += int64(n)
	m.last = time.Now()
	m.mu.Unlock()
	return err
}

// A real job on simulated hardware whose destination reads back 5 x slower
// than the card is copied: the read-back runs at the destination's read
// rate, not at the copy's pace (it used to be unpaced).
func TestSimulatedReadBackRunsAtTheDestinationsReadRate(t *testing.T) {
	const scale = 0.01
	top := topo(t, `
buses:
  - {name: tb-1, kind: tb3}
  - {name: tb-2, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: tb-1, read_rate: 2GB/s}
destinations:
  - {name: raid, bus: tb-2, kind: nvme-raid-tb3, read_rate: 0.4GB/s}
`)
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "c.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	card := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	var total int64
	for i := 0; i < 6; i++ {
		b := make([]byte, 1<<20)
		for k := range b {
			b[k] = byte(k*7 + i)
		}
		require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", "C00"+string(rune('1'+i))+".mov"), b, 0o644))
		total += int64(len(b))
	}
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))

	// PhysicsOnly: the card is copied as fast as its simulated medium (20
	// MB/s here), not held to the plan's share, so only the read-back's
	// own buckets can slow it (4 MB/s).
	s, err := New(Config{Topology: top, Simulate: true, Scale: scale, PhysicsOnly: true,
		Plan: plan.Options{Verify: true}})
	require.NoError(t, err)
	m := &verifyMeter{Scheduler: s}
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "j", Cards: []string{card}, Dests: []string{dest}},
		Env:     offload.Env{Catalog: cat, BlockSize: 64 << 10, Buffers: 4, Limiter: m}, Hooks: offload.Hooks{OnEvent: s.Observe}})
	require.NoError(t, err)
	require.NoError(t, s.StartJob(cat, job))
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)

	readRate := 0.4e9 * scale
	require.Equal(t, rate.Limit(readRate), s.destRead[0].Limit())
	require.Equal(t, total, m.bytes, "every byte read back was paced")
	window := m.last.Sub(m.first).Seconds()
	got := float64(m.bytes) / window
	// The bucket lets through at most its rate over the window plus one
	// burst (it may have filled while idle); 20 % on top for timing.
	limit := (readRate*window + float64(s.destRead[0].Burst())) / window * 1.2
	require.LessOrEqual(t, got, limit, "read back at %.1f MB/s, the destination reads %.1f MB/s", got/1e6, readRate/1e6)
	require.GreaterOrEqual(t, got, readRate/4, "read back at %.1f MB/s: far below the planned %.1f MB/s", got/1e6, readRate/1e6)
}

// The read-back of a copy passes the destination's share of the plan and,
// simulating, its read rate and the buses up from its port (a half-duplex
// bus is the one bucket of both directions); a source re-read is paced
// like a read from the card.
func TestVerifyChainsFollowThePlan(t *testing.T) {
	top := topo(t, threeOnOneBus)
	s, err := New(Config{Topology: top, Simulate: true, Scale: scale, Plan: plan.Options{Verify: true}})
	require.NoError(t, err)
	p := s.Plan()
	require.Len(t, s.verifyChain, 1)
	chain := s.verifyChain[0]
	require.Same(t, s.verifyShare[0], chain[0])
	require.InDelta(t, p.Destinations[0].ReadLoad*scale, float64(chain[0].Limit()), 1, "the read-back the plan reserves")
	require.Same(t, s.destRead[0], chain[1])
	require.Same(t, s.busIn["tb-1"], chain[2])
	require.Len(t, chain, 3)

	// Real hardware: the raid's read-back is not on a bus a card is held
	// by, so it is not held back; with the raid on the cards' bus it is.
	s, err = New(Config{Topology: top, Plan: plan.Options{Verify: true}})
	require.NoError(t, err)
	require.Equal(t, rate.Inf, s.verifyShare[0].Limit())
	shared := top.Clone()
	shared.Destinations[0].Bus = "usb-a"
	s, err = New(Config{Topology: shared, Plan: plan.Options{Verify: true}})
	require.NoError(t, err)
	require.Equal(t, "bus:usb-a", s.Plan().Card("A001").LimitedBy)
	require.InDelta(t, s.Plan().Destinations[0].ReadLoad, float64(s.verifyShare[0].Limit()), 1)
	// Once every card is copied nothing is reserved any more.
	for i := range s.cards {
		require.NoError(t, s.CardCopied(i))
	}
	require.Equal(t, rate.Inf, s.verifyShare[0].Limit())

	// dest -1: the card re-read, through the card's read chain.
	s, err = New(Config{Topology: top, Simulate: true, Scale: 1e-6})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.WaitVerify(ctx, 3, -1, 4<<20), context.DeadlineExceeded, "the card's medium paces its re-read")
	require.NoError(t, s.WaitVerify(context.Background(), 0, 7, 1), "an unknown destination is not paced")
}

// TestRunPlanIsThePlanAtTheScale: simulating at a scale, the plan shown is
// the plan of what runs: every rate scale times and every ETA 1/scale
// times the field plan's, the CPU (which really runs here) as measured;
// at scale 1 it is the field plan.
func TestRunPlanIsThePlanAtTheScale(t *testing.T) {
	top := topo(t, threeOnOneBus)
	for i := range top.Sources {
		top.Sources[i].Size = int64(i+1) * 10e9
	}
	cpu := &plan.CPU{Cores: 4, PerCore: map[hashing.Algo]float64{hashing.MD5: 0.7e9, hashing.XXH64: 9e9}}
	opts := plan.Options{Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}, Verify: true,
		VerifyHashes: []hashing.Algo{hashing.XXH64}, CPU: cpu}
	s, err := New(Config{Topology: top, Simulate: true, Scale: 0.1, Plan: opts})
	require.NoError(t, err)
	field, run := s.Plan(), s.RunPlan()
	require.Len(t, run.Cards, len(field.Cards))
	for i, c := range field.Cards {
		require.Equal(t, c.LimitedBy, run.Cards[i].LimitedBy, c.Name)
		require.InEpsilon(t, c.Rate*0.1, run.Cards[i].Rate, 1e-9, c.Name)
		require.InEpsilon(t, *c.ETASeconds/0.1, *run.Cards[i].ETASeconds, 1e-9, c.Name)
	}
	require.InEpsilon(t, *field.ETASeconds/0.1, *run.ETASeconds, 1e-9)
	require.InEpsilon(t, 0.7e9, run.CPU.PerStream, 1e-9, "one card hashes at most MD5's speed on this CPU")
	require.InEpsilon(t, 7e9, field.CPU.PerStream, 1e-9, "in field units the CPU is 1/scale as fast")
	require.InEpsilon(t, field.CPU.CoresUsed, run.CPU.CoresUsed, 1e-9)

	s, err = New(Config{Topology: top, Simulate: true, Plan: opts})
	require.NoError(t, err)
	require.Same(t, s.Plan(), s.RunPlan())
}
