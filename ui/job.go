package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// jobSettings is a job as the Offload view or an auto-offload sets it
// up: the job's settings from its assembly.Spec (Spec.Settings: every
// value checked with the engine's rules, the cards in), and the app's
// own parts besides them: the topology of the plan, a simulation, a
// preset's notifications. The catalog, filesystem, hooks and rclone are
// added when the job is assembled (assemblySettings). A Resume's cards,
// destinations and settings come from the catalog; Throttle caps each
// card's read rate (Prepare.Throttle: tests and demos without a plan);
// AgainCards are the cards checked "Copy it again".
type jobSettings struct {
	assembly.Settings
	// Topology, when set, is the job's own topology (the plan the Offload
	// view showed), enforced by a scheduler: the plan's shares, and with
	// Simulate the plan's hardware at Scale.
	Topology *plan.Topology
	// WatchTopology, when set, is an auto-offload's topology file: each
	// job is planned with its part of it, and a card that joins the
	// running job later with its entry.
	WatchTopology *plan.Topology
	Simulate      bool
	Scale         float64
	// NotifyFile holds the notify: section the job's notifications are
	// sent with ("": the app's, Config.NotifyConfig).
	NotifyFile string
}

// jobRun is the job in progress: its engine job, the pause switch, the
// cancel function and the model the running view renders.
type jobRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	pause  *pauser
	job    *assembly.Job // with its clips, reports and notifications
	model  *runModel
	done   chan struct{}
	bg     sync.WaitGroup // readers of the cards' verdicts
	mu     sync.Mutex
	// watched: started by the auto-offload watch (not by hand).
	watched bool
	// The job's destinations of each run (then: a cascade's second run).
	dests, then []string
	// proxies: its proxies in words once it ended (assembly.ProxyCount,
	// dit job show's; "" none), set before done is closed.
	proxies string
}

// errClosing: the app is closing, the job must not start.
var errClosing = errors.New("dit-gui is closing")

// runJob prepares and runs a job started by hand (call in a goroutine).
// Errors before the start (bad input, no space, a locked destination) go
// back to the Offload view in words.
func (a *App) runJob(s jobSettings) {
	run, err := a.prepareJob(s, nil)
	if err != nil {
		if !errors.Is(err, errClosing) {
			a.do(func() {
				a.offload.jobDone(err)
				a.showError(err)
			})
		}
		return
	}
	a.finishJob(run)
}

// errNothingToCopy: every card of the job was offloaded and verified
// before on every destination (assembly.NothingToCopy); no job is made.
var errNothingToCopy = errors.New(assembly.NothingToCopy)

// prepareJob assembles the job of s (internal/assembly: the same as dit
// offload's, earlier offloads' decisions included), binds it to the
// running view and returns it, ready for finishJob (call in a goroutine).
// extra, if set, gets every engine event too (a watch's eject when
// free). The job's context is its own: only Cancel (or the app closing)
// interrupts it.
func (a *App) prepareJob(s jobSettings, extra func(offload.Event)) (*jobRun, error) {
	ctx, cancel := context.WithCancel(context.Background())
	run := &jobRun{ctx: ctx, cancel: cancel, done: make(chan struct{}), watched: extra != nil}
	if !a.track(run) {
		cancel()
		return nil, errClosing
	}
	fail := func(err error) (*jobRun, error) {
		cancel()
		close(run.done)
		return nil, err
	}
	prep, err := assembly.Prepare(ctx, a.assemblySettings(s, run, extra))
	if err == nil && prep.NothingToCopy {
		return fail(errNothingToCopy)
	}
	var job *assembly.Job
	if err == nil {
		job, err = prep.Open(ctx)
	}
	if err != nil {
		var ue *offload.UsageError
		if errors.As(err, &ue) {
			err = errors.New(ue.Error())
		}
		return fail(fmt.Errorf("The job cannot start: %w", err))
	}
	run.job = job
	m := a.runModelOf(run, s)
	// What the assembly said (drive health, measured rates) is shown
	// before the job copies anything, and stays in the job's view.
	m.setPrepared(prep.Warnings, prep.Notes)
	run.setModel(m)
	if err := job.Start(); err != nil {
		m.apply(offload.Event{Type: offload.EvWarning, Time: a.cfg.Now(), Message: "the plan: " + err.Error()})
	}
	if pv := job.Plan(); pv != nil {
		m.setPlan(pv.Plan, "start")
	}
	a.do(func() {
		a.running.bind(run)
		a.offload.say(preparedText(prep))
		a.selectTab(a.running.content)
	})
	return run, nil
}

// assemblySettings are the job settings of s for internal/assembly, with
// the app's catalog, filesystem, notifications and hooks: the running
// view's model, the pause switch around the scheduler.
func (a *App) assemblySettings(s jobSettings, run *jobRun, extra func(offload.Event)) assembly.Settings {
	set := s.Settings
	set.Rclone = a.rclone(set.Rclone)
	set.FS, set.Catalog, set.ToolVersion, set.Notify = a.cfg.FS, a.cfg.Catalog, "dit-gui "+a.cfg.Version, a.notifyConfig(s.NotifyFile)
	if s.Resume != 0 {
		set.MHL = "" // the hash lists it started with
	}
	switch {
	case s.WatchTopology != nil:
		set.Sched.Topology, set.Sched.Sizes = s.WatchTopology, true
	case s.Topology != nil:
		set.Sched.Topology, set.Sched.Prepared = s.Topology, true
	}
	if s.WatchTopology != nil || s.Topology != nil {
		set.Sched.Simulate, set.Sched.Scale = s.Simulate, s.Scale
	}
	set.Hooks = assembly.Hooks{
		OnEvent: func(e offload.Event) {
			a.onEvent(run, e)
			if extra != nil {
				extra(e)
			}
		},
		OnPlan: func(r *plan.Result, why string) {
			if m := run.modelOrNil(); m != nil {
				m.setPlan(r, why)
			}
		},
		DriveHealth: a.driveHealth,
		OnNotify:    a.notified,
		ResumeHint:  func(id int64) string { return fmt.Sprintf("resume job %d from History", id) },
		Pace: func(inner offload.Limiter) offload.Limiter {
			run.pause = newPauser(inner)
			return run.pause
		},
	}
	return set
}

// rclone is the rclone of a job whose Spec gave r (Spec.Settings: its
// rclone_config and cloud_bwlimit): the app's (Config.Rclone), with the
// Spec's configuration file and upload limit when it gives them.
func (a *App) rclone(r *cloud.Rclone) *cloud.Rclone {
	if r == nil || r.Config == "" && r.BwLimit == "" {
		return a.cfg.Rclone
	}
	var c cloud.Rclone
	if a.cfg.Rclone != nil {
		c = *a.cfg.Rclone
	}
	c.Config, c.BwLimit = cmp.Or(r.Config, c.Config), cmp.Or(r.BwLimit, c.BwLimit)
	return &c
}

// preparedText is what the assembly said before the job's start, for the
// Offload view ("" when nothing).
func preparedText(p *assembly.Prepared) string {
	if len(p.Warnings)+len(p.Notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The job started with:")
	for _, w := range p.Warnings {
		b.WriteString("\nWarning: " + w)
	}
	for _, n := range p.Notes {
		b.WriteString("\nNote: " + n)
	}
	return b.String()
}

// driveHealth is a destination drive's health for the check before a job
// (assembly.Hooks.DriveHealth): the drive is found among the app's
// volumes (Config.Discover) and asked through Config.SMART.
func (a *App) driveHealth(ctx context.Context, vols []devices.Volume, path string) *devices.Health {
	if mine, err := a.cfg.Discover(ctx); err == nil {
		vols = mine
	}
	return devices.HealthOf(ctx, vols, path, a.cfg.SMART)
}

// runModelOf is the running view's model of the job just opened: its
// cards (a resumed job's from the catalog) and the destinations of each
// run (a cascade, also a resumed one: from the catalog).
func (a *App) runModelOf(run *jobRun, s jobSettings) *runModel {
	cat, job := a.cfg.Catalog, run.job
	paths := s.Cards
	if recs, err := cat.Cards(job.ID()); err == nil {
		paths = nil
		for _, k := range catalog.FirstRun(recs) {
			paths = append(paths, k.Path)
		}
	}
	m := newRunModel(job.ID(), job.Name(), a.cfg.Now(), job.Snapshot(), paths)
	if ds, err := cat.Dests(job.ID()); err == nil {
		var first, then []string
		for _, d := range ds {
			if d.Hop == 2 {
				then = append(then, d.Path)
			} else {
				first = append(first, d.Path)
			}
		}
		m.setCascade(first, then)
		run.dests, run.then = first, then
	} else {
		m.setCascade(s.Dests, s.Then)
		run.dests, run.then = s.Dests, s.Then
	}
	if s.Simulate {
		m.sim = simText(s.Scale)
	}
	return m
}

// finishJob runs a prepared job to its end and shows its verdicts (call
// in a goroutine); the notifications of its end go out in the
// background.
func (a *App) finishJob(run *jobRun) (*offload.Summary, error) {
	job, m := run.job, run.modelOrNil()
	sum, err := job.Run(run.ctx)
	run.bg.Wait()   // the cards' verdicts (and clips) being read
	a.waitRenders() // the events' renders: the last one below draws the end
	// The clips of cards the engine did not say were done (a resumed
	// job's): the clipper did them before the reports.
	loadRunClips(a.cfg.Catalog, m, "")
	m.setCounters(job.Snapshot(), a.cfg.Now())
	if err != nil {
		m.fail(err.Error())
	} else {
		m.applySummary(sum, true)
	}
	run.proxies, _ = assembly.ProxyCount(a.cfg.Catalog, job.ID()) // made in the job's end, before the reports
	run.cancel()
	close(run.done)
	settled := err == nil && sum != nil && !sum.Status.Bad()
	a.do(func() {
		if settled {
			a.banner.settleJob(m.jobID) // every card of it ended as asked
		}
		a.running.render()
		a.offload.jobDone(nil)
		a.offload.rescan() // the cards just offloaded now read as such
		a.history.reload()
	})
	a.goBG(func() { a.notifyEnd(run, sum, err) })
	return sum, err
}

func (r *jobRun) setModel(m *runModel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.model = m
}

func (r *jobRun) modelOrNil() *runModel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model
}

// reportPaths are the report files written when the job ended.
func (r *jobRun) reportPaths() []string {
	if r.job == nil {
		return nil
	}
	return r.job.Reports()
}

// finished reports whether the job has ended.
func (r *jobRun) finished() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// onEvent feeds an engine event to the model and redraws when it matters
// (renderSoon: renders coalesced, the engine never waits for one).
// A card's verdict is the engine's (card_done, read from the catalog):
// one that is not bad settles what the banner said of the card before
// (a failure, a removal), as a retry or a resume that made it safe does.
func (a *App) onEvent(run *jobRun, e offload.Event) {
	m := run.modelOrNil()
	if m == nil {
		return
	}
	redraw := m.apply(e)
	switch e.Type {
	case offload.EvCardDone:
		if !e.State.Bad() {
			id := m.jobID
			a.do(func() { a.banner.settle(id, e.Card) })
		}
	case offload.EvRunDone:
		// The card's clips: the clipper recognises them (and makes
		// their thumbnails) in the background, then the catalog has
		// them.
		run.bg.Add(1)
		go func() {
			defer run.bg.Done()
			run.job.WaitClips()
			if loadRunClips(a.cfg.Catalog, m, e.Card) {
				a.renderSoon()
			}
		}()
	}
	if redraw {
		if run.job != nil {
			m.setCounters(run.job.Snapshot(), e.Time)
		}
		a.renderSoon()
	}
}

// loadRunClips reads the clips of the job's cards (only label's, unless
// it is "") from the catalog into the model; it tells whether a card got
// them. A card whose clips are not recognised yet has none in the
// catalog and is left as it is.
func loadRunClips(cat *catalog.Catalog, m *runModel, label string) bool {
	cards, err := cat.Cards(m.jobID)
	if err != nil {
		return false
	}
	got := false
	for _, k := range catalog.FirstRun(cards) {
		if label != "" && k.Label != label {
			continue
		}
		rows, err := cat.Clips(k.ID)
		if err != nil || len(rows) == 0 {
			continue
		}
		got = m.setClips(k.Label, summariseClips(rows)) || got
	}
	return got
}
