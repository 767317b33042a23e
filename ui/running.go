package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/watch"
)

// jobSettings is a job as the Offload view sets it up.
type jobSettings struct {
	Name         string
	Cards, Dests []string
	// Then are a cascade's second-run destinations, filled from each
	// card's first copy (on Dests[0]) once the card is free; ThenParallel
	// is how many cards the second run copies at once.
	Then         []string
	ThenParallel int
	Hashes       []hashing.Algo
	Verify       offload.VerifyMode
	VerifyAll    bool
	// MHL is the hash lists written into each card's folder: asc, v1,
	// both or none (seal.ParseFormat). A resumed job writes the lists it
	// was started with, whatever this says.
	MHL           string
	AllowDegraded bool
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
	// Throttle caps each card's read rate (bytes/s; tests and demos
	// without a plan).
	Throttle float64
	// Resume, when not 0, continues that interrupted job instead (its
	// cards, destinations and settings come from the catalog).
	Resume int64
	// A watched preset's layout, ignore patterns and hidden files ("" and
	// nil: the engine's defaults, as the Offload view's jobs).
	Layout        string
	Ignore        []string
	IncludeHidden bool
	// NotifyFile holds the notify: section the job's notifications are
	// sent with ("": the app's, Config.NotifyConfig).
	NotifyFile string
	// Again are the cards to copy even if they were offloaded and
	// verified before ("Copy it again").
	Again []string
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
	run.setModel(m)
	if err := job.Start(); err != nil {
		m.apply(offload.Event{Type: offload.EvWarning, Time: a.cfg.Now(), Message: "the plan: " + err.Error()})
	}
	if pv := job.Plan(); pv != nil {
		m.setPlan(pv.Plan, "start")
	}
	a.do(func() {
		a.running.bind(run)
		a.offload.say("")
		a.selectTab(a.running.content)
	})
	return run, nil
}

// assemblySettings are the job settings of s for internal/assembly, with
// the app's catalog, filesystem, notifications and hooks: the running
// view's model, the pause switch around the scheduler.
func (a *App) assemblySettings(s jobSettings, run *jobRun, extra func(offload.Event)) assembly.Settings {
	set := assembly.Settings{Resume: s.Resume, Name: s.Name, Cards: s.Cards, Dests: s.Dests, Then: s.Then, ThenParallel: s.ThenParallel,
		Hashes: s.Hashes, Verify: s.Verify, VerifyAll: s.VerifyAll, AllowDegraded: s.AllowDegraded, Throttle: s.Throttle,
		MHL: s.MHL, Layout: s.Layout, Ignore: s.Ignore, IncludeHidden: s.IncludeHidden, AgainCards: s.Again,
		FS: a.cfg.FS, Catalog: a.cfg.Catalog, ToolVersion: "dit-gui " + a.cfg.Version, Notify: a.notifyConfig(s.NotifyFile)}
	if s.Resume != 0 {
		set.MHL = "" // the hash lists it started with
	}
	switch {
	case s.WatchTopology != nil:
		set.Sched = assembly.Schedule{Topology: s.WatchTopology, Simulate: s.Simulate, Scale: s.Scale, Sizes: true}
	case s.Topology != nil:
		set.Sched = assembly.Schedule{Topology: s.Topology, Prepared: true, Simulate: s.Simulate, Scale: s.Scale}
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
		OnNotify:   a.notified,
		ResumeHint: func(id int64) string { return fmt.Sprintf("resume job %d from History", id) },
		Pace: func(inner offload.Limiter) offload.Limiter {
			run.pause = newPauser(inner)
			return run.pause
		},
	}
	return set
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
	run.bg.Wait() // the cards' verdicts (and clips) being read
	// The clips of cards the engine did not say were done (a resumed
	// job's): the clipper did them before the reports.
	loadRunClips(a.cfg.Catalog, m, "")
	m.setCounters(job.Snapshot(), a.cfg.Now())
	if err != nil {
		m.fail(err.Error())
	} else {
		m.applySummary(sum, true)
	}
	run.cancel()
	close(run.done)
	a.do(func() {
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

// onEvent feeds an engine event to the model and redraws when it matters.
// A card's end is confirmed from the catalog (offload.LoadSummary) before
// it may read "safe to format".
func (a *App) onEvent(run *jobRun, e offload.Event) {
	m := run.modelOrNil()
	if m == nil {
		return
	}
	redraw := m.apply(e)
	if e.Type == offload.EvRunDone {
		run.bg.Add(1)
		go func() {
			defer run.bg.Done()
			cat := a.cfg.Catalog
			if err := cat.Flush(); err != nil {
				return
			}
			if s, err := offload.LoadSummary(cat, m.jobID); err == nil {
				m.applySummary(s, false)
				a.do(a.running.render)
			}
		}()
		// The card's clips: the clipper recognises them (and makes
		// their thumbnails) in the background, then the catalog has
		// them.
		run.bg.Add(1)
		go func() {
			defer run.bg.Done()
			run.job.WaitClips()
			if loadRunClips(a.cfg.Catalog, m, e.Card) {
				a.do(a.running.render)
			}
		}()
	}
	if redraw {
		if run.job != nil {
			m.setCounters(run.job.Snapshot(), e.Time)
		}
		a.do(a.running.render)
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

// cardPanel is one card in the running view. In a cascade it has a row
// per run: the first run (read from the card), the card-free line with
// its eject action, and the second run (from the first copy) with its
// own bar.
type cardPanel struct {
	title    *widget.Label
	state    *widget.Label
	bar      *widget.ProgressBar
	barTint  *container.ThemeOverride // the bar in the verdict's colour once the card ended
	bytes    *widget.Label
	files    *widget.Label
	rate     *widget.Label
	current  *widget.Label
	failures *widget.Label
	clips    *widget.Label // camera, clip count and duration
	swatch   *canvas.Rectangle
	details  *fyne.Container // the first run's counters
	dests    *destRows       // the first run on each destination
	box      *fyne.Container

	// A cascade.
	run1     *widget.Label // "1st run: from the card to ..."
	run1St   *widget.Label
	run1Head *fyne.Container
	free     *widget.Label
	eject    *widget.Button
	freeRow  *fyne.Container
	ejectBtn *widget.Button // the card's Eject (enabled once it is free)
	ejectL   *widget.Label  // what the eject said
	second   *runRow
	last     cardView // what the panel shows (the eject action tells of it)
	onEject  func(cardView)
}

// runRow is a cascade's second run of a card: its own title, state, bar
// and counters.
type runRow struct {
	title    *widget.Label
	state    *widget.Label
	bar      *widget.ProgressBar
	bytes    *widget.Label
	files    *widget.Label
	rate     *widget.Label
	current  *widget.Label
	failures *widget.Label
	details  *fyne.Container
	dests    *destRows
	box      *fyne.Container
}

func newRunRow() *runRow {
	r := &runRow{
		title:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		state:    widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		bar:      widget.NewProgressBar(),
		bytes:    widget.NewLabel(""),
		files:    widget.NewLabel(""),
		rate:     widget.NewLabel(""),
		current:  widget.NewLabel(""),
		failures: widget.NewLabel(""),
		dests:    newDestRows(),
	}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.current.Truncation = fyne.TextTruncateEllipsis
	r.failures.Wrapping = fyne.TextWrapWord
	r.failures.Importance = widget.DangerImportance
	r.details = container.NewGridWithColumns(3, r.bytes, container.NewVBox(r.files, r.current), r.rate)
	r.box = container.NewVBox(container.NewBorder(nil, nil, nil, r.state, r.title), r.bar, r.details, r.dests.box, r.failures)
	return r
}

func newCardPanel(i int, onEject func(cardView)) *cardPanel {
	p := &cardPanel{
		title:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		state:    widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		bar:      widget.NewProgressBar(),
		bytes:    widget.NewLabel(""),
		files:    widget.NewLabel(""),
		rate:     widget.NewLabel(""),
		current:  widget.NewLabel(""),
		failures: widget.NewLabel(""),
		clips:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Italic: true}),
		swatch:   canvas.NewRectangle(cardColor(i)),
		run1:     widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		run1St:   widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		free:     widget.NewLabel(""),
		second:   newRunRow(),
		dests:    newDestRows(),
		onEject:  onEject,
	}
	p.title.SizeName = theme.SizeNameSubHeadingText
	p.state.SizeName = theme.SizeNameSubHeadingText
	p.current.Truncation = fyne.TextTruncateEllipsis
	p.failures.Wrapping = fyne.TextWrapWord
	p.failures.Importance = widget.DangerImportance
	p.swatch.SetMinSize(fyne.NewSize(8, 8))
	p.run1.Truncation = fyne.TextTruncateEllipsis
	p.free.Wrapping = fyne.TextWrapWord
	p.free.Importance = widget.HighImportance
	p.eject = widget.NewButtonWithIcon("Card free - eject", theme.UploadIcon(), func() {
		if p.onEject != nil {
			p.onEject(p.last)
		}
	})
	p.eject.Importance = widget.HighImportance
	p.ejectBtn = widget.NewButtonWithIcon("Eject", theme.UploadIcon(), func() {
		if p.onEject != nil {
			p.onEject(p.last)
		}
	})
	p.ejectBtn.Disable()
	p.ejectL = widget.NewLabel("")
	p.ejectL.Wrapping = fyne.TextWrapWord
	p.ejectL.Hide()
	p.run1Head = container.NewBorder(nil, nil, nil, p.run1St, p.run1)
	p.freeRow = container.NewBorder(nil, nil, nil, container.NewCenter(p.eject), p.free)
	head := container.NewBorder(nil, nil, container.NewHBox(p.swatch, p.title), container.NewCenter(p.ejectBtn), p.state)
	p.details = container.NewGridWithColumns(3, p.bytes, container.NewVBox(p.files, p.current), p.rate)
	p.clips.Truncation = fyne.TextTruncateEllipsis
	p.clips.Hide()
	p.barTint = container.NewThemeOverride(p.bar, fyne.CurrentApp().Settings().Theme())
	p.box = container.NewVBox(head, p.run1Head, p.barTint, p.details, p.dests.box, p.clips, p.failures, p.freeRow, p.ejectL, p.second.box)
	p.run1Head.Hide()
	p.freeRow.Hide()
	p.second.box.Hide()
	return p
}

// setRun shows one run's counters: bytes, files, rate and phase, the
// file being copied.
func setRun(bytes, files, rate, current *widget.Label, r runState, paused bool) {
	pr := r.Prog
	b := fmt.Sprintf("Copied %s of %s", units.FormatBytes(pr.BytesCopied), units.FormatBytes(pr.Bytes))
	if pr.VerifyTotal > 0 && len(pr.Dests) == 0 {
		// (With the destinations' rows, each says what it read back.)
		b += fmt.Sprintf("\nRead back %s of %s (all copies)", units.FormatBytes(pr.BytesVerified), units.FormatBytes(pr.VerifyTotal))
	}
	bytes.SetText(b)
	f := fmt.Sprintf("Files %d of %d done", pr.FilesDone, pr.Files)
	if pr.FilesFailed > 0 {
		f += fmt.Sprintf(", %d failed", pr.FilesFailed)
	}
	files.SetText(f)
	phase := pr.Phase
	if phase == "" {
		phase = "-"
	}
	if r.Done {
		rate.SetText("Phase: done")
	} else {
		rate.SetText(fmt.Sprintf("%s, ETA %s\nPhase: %s", rateText(r.Rate), etaText(r.ETA), phase))
	}
	if pr.Current != "" && !r.Done {
		// While the card verifies, the engine's current file is one
		// being read back from a destination.
		if pr.Phase == "verifying" {
			current.SetText("Reading back " + pr.Current)
		} else {
			current.SetText(pr.Current)
		}
		current.Show()
	} else {
		current.Hide()
	}
}

// failureText lists a run's failed files (at most 20).
func failureText(fs []failure, interrupted bool, what string) string {
	var b strings.Builder
	if interrupted {
		fmt.Fprintf(&b, "%s%s not finished (resume the job to retry):", what, plural(len(fs), "file"))
	} else {
		fmt.Fprintf(&b, "%s%s failed:", what, plural(len(fs), "file"))
	}
	for i, f := range fs {
		if i == 20 {
			fmt.Fprintf(&b, "\n... and %d more (see History)", len(fs)-20)
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", f.Path, firstLine(f.Why))
	}
	return b.String()
}

// tintBar colours the card's bar as its verdict once the card ended (the
// summary read): green when safe to format, the failure colour when it
// failed or was interrupted; the theme's own colour while it runs. The
// theme is read anew each time, so a theme switch is followed.
func (p *cardPanel) tintBar(imp widget.Importance, ended bool) {
	th := fyne.CurrentApp().Settings().Theme()
	switch {
	case ended && imp == widget.SuccessImportance:
		th = tintTheme{Theme: th, primary: theme.ColorNameSuccess}
	case ended && imp == widget.DangerImportance:
		th = tintTheme{Theme: th, primary: theme.ColorNameError}
	}
	p.barTint.Theme = th
	p.barTint.Refresh()
}

// runImportance colours a run's state.
func runImportance(r runState) widget.Importance {
	switch {
	case r.Done && (r.EndState == offload.StateFailed || r.EndState == "interrupted"):
		return widget.DangerImportance
	case len(r.Failures) > 0:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

func (p *cardPanel) set(c cardView, mv runView) {
	p.last = c
	paused := mv.Paused
	p.title.SetText(c.Label)
	st := c.State()
	if paused && !c.settled() && !c.HaveSummary {
		st += " (paused)"
	}
	p.state.SetText(st)
	switch {
	case strings.HasPrefix(st, stateSafe):
		p.state.Importance = widget.SuccessImportance
	case st == stateFailed || st == stateInterrupted || st == stateThenFailed || (c.HaveSummary && !c.Safe):
		p.state.Importance = widget.DangerImportance
	case len(c.Failures) > 0:
		p.state.Importance = widget.WarningImportance
	case strings.HasPrefix(st, stateFree):
		// Card free reads apart from safe to format: another colour,
		// other words.
		p.state.Importance = widget.HighImportance
	default:
		p.state.Importance = widget.MediumImportance
	}
	p.state.Refresh()
	p.bar.SetValue(c.Fraction())
	p.tintBar(p.state.Importance, c.HaveSummary)
	setRun(p.bytes, p.files, p.rate, p.current, c.runState, paused)
	p.dests.set(c.Prog.Dests, c.Done)
	p.setEject(c)
	if c.Clips != nil {
		p.clips.SetText(c.Clips.text())
		p.clips.Show()
	} else {
		p.clips.Hide()
	}
	if len(c.Failures) > 0 {
		what := ""
		if c.Cascade {
			what = "1st run: "
		}
		p.failures.SetText(failureText(c.Failures, st == stateInterrupted, what))
		p.failures.Show()
	} else {
		p.failures.Hide()
	}
	if !c.Cascade {
		p.details.Show()
		p.run1Head.Hide()
		p.freeRow.Hide()
		p.second.box.Hide()
		return
	}
	// A run that is done shows its full bar and its state: its counters
	// make room for the other run's.
	if c.Done {
		p.details.Hide()
	} else {
		p.details.Show()
	}

	// A cascade: the first run, card free, the second run.
	first := "the first-run destinations"
	if len(mv.Dests) > 0 {
		first = strings.Join(mv.Dests, ", ")
	}
	p.run1.SetText("1st run: from the card to " + first)
	p.run1St.SetText(c.runState.runText())
	p.run1St.Importance = runImportance(c.runState)
	p.run1St.Refresh()
	p.run1Head.Show()
	if c.Free {
		at := ""
		if !c.FreeAt.IsZero() {
			at = " at " + c.FreeAt.Local().Format("15:04:05")
		}
		if c.HaveSummary && c.Safe {
			p.free.SetText(fmt.Sprintf("Card free%s; both runs verified%s: safe to format.", at, safeAtText(c.SafeAt)))
			p.free.Importance = widget.SuccessImportance
		} else {
			p.free.SetText(fmt.Sprintf("Card free%s: verified on %s. It may leave the reader: do NOT format it until the second run is verified.", at, first))
			p.free.Importance = widget.HighImportance
		}
		p.free.Refresh()
		p.freeRow.Show()
	} else {
		p.freeRow.Hide()
	}
	r := p.second
	src := "the first copy"
	if mv.FirstCopy != "" {
		src = "the first copy on " + mv.FirstCopy
	}
	r.title.SetText(fmt.Sprintf("2nd run: from %s to %s", src, strings.Join(mv.Then, ", ")))
	if c.Then == nil {
		r.state.SetText(runWaitFree)
		switch {
		case c.Done && c.EndState != offload.StateVerified:
			r.state.SetText("Not started (the card is not free)")
		case c.Free && mv.Finished:
			r.state.SetText("Not started")
		case c.Free:
			r.state.SetText(runQueued)
		}
		r.state.Importance = widget.MediumImportance
		r.bar.SetValue(0)
		r.details.Hide()
		r.dests.set(nil, false)
		r.failures.Hide()
	} else {
		h := c.Then.runState
		r.state.SetText(h.runText())
		r.state.Importance = runImportance(h)
		r.bar.SetValue(h.Fraction())
		setRun(r.bytes, r.files, r.rate, r.current, h, paused)
		r.dests.set(h.Prog.Dests, h.Done)
		if h.Done {
			r.details.Hide()
		} else {
			r.details.Show()
		}
		if len(h.Failures) > 0 {
			r.failures.SetText(failureText(h.Failures, h.EndState == "interrupted", "2nd run: "))
			r.failures.Show()
		} else {
			r.failures.Hide()
		}
	}
	r.state.Refresh()
	r.box.Show()
}

// setEject shows the card's eject: the Eject button, enabled only once
// the card is free (in a cascade, the card-free row's button takes its
// place then), and what the eject said.
func (p *cardPanel) setEject(c cardView) {
	ok := c.ejectable()
	if ok {
		p.ejectBtn.Enable()
		p.eject.Enable()
	} else {
		p.ejectBtn.Disable()
		p.eject.Disable()
	}
	if c.Cascade && c.Free {
		p.ejectBtn.Hide()
	} else {
		p.ejectBtn.Show()
	}
	switch c.Eject {
	case ejectBusy:
		p.ejectL.SetText("Ejecting " + c.Path + "...")
		p.ejectL.Importance = widget.MediumImportance
	case ejectDone:
		p.ejectL.SetText("Ejected: " + strings.TrimPrefix(c.EjectMsg, "ejected: "))
		p.ejectL.Importance = widget.SuccessImportance
	case ejectFailed:
		p.ejectL.SetText("NOT ejected: " + strings.TrimPrefix(c.EjectMsg, "not ejected: "))
		p.ejectL.Importance = widget.DangerImportance
	default:
		p.ejectL.Hide()
		return
	}
	p.ejectL.Refresh()
	p.ejectL.Show()
}

// safeAtText is " at 15:04:05", or "" when the time is not known.
func safeAtText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " at " + t.Local().Format("15:04:05")
}

// ejectInfo asks whether to eject a free card: it may leave the reader;
// it is safe to format only once the summary says so. dests are the
// job's (first-run) destinations.
func ejectInfo(c cardView, mv runView, dests []string) (title, msg string) {
	path := c.Path
	if path == "" {
		path = "(its path is not known)"
	}
	if len(mv.Dests) > 0 {
		dests = mv.Dests
	}
	title = "Eject " + c.Label + "?"
	var b strings.Builder
	if c.Cascade {
		fmt.Fprintf(&b, "%s is verified on the first-run destinations (%s)", c.Label, strings.Join(dests, ", "))
		if !c.FreeAt.IsZero() {
			fmt.Fprintf(&b, " since %s", c.FreeAt.Local().Format("15:04:05"))
		}
	} else {
		fmt.Fprintf(&b, "%s is verified on every destination (%s)", c.Label, strings.Join(dests, ", "))
	}
	fmt.Fprintf(&b, ".\n\nIt may be removed from the reader:\n%s\n\n", path)
	switch {
	case c.HaveSummary && c.Safe:
		fmt.Fprintf(&b, "The job's summary says it is safe to format.")
	case c.Cascade:
		fmt.Fprintf(&b, "Do NOT format it: its second run (to %s) is not verified yet.\nIt is safe to format only once it reads \"%s\".", strings.Join(mv.Then, ", "), stateSafe)
	default:
		fmt.Fprintf(&b, "It is safe to format only once it reads \"%s\" (the job's summary).", stateSafe)
	}
	b.WriteString("\n\nEject unmounts the card and powers its reader off (udisksctl on Linux, diskutil on macOS).\ndit never ejects a destination.")
	return title, b.String()
}

// runningView shows the job in progress: large rate and ETA, a panel per
// card, the throughput chart, pause / resume / cancel.
type runningView struct {
	a       *App
	content fyne.CanvasObject
	run     *jobRun

	title    *widget.Label
	rateBig  *canvas.Text
	etaBig   *canvas.Text
	rateCap  *widget.Label
	etaCap   *widget.Label
	pauseBtn *widget.Button
	stopBtn  *widget.Button
	planL    *widget.Label
	doneL    *widget.Label
	warnL    *widget.Label
	cardsBox *fyne.Container
	panels   []*cardPanel
	addBtn   *widget.Button
	chart    *throughputChart
	empty    *widget.Label
	body     *fyne.Container
	scroll   *container.Scroll
	figures  *fyne.Container
	ejectMsg string // the last card-free message shown (tests)
}

func newRunningView(a *App) *runningView {
	v := &runningView{a: a}
	v.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.title.SizeName = theme.SizeNameHeadingText
	v.rateBig = canvas.NewText("-", theme.Color(theme.ColorNameForeground))
	v.rateBig.TextSize = bigFigure
	v.rateBig.TextStyle.Bold = true
	v.etaBig = canvas.NewText("-", theme.Color(theme.ColorNameForeground))
	v.etaBig.TextSize = bigFigure
	v.etaBig.TextStyle.Bold = true
	v.rateCap = widget.NewLabel("all cards now")
	v.etaCap = widget.NewLabel("until every card is safe to format")
	v.pauseBtn = widget.NewButtonWithIcon("Pause (Ctrl+P)", theme.MediaPauseIcon(), v.togglePause)
	v.stopBtn = widget.NewButtonWithIcon("Cancel job", theme.CancelIcon(), v.confirmCancel)
	v.addBtn = widget.NewButtonWithIcon("Add card", theme.ContentAddIcon(), v.addCard)
	v.stopBtn.Importance = widget.DangerImportance
	v.planL = widget.NewLabel("")
	v.planL.Wrapping = fyne.TextWrapWord
	v.doneL = widget.NewLabel("")
	v.doneL.Wrapping = fyne.TextWrapWord
	v.warnL = widget.NewLabel("")
	v.warnL.Wrapping = fyne.TextWrapWord
	v.warnL.Importance = widget.WarningImportance
	v.cardsBox = container.NewVBox()
	v.chart = newThroughputChart()
	v.empty = widget.NewLabel("No job yet. Set one up in the Offload tab and press Start (Ctrl+Enter).")

	gap := canvas.NewRectangle(color.Transparent)
	gap.SetMinSize(fyne.NewSize(48, 1))
	v.figures = container.NewHBox(
		container.NewVBox(v.rateBig, v.rateCap), gap,
		container.NewVBox(v.etaBig, v.etaCap),
	)
	head := container.NewBorder(nil, nil, nil, container.NewVBox(container.NewHBox(v.addBtn, v.pauseBtn, v.stopBtn)), container.NewVBox(v.title, v.figures))
	chartBox := container.NewBorder(widget.NewLabelWithStyle("Throughput per card (decimal GB/s)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		nil, nil, nil, v.chart)
	v.scroll = container.NewScroll(container.NewVBox(v.cardsBox, v.doneL, v.warnL, v.planL))
	// The cards and the chart share the height (a split the person can
	// move): with the auto-offload log and the banner above, the cards
	// are not squeezed into what the chart leaves.
	split := container.NewVSplit(v.scroll, chartBox)
	split.Offset = 0.7
	v.body = container.NewBorder(head, nil, nil, nil, split)
	v.body.Hide()
	v.content = container.NewPadded(container.NewBorder(a.auto.content, nil, nil, nil, container.NewStack(container.NewCenter(v.empty), v.body)))
	return v
}

// active reports whether a job is running.
func (v *runningView) active() bool { return v.run != nil && !v.run.finished() }

// bind shows a new job (UI goroutine).
func (v *runningView) bind(run *jobRun) {
	v.run = run
	v.cardsBox.RemoveAll()
	v.panels = nil
	for i := range run.modelOrNil().view().Cards {
		p := newCardPanel(i, v.showEject)
		v.panels = append(v.panels, p)
		v.cardsBox.Add(p.box)
		v.cardsBox.Add(widget.NewSeparator())
	}
	v.empty.Hide()
	v.body.Show()
	v.pauseBtn.Enable()
	v.stopBtn.Enable()
	v.addBtn.Enable()
	v.render()
}

// addCard asks for a card folder and adds it to the running job: it is
// checked like the cards given at the start and copied at once; the plan
// is re-made (UI goroutine; the work runs in the background).
func (v *runningView) addCard() {
	if !v.active() || v.run.job == nil {
		return
	}
	job := v.run.job
	v.a.cfg.ChooseFolder("A card to add to the running job", func(p string) {
		go func() {
			if _, err := job.AddCard(p); err != nil {
				v.a.do(func() { v.a.showError(fmt.Errorf("The card cannot join the job: %w", err)) })
			}
		}()
	})
}

// render draws the model (UI goroutine).
func (v *runningView) render() {
	if v.run == nil {
		return
	}
	m := v.run.modelOrNil()
	if m == nil {
		return
	}
	mv := m.view()
	state := "running"
	switch {
	case mv.Finished && mv.Err != "":
		state = "stopped"
	case mv.Finished && mv.Summary != nil && mv.Summary.Status.Ended():
		state = string(mv.Summary.Status) // done, failed, interrupted: the verdict model's
	case mv.Finished:
		state = "finished"
	case mv.Paused:
		state = "paused"
	}
	v.title.SetText(fmt.Sprintf("Job %d  %s  (%s)", mv.JobID, mv.Name, state))
	fg := theme.Color(theme.ColorNameForeground)
	rate, eta := mv.totals()
	switch {
	case mv.Finished:
		v.rateBig.Text, v.etaBig.Text = "-", "done"
		if mv.Summary != nil && mv.Summary.TBPerHour > 0 {
			v.rateBig.Text = units.FormatTBPerHour(mv.Summary.TBPerHour)
			v.rateCap.SetText("whole job")
		}
	case mv.Paused:
		v.rateBig.Text, v.etaBig.Text = "paused", "-"
	default:
		// The big figure is the time until every card is safe to format
		// (copy and read-back together, both runs of a cascade); the
		// slowest card's current phase has its own, smaller.
		v.rateBig.Text, v.etaBig.Text = rateText(rate), "-"
		if safe := mv.safeETA(); safe >= 0 {
			v.etaBig.Text = etaText(safe)
		}
		v.rateCap.SetText("all cards now")
		v.etaCap.SetText("until every card is safe to format (this phase: " + etaText(eta) + ")")
	}
	if mv.Finished {
		v.etaCap.SetText("")
	}
	v.rateBig.Color, v.etaBig.Color = fg, fg
	if mv.Finished && (mv.Err != "" || (mv.Summary != nil && mv.Summary.Status.Bad())) {
		// A job that ended badly says so at a glance, in the failure colour.
		v.etaBig.Text = strings.ToUpper(state)
		v.etaBig.Color = theme.Color(theme.ColorNameError)
	}
	v.rateBig.Refresh()
	v.etaBig.Refresh()
	v.figures.Refresh()                 // the figures' widths changed
	for len(v.panels) < len(mv.Cards) { // a card joined the job
		p := newCardPanel(len(v.panels), v.showEject)
		v.panels = append(v.panels, p)
		v.cardsBox.Add(p.box)
		v.cardsBox.Add(widget.NewSeparator())
	}
	for i, c := range mv.Cards {
		v.panels[i].set(c, mv)
	}
	var series []chartSeries
	for i, c := range mv.Cards {
		series = append(series, chartSeries{Label: c.Label, Points: c.Series, Card: i})
	}
	for i, c := range mv.Cards {
		if c.Then != nil {
			series = append(series, chartSeries{Label: c.Then.Label, Points: c.Then.Series, Card: i, Second: true})
		}
	}
	v.chart.set(series, mv.Started, mv.Now, mv.Window)

	var plan []string
	if mv.Sim != "" {
		plan = append(plan, mv.Sim)
	}
	if mv.Plan != nil {
		plan = append(plan, fmt.Sprintf("Plan in force (%s): %s, bottleneck: %s", mv.PlanWhy, units.FormatRate(mv.Plan.Total), mv.Plan.Bottleneck))
	}
	v.planL.SetText(strings.Join(plan, "\n"))
	v.warnL.SetText(strings.Join(mv.Warnings, "\n"))
	switch {
	case mv.Finished && mv.Err != "":
		v.doneL.SetText("The job stopped: " + mv.Err)
		v.doneL.Importance = widget.DangerImportance
	case mv.Finished && mv.Summary != nil:
		s := mv.Summary
		safe := 0
		for _, c := range s.Cards {
			if c.SafeToFormat {
				safe++
			}
		}
		txt := fmt.Sprintf("%s in %s (%s): %d of %d cards safe to format, %s failed.",
			units.FormatBytes(s.Bytes), units.FormatDuration(time.Duration(s.Seconds*float64(time.Second))),
			units.FormatTBPerHour(s.TBPerHour), safe, len(s.Cards), plural(s.Failed, "file"))
		if len(s.Then) > 0 {
			free := 0
			for _, c := range s.Cards {
				if c.CardFree {
					free++
				}
			}
			txt += fmt.Sprintf("\nCascade: %d of %d cards free (first run verified on %s), %d safe to format (second run verified on %s too).",
				free, len(s.Cards), strings.Join(s.Destinations, ", "), safe, strings.Join(s.Then, ", "))
		}
		if s.State == "interrupted" {
			txt = fmt.Sprintf("Interrupted: nothing unverified is reported verified. Resume job %d from History.", s.JobID)
		}
		if r := v.run.reportPaths(); len(r) > 0 {
			txt += "\nReports written to " + strings.Join(r, ", ")
		}
		v.doneL.SetText(txt)
		v.doneL.Importance = widget.MediumImportance
		if s.Failed > 0 || safe < len(s.Cards) {
			v.doneL.Importance = widget.DangerImportance
		}
	default:
		v.doneL.SetText("")
	}
	v.doneL.Refresh()
	v.scroll.Refresh()
	if mv.Finished {
		v.pauseBtn.Disable()
		v.stopBtn.Disable()
		v.addBtn.Disable()
	} else if mv.Paused {
		v.pauseBtn.SetText("Resume (Ctrl+P)")
		v.pauseBtn.SetIcon(theme.MediaPlayIcon())
	} else {
		v.pauseBtn.SetText("Pause (Ctrl+P)")
		v.pauseBtn.SetIcon(theme.MediaPauseIcon())
	}
}

// showEject asks to eject a free card, then ejects it (UI goroutine).
func (v *runningView) showEject(c cardView) {
	if v.run == nil || !c.ejectable() {
		return
	}
	run := v.run
	m := run.modelOrNil()
	if m == nil {
		return
	}
	title, msg := ejectInfo(c, m.view(), run.dests)
	v.ejectMsg = msg
	d := dialog.NewConfirm(title, msg, func(ok bool) {
		if ok {
			v.ejectCard(run, c)
		}
	}, v.a.win)
	d.SetConfirmText("Eject")
	d.SetDismissText("Keep it mounted")
	d.Show()
}

// ejectCard ejects card c of run (UI goroutine; the eject runs in the
// background) through watch.Watcher.Eject: never a destination of the job
// or of the watched preset (watch.SafeToEject), with the app's Ejector;
// the result is recorded with the card in the catalog, said in the
// auto-offload log and shown on the card.
func (v *runningView) ejectCard(run *jobRun, c cardView) {
	a := v.a
	m := run.modelOrNil()
	m.setEject(c.Path, c.Label, ejectBusy, "")
	v.render()
	p := &watch.Preset{Destinations: append([]string(nil), run.dests...), Then: append([]string(nil), run.then...)}
	if w := a.auto.w; w != nil {
		p.Destinations = append(p.Destinations, w.Preset.Destinations...)
		p.Then = append(p.Then, w.Preset.Then...)
	}
	src := a.auto.src
	if src == nil {
		src = a.cfg.Volumes
	}
	jobID := m.jobID
	a.goBG(func() {
		if src == nil {
			src = watch.System()
		}
		vol := findVolume(src, c.Path)
		w := &watch.Watcher{Preset: p, Ejector: a.cfg.Ejector, Catalog: a.cfg.Catalog, Say: a.auto.say}
		if err := w.Eject(vol, jobID, c.Label); err != nil {
			m.setEject(c.Path, c.Label, ejectFailed, err.Error())
		} else if c.Cascade && !(c.HaveSummary && c.Safe) {
			m.setEject(c.Path, c.Label, ejectDone, "the card may be removed (it is free, NOT safe to format until every copy is verified)")
		} else {
			m.setEject(c.Path, c.Label, ejectDone, "verified on every destination: the card may be removed")
		}
		a.do(v.render)
	})
}

// ejectResult shows an eject the watch made (UI goroutine).
func (v *runningView) ejectResult(path string, ok bool, msg string) {
	if v.run == nil {
		return
	}
	state := ejectDone
	if !ok {
		state = ejectFailed
	}
	if m := v.run.modelOrNil(); m != nil && m.setEject(filepath.Clean(path), "", state, msg) {
		v.render()
	}
}

// findVolume is the mounted volume at path (its device, to eject it), or
// just its path when src does not list it.
func findVolume(src watch.Source, path string) watch.Volume {
	path = filepath.Clean(path)
	if vols, err := src.List(); err == nil {
		for _, vol := range vols {
			if filepath.Clean(vol.Path) == path {
				return vol
			}
		}
	}
	return watch.Volume{Path: path, Label: filepath.Base(path)}
}

// togglePause pauses or resumes the job (UI goroutine; also Ctrl+P).
func (v *runningView) togglePause() {
	if !v.active() {
		return
	}
	m := v.run.modelOrNil()
	if v.run.pause.Paused() {
		v.run.pause.Resume()
		m.setPaused(false)
	} else {
		v.run.pause.Pause()
		m.setPaused(true)
	}
	v.render()
}

// confirmCancel asks before cancelling.
func (v *runningView) confirmCancel() {
	if !v.active() {
		return
	}
	dialog.ShowConfirm("Cancel the job?",
		"Copies in progress are removed; verified copies stay. Nothing unverified is reported verified,\nand the job can be resumed later from History.",
		func(ok bool) {
			if ok {
				v.cancel()
			}
		}, v.a.win)
}

// cancel stops the job through its context.
func (v *runningView) cancel() {
	if v.active() {
		v.run.cancel()
	}
}
