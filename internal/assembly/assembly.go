package assembly

import (
	"context"
	"fmt"
	"github.com/dit-org/dit/internal/devices"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/proxies"
	"github.com/dit-org/dit/internal/sched"
	"github.com/dit-org/dit/internal/seal"
	"github.com/dit-org/dit/reports/jobreport"
)

// Prepared is a job put together and not yet created: what the catalog's
// memory of earlier offloads decided, and what the front end may say
// before the job starts. Open creates it.
type Prepared struct {
	// Decisions are what earlier offloads of the cards decided, in order,
	// with their reasons (a new job's; a resumed job has none).
	Decisions []Decision
	// NothingToCopy: every card was offloaded and verified before; Open
	// must not be called (no job is created).
	NothingToCopy bool
	// Cards and Dests are those the job copies (Dests without LeftOut:
	// the destinations every card to copy already has).
	Cards, Dests, LeftOut []string
	// Notes say what the discovery of the volumes could not tell;
	// Warnings what went wrong on the side (the CPU benchmark cache).
	Notes, Warnings []string

	s    Settings
	opts offload.Options
	sch  *sched.Scheduler
	pj   planJob
	// observing: sch only plans and records (a job without a bus
	// budget); it is not the job's limiter and not shown as its plan.
	observing bool
	learnErr  error
	clipper   *jobreport.Clipper
	proxy     *proxies.Maker
	notif     *notifier

	mu      sync.Mutex
	reports []string
	// engine is the engine's job once Open made it: the proxies' counts
	// go to its live model.
	engine atomic.Pointer[offload.Job]
}

// CheckMHL checks a hash-list choice (asc, v1, both, none; "" asc):
// parseErr when it is none of them, hashErr when the hashes algos do not
// include one the lists need.
func CheckMHL(mhl string, algos []hashing.Algo) (parseErr, hashErr error) {
	f, err := seal.ParseFormat(mhl)
	if err != nil {
		return err, nil
	}
	return nil, f.Check(algos)
}

// Prepare assembles the job of s (see the package doc). ctx bounds the
// look-up of earlier offloads and the clips' work (ffmpeg) for the job's
// life. Nothing is recorded in the catalog.
func Prepare(ctx context.Context, s Settings) (*Prepared, error) {
	if s.FS == nil {
		s.FS = fsys.OS{}
	}
	if len(s.Hashes) == 0 && s.Resume == 0 {
		s.Hashes = []hashing.Algo{hashing.MD5, hashing.XXH64} // the engine's default
	}
	p := &Prepared{s: s, Cards: s.Cards, Dests: s.Dests}
	format, err := p.hashLists()
	if err != nil {
		return nil, err
	}
	changed := false
	if s.Resume == 0 {
		if p.Cards, p.Dests, p.Decisions, err = decide(ctx, &p.s); err != nil {
			return nil, err
		}
		if len(p.Cards) == 0 {
			p.NothingToCopy = true
			return p, nil
		}
		for _, d := range s.Dests {
			if !slices.Contains(p.Dests, d) {
				p.LeftOut = append(p.LeftOut, d)
			}
		}
		changed = len(p.Cards) != len(s.Cards) || len(p.LeftOut) > 0
		p.s.Cards, p.s.Dests = p.Cards, p.Dests
		if err := p.checkClouds(ctx); err != nil {
			return nil, err
		}
		if err := p.drives(ctx); err != nil {
			return nil, err
		}
		if err := p.cloudSpace(ctx); err != nil {
			return nil, err
		}
	} else if err := p.checkClouds(ctx); err != nil {
		return nil, err
	}
	p.opts = p.options()
	if format.ASC || format.V1 {
		p.opts.Seal = (&seal.Sealer{Format: format}).Seal
	}
	if err := p.newScheduler(ctx, changed); err != nil {
		return nil, err
	}
	var inner offload.Limiter
	if p.sch != nil {
		p.opts.Prior = planPrior(p.sch)
		if !p.observing {
			inner = p.sch
		}
	}
	if pace := s.Hooks.Pace; pace != nil {
		p.opts.Limiter = pace(inner)
	} else {
		p.opts.Limiter = inner
	}
	if err := p.proxies(ctx); err != nil {
		return nil, err
	}
	p.notif = newNotifier(&p.s, s.Name)
	p.hooks(ctx)
	return p, nil
}

// drives checks the health of the destinations' drives (Settings.Drives).
func (p *Prepared) drives(ctx context.Context) error {
	if p.s.Drives == DrivesOff {
		return nil
	}
	health := p.s.Hooks.DriveHealth
	if health == nil {
		health = func(ctx context.Context, vols []devices.Volume, path string) *devices.Health {
			return devices.HealthOf(ctx, vols, path, nil)
		}
	}
	bad := checkDrives(ctx, append(append([]string(nil), p.Dests...), p.s.Then...), health)
	if len(bad) > 0 && p.s.Drives == DrivesRefuse {
		return &DriveError{Problems: bad}
	}
	for _, b := range bad {
		p.Warnings = append(p.Warnings, b+": copying anyway; replace it soon (a job can be set to refuse such a drive: dit offload --drive-health refuse)")
	}
	return nil
}

// hashLists are the hash lists the job writes: a resumed job's those it
// started with.
func (p *Prepared) hashLists() (seal.Format, error) {
	s := &p.s
	if s.Resume != 0 {
		rec, err := s.Catalog.Job(s.Resume)
		if err != nil {
			return seal.Format{}, err
		}
		if s.MHL, err = offload.ResumeMHL(rec, s.MHL); err != nil {
			return seal.Format{}, err
		}
		f, err := seal.ParseFormat(s.MHL)
		if err != nil {
			return f, fmt.Errorf("job %d: recorded hash lists: %w", s.Resume, err)
		}
		return f, nil
	}
	f, err := seal.ParseFormat(s.MHL)
	if err != nil {
		return f, usage(err)
	}
	if err := f.Check(s.Hashes); err != nil {
		return f, usage(fmt.Errorf("--mhl %s: %w (or use --mhl none)", s.MHL, err))
	}
	if s.MHL == "" {
		s.MHL = offload.DefaultMHL
	}
	return f, nil
}

// Check refuses the settings' mistakes that need no catalog (the cards,
// the destinations, the layout: offload.Check) before anything is opened
// or recorded.
func Check(s Settings) error { return offload.Check(engineOptions(&s)) }

// options are the engine's options, without the hooks.
func (p *Prepared) options() offload.Options { return engineOptions(&p.s) }

func engineOptions(s *Settings) offload.Options {
	then := s.Then
	if s.Resume != 0 {
		then = nil
	}
	return offload.Options{
		JobSpec: offload.JobSpec{Name: s.Name, Cards: s.Cards, Dests: s.Dests, Then: then, ThenParallel: s.ThenParallel,
			Hashes: s.Hashes, Verify: s.Verify, VerifyAll: s.VerifyAll, Layout: s.Layout, OnConflict: s.OnConflict,
			IncludeHidden: s.IncludeHidden, Ignore: s.Ignore, MHL: s.MHL, Proxies: s.Proxies, ProxiesTo: s.ProxiesTo},
		Env: offload.Env{FS: s.FS, Catalog: s.Catalog, ToolVersion: s.ToolVersion, AllowDegraded: s.AllowDegraded,
			BlockSize: s.BlockSize, CheckpointEvery: s.CheckpointEvery, Throttle: s.Throttle, RereadCard: s.RereadCard, ResumeArgs: s.ResumeArgs,
			Creator: offload.Creator{Author: s.Author, Location: s.Location, Comment: s.Comment}, NoDirectoryHashes: s.NoDirectoryHashes,
			Remote: RemoteSettings(s.Rclone)},
	}
}

// hooks wires the events and the job's end: the clips first (a card
// done is in their queue before a front end waits for them), the
// scheduler, the front end, the notifications; the reports when the job
// ends.
func (p *Prepared) hooks(ctx context.Context) {
	p.clipper = jobreport.NewClipper(ctx, p.s.Catalog)
	p.clipper.ALE = p.s.ALE
	onEvent := p.s.Hooks.OnEvent
	p.opts.OnEvent = func(e offload.Event) {
		p.clipper.OnEvent(e)
		if p.proxy != nil {
			p.proxy.OnEvent(e) // after the card's run: its copies are verified
		}
		if p.sch != nil {
			p.sch.Observe(e)
		}
		if onEvent != nil {
			onEvent(e)
		}
		p.notif.event(e)
	}
	// Hash lists and reports on a dit array destination go through the
	// job's filesystem (the engine hands it to both hooks), into the
	// array.
	written := p.clipper.AfterJob(func(paths []string) {
		p.mu.Lock()
		p.reports = paths
		p.mu.Unlock()
		if p.s.Hooks.OnReports != nil {
			p.s.Hooks.OnReports(paths)
		}
	})
	p.opts.AfterJob = func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
		if p.proxy != nil {
			// Before the reports, which list them. A proxy that failed is
			// recorded as such (the footage is safe); only the catalog's
			// own failure comes back, and it does not fail the reports.
			p.proxy.Run(ctx, s.JobID)
			wfs := fsy
			if wfs == nil {
				wfs = fsys.OS{}
			}
			p.proxy.WriteArrays(ctx, s.JobID, wfs) // the job's arrays, open in fsy
		}
		err := written(ctx, s, fsy)
		p.notif.afterJob(s, fsy)
		return err
	}
}

// Open creates the job (offload.New, or offload.Resume): a job the
// engine refuses (a bad destination, no space, a locked destination) is
// not created, and its notifications are closed.
func (p *Prepared) Open(ctx context.Context) (*Job, error) {
	if p.NothingToCopy {
		return nil, usage(fmt.Errorf("%s", NothingToCopy))
	}
	var job *offload.Job
	var err error
	if p.s.Resume != 0 {
		job, err = offload.Resume(ctx, p.s.Catalog, p.s.Resume, p.opts)
	} else {
		job, err = offload.New(ctx, p.opts)
	}
	if err != nil {
		p.notif.finish(ctx, nil, nil)
		return nil, err
	}
	p.engine.Store(job)
	return &Job{Job: job, p: p}, nil
}

// Job is an assembled job: the engine's job (its ID, AddCard, Snapshot
// ...) with what the assembly attached.
type Job struct {
	*offload.Job
	p *Prepared
}

// Start binds the scheduler to the job's cards (labels, catalog ids and
// bytes to copy, in the job's order) and records its plan in the catalog;
// without a scheduler it does nothing.
func (j *Job) Start() error {
	if j.p.sch == nil {
		return nil
	}
	return j.p.sch.StartJob(j.p.s.Catalog, j.Job)
}

// Run runs the job to its end (the reports are written before it
// returns) and gives its summary: the verdict read model.
//
// Once the job has ended, what its destinations cost is measured for the
// next plans (sched.LearnCosts); LearnErr says when that failed.
func (j *Job) Run(ctx context.Context) (*offload.Summary, error) {
	sum, err := j.Job.Run(ctx)
	if err == nil && sum != nil && !sum.NothingToDo && j.p.s.Catalog != nil {
		_, lerr := sched.LearnCosts(j.p.s.Catalog, sum.JobID)
		j.p.mu.Lock()
		j.p.learnErr = lerr
		j.p.mu.Unlock()
	}
	return sum, err
}

// LearnErr is why the job's costs were not measured for the next plans
// (nil: they were, or the job did not end).
func (j *Job) LearnErr() error {
	j.p.mu.Lock()
	defer j.p.mu.Unlock()
	return j.p.learnErr
}

// Finish sends the job's last notification (job_done with its summary and
// PDF report; or the failure runErr that stopped it), waits a bounded
// time for what is pending (shorter once ctx is cancelled) and returns
// what did not go out. Call it once, after Run.
func (j *Job) Finish(ctx context.Context, sum *offload.Summary, runErr error) []string {
	return j.p.notif.finish(ctx, sum, runErr)
}

// Reports are the report files written when the job ended.
func (j *Job) Reports() []string {
	j.p.mu.Lock()
	defer j.p.mu.Unlock()
	return append([]string(nil), j.p.reports...)
}

// WaitClips waits until the clips of the cards done so far are
// recognised (and their thumbnails made).
func (j *Job) WaitClips() { j.p.clipper.Wait() }

// PlanView is a scheduled job's plan as the front end shows it.
type PlanView struct {
	Topology *plan.Topology
	// Plan is in field units; Run in the run's (simulating at a scale,
	// the scaled rates and times).
	Plan, Run            *plan.Result
	Scale                float64
	Hashes, VerifyHashes []hashing.Algo
	Verify               bool
}

// Plan is the job's plan (nil: no scheduler).
func (j *Job) Plan() *PlanView {
	s := j.p.sch
	if s == nil || j.p.observing {
		return nil
	}
	return &PlanView{Topology: s.Topology(), Plan: s.Plan(), Run: s.RunPlan(), Scale: s.Scale(),
		Hashes: j.p.pj.hashes, VerifyHashes: j.p.pj.verifyHashes, Verify: j.p.pj.verify}
}

// PlanErr is the last re-planning error (nil: none, or no scheduler).
func (j *Job) PlanErr() error {
	if j.p.sch == nil || j.p.observing {
		return nil
	}
	return j.p.sch.Err()
}
