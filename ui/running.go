package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/sched"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/jobreport"
	"github.com/dit-org/dit/reports/seal"
)

// jobSettings is a job as the Offload view sets it up.
type jobSettings struct {
	Name         string
	Cards, Dests []string
	Hashes       []hashing.Algo
	Verify       offload.VerifyMode
	VerifyAll    bool
	// MHL is the hash lists written into each card's folder: asc, v1,
	// both or none (seal.ParseFormat). A resumed job writes the lists it
	// was started with, whatever this says.
	MHL           string
	AllowDegraded bool
	// Topology, when set, is enforced by a scheduler (internal/sched):
	// the plan's shares, and with Simulate the plan's hardware at Scale.
	Topology *plan.Topology
	Simulate bool
	Scale    float64
	// Throttle caps each card's read rate (bytes/s; tests and demos
	// without a plan).
	Throttle float64
	// Resume, when not 0, continues that interrupted job instead (its
	// cards, destinations and settings come from the catalog).
	Resume int64
}

// jobRun is the job in progress: its engine job, the pause switch, the
// cancel function and the model the running view renders.
type jobRun struct {
	cancel  context.CancelFunc
	pause   *pauser
	job     *offload.Job
	model   *runModel
	done    chan struct{}
	bg      sync.WaitGroup // readers of the cards' verdicts
	mu      sync.Mutex
	reports []string
}

// runJob prepares and runs a job (call in a goroutine). Errors before the
// start (bad input, no space, a locked destination) go back to the Offload
// view in words.
func (a *App) runJob(s jobSettings) {
	cat := a.cfg.Catalog
	ctx, cancel := context.WithCancel(context.Background())
	run := &jobRun{cancel: cancel, done: make(chan struct{})}
	if !a.track(run) {
		cancel()
		return
	}
	fail := func(err error) {
		cancel()
		a.do(func() {
			a.offload.jobDone(err)
			a.showError(err)
		})
	}
	if s.Resume != 0 {
		rec, err := cat.Job(s.Resume)
		if err != nil {
			fail(fmt.Errorf("The job cannot resume: %w", err))
			return
		}
		s.MHL = rec.MHL
	}
	format, err := seal.ParseFormat(s.MHL)
	if err != nil {
		fail(fmt.Errorf("The job cannot start: hash lists: %w", err))
		return
	}
	var sch *sched.Scheduler
	var inner offload.Limiter
	if s.Topology != nil {
		algos := append([]hashing.Algo{}, s.Hashes...)
		valgos := []hashing.Algo{hashing.Fastest(s.Hashes)}
		if s.VerifyAll {
			valgos = s.Hashes
		}
		cpu, err := sched.MachineCPU(cat, s.Topology.CPU, append(algos, valgos...))
		if err != nil {
			cpu = nil
		}
		scale := 0.0
		if s.Simulate && s.Scale > 0 && s.Scale != 1 {
			scale = s.Scale
		}
		sch, err = sched.New(sched.Config{Topology: s.Topology, Simulate: s.Simulate, Scale: scale,
			Plan: plan.Options{Hashes: s.Hashes, Verify: s.Verify != offload.VerifyNone, VerifyHashes: valgos, CPU: cpu},
			OnPlan: func(r *plan.Result, why string) {
				if m := run.modelOrNil(); m != nil {
					m.setPlan(r, why)
				}
			}})
		if err != nil {
			fail(fmt.Errorf("the plan cannot be enforced: %w", err))
			return
		}
		inner = sch
	}
	run.pause = newPauser(inner)
	opts := offload.Options{Name: s.Name, Cards: s.Cards, Dests: s.Dests, Hashes: s.Hashes, Verify: s.Verify,
		VerifyAll: s.VerifyAll, FS: a.cfg.FS, Catalog: cat, ToolVersion: "dit-gui " + a.cfg.Version,
		AllowDegraded: s.AllowDegraded, Limiter: run.pause, Throttle: s.Throttle, MHL: s.MHL,
		OnEvent: func(e offload.Event) {
			if sch != nil {
				sch.Observe(e)
			}
			a.onEvent(run, e)
		}}
	// Hash lists and reports on a dit array destination are written
	// through the job's filesystem, into the array (as dit offload does):
	// the engine hands it to both hooks.
	if format.ASC || format.V1 {
		opts.Seal = (&seal.Sealer{Format: format}).Seal
	}
	opts.AfterJob = jobreport.AfterJob(cat, func(paths []string) {
		run.mu.Lock()
		run.reports = paths
		run.mu.Unlock()
	})
	var job *offload.Job
	if s.Resume != 0 {
		job, err = offload.Resume(ctx, cat, s.Resume, opts)
	} else {
		job, err = offload.New(ctx, opts)
	}
	if err != nil {
		var ue *offload.UsageError
		if errors.As(err, &ue) {
			err = errors.New(ue.Error())
		}
		fail(fmt.Errorf("The job cannot start: %w", err))
		return
	}
	run.job = job
	paths := s.Cards
	if recs, err := cat.Cards(job.ID()); err == nil {
		paths = nil
		for _, k := range catalog.FirstRun(recs) {
			paths = append(paths, k.Path)
		}
	}
	m := newRunModel(job.ID(), job.Name(), a.cfg.Now(), job.Snapshot(), paths)
	if s.Simulate {
		m.sim = simText(s.Scale)
	}
	run.setModel(m)
	if sch != nil {
		if err := startScheduler(sch, job, cat); err != nil {
			m.apply(offload.Event{Type: offload.EvWarning, Time: a.cfg.Now(), Message: "the plan: " + err.Error()})
		}
		m.setPlan(sch.Plan(), "start")
	}
	a.do(func() {
		a.running.bind(run)
		a.offload.say("")
		a.selectTab(a.running.content)
	})

	sum, err := job.Run(ctx)
	run.bg.Wait() // the cards' verdicts being read
	m.setCounters(job.Snapshot(), a.cfg.Now())
	if err != nil {
		m.fail(err.Error())
	} else {
		m.applySummary(sum, true)
	}
	cancel()
	close(run.done)
	a.do(func() {
		a.running.render()
		a.offload.jobDone(nil)
		a.offload.rescan() // the cards just offloaded now read as such
		a.history.reload()
	})
}

// startScheduler binds the scheduler to the job's cards (labels, catalog
// ids and bytes to copy, in the job's order), as dit offload does; the
// plan and every re-plan are recorded in the catalog.
func startScheduler(sch *sched.Scheduler, job *offload.Job, cat *catalog.Catalog) error {
	return sch.StartJob(cat, job)
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

func (r *jobRun) reportPaths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reports...)
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
	if e.Type == offload.EvCardDone {
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
	}
	if redraw {
		if run.job != nil {
			m.setCounters(run.job.Snapshot(), e.Time)
		}
		a.do(a.running.render)
	}
}

// cardPanel is one card in the running view.
type cardPanel struct {
	title    *widget.Label
	state    *widget.Label
	bar      *widget.ProgressBar
	bytes    *widget.Label
	files    *widget.Label
	rate     *widget.Label
	current  *widget.Label
	failures *widget.Label
	swatch   *canvas.Rectangle
	box      *fyne.Container
}

func newCardPanel(i int) *cardPanel {
	p := &cardPanel{
		title:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		state:    widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		bar:      widget.NewProgressBar(),
		bytes:    widget.NewLabel(""),
		files:    widget.NewLabel(""),
		rate:     widget.NewLabel(""),
		current:  widget.NewLabel(""),
		failures: widget.NewLabel(""),
		swatch:   canvas.NewRectangle(cardColor(i)),
	}
	p.title.SizeName = theme.SizeNameSubHeadingText
	p.state.SizeName = theme.SizeNameSubHeadingText
	p.current.Truncation = fyne.TextTruncateEllipsis
	p.failures.Wrapping = fyne.TextWrapWord
	p.failures.Importance = widget.DangerImportance
	p.swatch.SetMinSize(fyne.NewSize(8, 8))
	head := container.NewBorder(nil, nil, container.NewHBox(p.swatch, p.title), nil, p.state)
	p.box = container.NewVBox(head, p.bar,
		container.NewGridWithColumns(3, p.bytes, container.NewVBox(p.files, p.current), p.rate), p.failures)
	return p
}

func (p *cardPanel) set(c cardRun, paused bool) {
	p.title.SetText(c.Label)
	st := c.State()
	if paused && !c.Done {
		st += " (paused)"
	}
	p.state.SetText(st)
	switch {
	case strings.HasPrefix(st, stateSafe):
		p.state.Importance = widget.SuccessImportance
	case st == stateFailed || st == stateInterrupted || (c.HaveSummary && !c.Safe):
		p.state.Importance = widget.DangerImportance
	case len(c.Failures) > 0:
		p.state.Importance = widget.WarningImportance
	default:
		p.state.Importance = widget.MediumImportance
	}
	p.state.Refresh()
	p.bar.SetValue(c.Fraction())
	pr := c.Prog
	bytes := fmt.Sprintf("Copied %s of %s", units.FormatBytes(pr.BytesCopied), units.FormatBytes(pr.Bytes))
	if pr.VerifyTotal > 0 {
		bytes += fmt.Sprintf("\nRead back %s of %s (all copies)", units.FormatBytes(pr.BytesVerified), units.FormatBytes(pr.VerifyTotal))
	}
	p.bytes.SetText(bytes)
	files := fmt.Sprintf("Files %d of %d done", pr.FilesDone, pr.Files)
	if pr.FilesFailed > 0 {
		files += fmt.Sprintf(", %d failed", pr.FilesFailed)
	}
	p.files.SetText(files)
	phase := pr.Phase
	if c.Done || phase == "" {
		phase = "-"
	}
	if c.Done {
		p.rate.SetText("Phase: done")
	} else {
		p.rate.SetText(fmt.Sprintf("%s, ETA %s\nPhase: %s", rateText(c.Rate), etaText(c.ETA), phase))
	}
	if pr.Current != "" && !c.Done {
		p.current.SetText(pr.Current)
		p.current.Show()
	} else {
		p.current.Hide()
	}
	if len(c.Failures) > 0 {
		var b strings.Builder
		if st == stateInterrupted {
			fmt.Fprintf(&b, "%s not finished (resume the job to retry):", plural(len(c.Failures), "file"))
		} else {
			fmt.Fprintf(&b, "%s failed:", plural(len(c.Failures), "file"))
		}
		for i, f := range c.Failures {
			if i == 20 {
				fmt.Fprintf(&b, "\n... and %d more (see History)", len(c.Failures)-20)
				break
			}
			fmt.Fprintf(&b, "\n%s: %s", f.Path, firstLine(f.Why))
		}
		p.failures.SetText(b.String())
		p.failures.Show()
	} else {
		p.failures.Hide()
	}
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
	v.etaCap = widget.NewLabel("ETA of the slowest card (its current phase)")
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
	v.body = container.NewBorder(head, chartBox, nil, nil, v.scroll)
	v.body.Hide()
	v.content = container.NewPadded(container.NewStack(container.NewCenter(v.empty), v.body))
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
		p := newCardPanel(i)
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
	case mv.Finished && mv.Summary != nil && mv.Summary.State == "interrupted":
		state = "interrupted"
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
		v.rateBig.Text, v.etaBig.Text = rateText(rate), etaText(eta)
		v.rateCap.SetText("all cards now")
	}
	v.rateBig.Color, v.etaBig.Color = fg, fg
	v.rateBig.Refresh()
	v.etaBig.Refresh()
	v.figures.Refresh()                 // the figures' widths changed
	for len(v.panels) < len(mv.Cards) { // a card joined the job
		p := newCardPanel(len(v.panels))
		v.panels = append(v.panels, p)
		v.cardsBox.Add(p.box)
		v.cardsBox.Add(widget.NewSeparator())
	}
	for i, c := range mv.Cards {
		v.panels[i].set(c, mv.Paused)
	}
	var series []chartSeries
	for _, c := range mv.Cards {
		series = append(series, chartSeries{Label: c.Label, Points: c.Series})
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
