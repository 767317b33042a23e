package assembly

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/sched"
	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
)

// TopologyRequest is the topology of a job to plan: the set's (nil:
// discovered from the mounted volumes of the cards and destinations), cut
// to the job's cards and destinations.
type TopologyRequest struct {
	Topology           *plan.Topology
	Cards, Dests, Then []string
	// Limits cap destinations: RATE (all) or DEST=RATE.
	Limits []string
	// Sizes fills each card's size from its folder (the plan's times).
	Sizes bool
	// UploadRate, when above zero, is the cart's uplink shared by the
	// cloud destinations (bytes/s; it replaces the topology's
	// upload_rate).
	UploadRate float64
	// Measured, when set, is the catalog's LatestSpeedTest: each card's
	// and destination's latest dit speedtest replaces its table rates
	// (internal/speedtest.Apply), and the notes say so.
	Measured func(volume string, written bool) (*catalog.SpeedTest, error)
	// Costs, when set, is the catalog's RecentCosts: each destination's
	// per-file and fixed costs measured after earlier jobs replace its
	// kind's defaults (sched.ApplyCosts), and the notes say so.
	Costs func(volume string, n int) ([]catalog.Costs, error)
}

// JobTopology is the part of a topology a job uses, as its scheduler
// plans it: its cards' sources and its destinations (a cascade's
// second-run ones marked), with the limits applied. notes say what
// discovery could not tell. A limit or a --then that does not fit is a
// *UsageError.
func JobTopology(ctx context.Context, r TopologyRequest) (t *plan.Topology, notes []string, err error) {
	dests := append(append([]string(nil), r.Dests...), r.Then...)
	switch {
	case r.Topology == nil:
		vols, err := devices.Discover(ctx)
		if err != nil {
			return nil, nil, err
		}
		if t, notes, err = devices.Topology(vols, r.Cards, dests); err != nil {
			return nil, nil, err
		}
	case len(r.Cards) > 0 || len(dests) > 0:
		if t, err = sched.ForJob(r.Topology, r.Cards, dests); err != nil {
			return nil, nil, err
		}
	default:
		t = r.Topology
	}
	if err := sched.MarkThen(t, r.Then); err != nil {
		return nil, nil, usage(err)
	}
	if r.Sizes {
		sched.FillSizes(t)
	}
	if r.UploadRate > 0 {
		t.Upload = r.UploadRate
	}
	if err := applyLimits(t, r.Limits); err != nil {
		return nil, nil, usage(err)
	}
	if r.Measured != nil {
		notes = WithMeasured(notes, t, r.Measured)
	}
	notes = append(notes, sched.ApplyCosts(t, r.Costs)...)
	return t, notes, nil
}

// WithMeasured applies the speed tests to t (latest is the catalog's
// LatestSpeedTest) and returns the notes: discovery's notes of what it
// could not tell of a volume that was measured give way to the
// measurement's own.
func WithMeasured(notes []string, t *plan.Topology, latest func(string, bool) (*catalog.SpeedTest, error)) []string {
	mnotes, measured := speedtest.Apply(t, latest, time.Now())
	var out []string
	for _, n := range notes {
		drop := false
		for p := range measured {
			if strings.HasPrefix(n, "card "+p+":") || strings.HasPrefix(n, "destination "+p+":") {
				drop = true
			}
		}
		if !drop {
			out = append(out, n)
		}
	}
	return append(out, mnotes...)
}

// MachineCPU is this machine's CPU for planning the hashes algos: its
// self-benchmark cached in cat (measured now when missing). When the
// cache cannot be read or written the CPU is measured anyway and the
// error returned beside it, as a warning.
func MachineCPU(cat *catalog.Catalog, spec plan.CPUSpec, algos []hashing.Algo) (*plan.CPU, error) {
	cpu, err := sched.MachineCPU(cat, spec, algos)
	if err != nil {
		cpu, _ = sched.MachineCPU(nil, spec, algos)
	}
	return cpu, err
}

// applyLimits sets --limit values on the topology's destinations.
func applyLimits(t *plan.Topology, limits []string) error {
	for _, l := range limits {
		target, value, named := strings.Cut(l, "=")
		if !named {
			value, target = target, ""
		}
		r, err := units.ParseRate(value)
		if err != nil || r <= 0 {
			return fmt.Errorf("invalid --limit %q: use a rate such as 0.9GB/s, or DEST=RATE", l)
		}
		hit := false
		for i := range t.Destinations {
			d := &t.Destinations[i]
			if target == "" || d.Name == target || (d.Path != "" && filepath.Clean(d.Path) == filepath.Clean(target)) {
				d.Limit, hit = r, true
			}
		}
		if !hit {
			var names []string
			for _, d := range t.Destinations {
				names = append(names, d.Name)
			}
			return fmt.Errorf("--limit %q: no destination %q (destinations: %s)", l, target, strings.Join(names, ", "))
		}
	}
	return nil
}

// planJob is what a job does besides moving bytes, for its plan.
type planJob struct {
	hashes, verifyHashes []hashing.Algo
	verify               bool
	cards, dests, then   []string
	thenParallel         int
}

// planJobOf is the job's planning settings: a resumed job's from the
// catalog.
func planJobOf(s *Settings) (planJob, error) {
	p := planJob{hashes: s.Hashes, verify: s.Verify != offload.VerifyNone, cards: s.Cards, dests: s.Dests, then: s.Then,
		thenParallel: max(s.ThenParallel, 1)}
	all := s.VerifyAll
	if s.Resume != 0 {
		rec, err := s.Catalog.Job(s.Resume)
		if err != nil {
			return p, err
		}
		if p.hashes, err = hashing.ParseList(rec.Hashes); err != nil {
			return p, fmt.Errorf("job %d: recorded hashes: %w", s.Resume, err)
		}
		p.verify, all = offload.VerifyMode(rec.VerifyMode) != offload.VerifyNone, rec.VerifyHashes == "all"
		if p.cards, p.dests, p.then, err = sched.JobPaths(s.Catalog, s.Resume); err != nil {
			return p, err
		}
		p.thenParallel = max(rec.ThenParallel, 1)
	}
	if len(p.hashes) == 0 {
		p.hashes = []hashing.Algo{hashing.MD5, hashing.XXH64}
	}
	p.verifyHashes = []hashing.Algo{hashing.Fastest(p.hashes)}
	if all {
		p.verifyHashes = p.hashes
	}
	return p, nil
}

// newScheduler builds the job's scheduler (nil when the settings ask for
// no bus budget). cardsChanged: the decisions left cards or destinations
// out of a prepared topology.
func (p *Prepared) newScheduler(ctx context.Context, cardsChanged bool) error {
	s, sc := &p.s, p.s.Sched
	if !sc.active() {
		p.observe(ctx)
		return nil
	}
	pj, err := planJobOf(s)
	if err != nil {
		return err
	}
	t := sc.Topology
	if !sc.Prepared || cardsChanged {
		var notes []string
		// Sizes: each card's file count and what is left to read back
		// when its copy ends, for its times to safe to format.
		req := TopologyRequest{Topology: sc.Topology, Cards: pj.cards, Dests: pj.dests, Then: pj.then,
			Limits: sc.Limits, Sizes: true}
		if s.Catalog != nil {
			req.Measured, req.Costs = s.Catalog.LatestSpeedTest, s.Catalog.RecentCosts
		}
		t, notes, err = JobTopology(ctx, req)
		var ue *UsageError
		if err != nil && sc.Topology != nil && !errors.As(err, &ue) {
			err = usage(err)
		}
		if err != nil {
			return err
		}
		p.Notes = append(p.Notes, notes...)
	}
	cpu, err := MachineCPU(s.Catalog, t.CPU, append(append([]hashing.Algo{}, pj.hashes...), pj.verifyHashes...))
	if err != nil {
		p.Warnings = append(p.Warnings, "CPU benchmark cache: "+err.Error())
	}
	cfg := sched.Config{Topology: t, Simulate: sc.Simulate, PhysicsOnly: sc.PhysicsOnly, OnPlan: s.Hooks.OnPlan,
		Plan: plan.Options{Hashes: pj.hashes, Verify: pj.verify, VerifyHashes: pj.verifyHashes, CPU: cpu, ThenParallel: pj.thenParallel}}
	if sc.Topology != nil && !sc.Prepared {
		// Cards that join the job later are planned with their entry.
		cfg.Spares = sc.Topology.Sources
	}
	if sc.Simulate && sc.Scale > 0 {
		cfg.Scale = sc.Scale
	}
	if p.sch, err = sched.New(cfg); err != nil {
		return fmt.Errorf("the plan cannot be enforced: %w", err)
	}
	p.pj = pj
	return nil
}

// observe gives a job without a bus budget a scheduler that plans and
// records but enforces nothing (sched.Config.Observe): its plan, from the
// discovered volumes, the speed tests, the costs measured before and the
// CPU's speeds where they are cached (never measured at its start), is
// what the live estimates start from and what dit job show sets against
// the run. A job whose volumes cannot be planned runs without one: the
// plan is the estimates' starting point, not a condition of the copy.
func (p *Prepared) observe(ctx context.Context) {
	s := &p.s
	if s.Catalog == nil || s.Resume != 0 {
		return // a resumed job keeps the plan it started with
	}
	pj, err := planJobOf(s)
	if err != nil {
		return
	}
	req := TopologyRequest{Cards: pj.cards, Dests: pj.dests, Then: pj.then, Sizes: true,
		Measured: s.Catalog.LatestSpeedTest, Costs: s.Catalog.RecentCosts}
	t, _, err := JobTopology(ctx, req)
	if err != nil {
		return
	}
	cpu := sched.CachedCPU(s.Catalog, t.CPU, append(append([]hashing.Algo{}, pj.hashes...), pj.verifyHashes...))
	sch, err := sched.New(sched.Config{Topology: t, Observe: true,
		Plan: plan.Options{Hashes: pj.hashes, Verify: pj.verify, VerifyHashes: pj.verifyHashes, CPU: cpu, ThenParallel: pj.thenParallel}})
	if err != nil {
		return
	}
	p.sch, p.pj, p.observing = sch, pj, true
}
