package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/watch"
)

// Where an auto-offload takes its settings from, in words.
const (
	autoFromForm   = "the Offload tab's settings"
	autoFromPreset = "a preset file"
)

// autoView is the Auto-offload switch and its log, at the top of the
// Running job view: while it is on, a watch.Watcher offloads every camera
// card that is mounted (the first starts a job, the next join it), with
// the watched preset (a preset file, or the Offload tab's destinations,
// cascade, hashes, verify and hash lists), and ejects each card when it is
// free if asked to.
type autoView struct {
	a       *App
	content fyne.CanvasObject

	on        *widget.Check
	from      *widget.Select
	presetBtn *widget.Button
	eject     *widget.Check
	status    *widget.Label
	log       *widget.Label
	logScroll *container.Scroll
	logBox    *fyne.Container
	lines     []string

	presetPath string
	quiet      bool // on is being set by the code, not the person

	// The watch: cancel is set while it is on; w and src once it runs
	// (its preset read); done is closed when it has ended.
	w      *watch.Watcher
	src    watch.Source
	cancel context.CancelFunc
	done   chan struct{}
}

// logLines is how many lines the log keeps.
const logLines = 300

func newAutoView(a *App) *autoView {
	v := &autoView{a: a}
	v.on = widget.NewCheck("Auto-offload", func(b bool) {
		if v.quiet {
			return
		}
		if b {
			v.start()
		} else {
			v.stop()
		}
	})
	v.from = widget.NewSelect([]string{autoFromForm, autoFromPreset}, func(s string) {
		if s == autoFromPreset && v.presetPath == "" && !v.quiet {
			v.choosePreset()
		}
		v.describe()
	})
	v.from.SetSelected(autoFromForm)
	v.presetBtn = widget.NewButtonWithIcon("Preset file...", theme.FileIcon(), v.choosePreset)
	v.eject = widget.NewCheck("Eject each card when it is free", nil)
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.log = widget.NewLabel("")
	v.log.TextStyle.Monospace = true
	v.log.SizeName = theme.SizeNameCaptionText
	v.logScroll = container.NewScroll(v.log) // long lines scroll: they do not widen the window
	min := canvas.NewRectangle(nil)
	min.SetMinSize(fyne.NewSize(10, 70))
	v.logBox = container.NewStack(min, v.logScroll)
	v.logBox.Hide()
	// One row: the switch, its settings and what it does (wrapped when
	// long), then the log.
	row := container.NewBorder(nil, nil, container.NewHBox(v.on, widget.NewLabel("with"), v.from, v.presetBtn, v.eject), nil, v.status)
	v.content = container.NewVBox(row, v.logBox, widget.NewSeparator())
	v.describe()
	return v
}

// running reports whether the watch is on.
func (v *autoView) running() bool { return v.cancel != nil }

// setOn sets the switch without acting on it.
func (v *autoView) setOn(b bool) {
	v.quiet = true
	v.on.SetChecked(b)
	v.quiet = false
}

// choosePreset asks for a preset file (UI goroutine) and reads it.
func (v *autoView) choosePreset() {
	v.a.cfg.OpenFile("Watched preset (YAML: destinations, then, hashes, verify, layout, eject)", func(r io.ReadCloser, path string) {
		r.Close()
		v.usePreset(path)
	})
}

// usePreset makes path the watched preset (UI goroutine; read in the
// background: its eject: sets the checkbox).
func (v *autoView) usePreset(path string) {
	go func() {
		p, err := watch.LoadPreset(path)
		v.a.do(func() {
			if err != nil {
				v.status.SetText(err.Error())
				v.status.Importance = widget.DangerImportance
				v.status.Refresh()
				return
			}
			v.presetPath = path
			v.quiet = true
			v.from.SetSelected(autoFromPreset)
			v.quiet = false
			v.eject.SetChecked(p.Eject)
			v.describe()
		})
	}()
}

// describe says what the switch would do, while it is off.
func (v *autoView) describe() {
	if v.status == nil || v.running() {
		return
	}
	txt := "Off. When on, it offloads every camera card mounted"
	if v.from.Selected == autoFromPreset {
		if v.presetPath == "" {
			txt += " (choose a preset file)"
		} else {
			txt += " with " + filepath.Base(v.presetPath)
		}
	}
	v.status.SetText(txt + ".")
	v.status.Importance = widget.LowImportance
	v.status.Refresh()
}

// start turns the watch on (UI goroutine): the preset is read (a file in
// the background), then the watch runs until stop.
func (v *autoView) start() {
	a := v.a
	if v.running() {
		return
	}
	refuse := func(msg string) {
		v.setOn(false)
		v.status.SetText(msg)
		v.status.Importance = widget.DangerImportance
		v.status.Refresh()
	}
	if a.running.active() || a.offload.busy {
		refuse("Auto-offload starts once the running job has ended (or is cancelled): it offloads the cards mounted after that.")
		return
	}
	if v.done != nil {
		select {
		case <-v.done:
		default:
			refuse("The last watch is still ending.")
			return
		}
	}
	eject := v.eject.Checked
	var p *watch.Preset
	file := ""
	if v.from.Selected == autoFromPreset {
		if v.presetPath == "" {
			refuse("Choose a preset file first (Preset file...), or watch with " + autoFromForm + ".")
			return
		}
		file = v.presetPath
	} else {
		// The form's Spec, checked as a job's (the cards come with each
		// job).
		if _, msg := a.offload.formSettings(); msg != "" {
			refuse("Auto-offload needs the Offload tab's settings: " + msg)
			return
		}
		sp, _ := a.offload.spec()
		sp.Name = "" // one job's name: each watched job is named by its date and time
		p = &watch.Preset{Spec: sp, Eject: eject}
	}
	throttle := a.offload.throttle
	formTopo := a.offload.preset
	v.from.Disable()
	v.presetBtn.Disable()
	v.eject.Disable()
	v.status.SetText("Starting...")
	v.status.Importance = widget.MediumImportance
	v.status.Refresh()
	src := a.cfg.Volumes
	if src == nil {
		src = watch.System()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	v.cancel, v.done = cancel, done
	a.offload.autoChanged()
	a.goBG(func() {
		defer close(done)
		if file != "" {
			var err error
			if p, err = watch.LoadPreset(file); err == nil {
				_, err = presetSettings(p)
			}
			if err != nil {
				a.do(func() { v.stopped(err.Error()) })
				return
			}
			p.Eject = eject
		}
		for _, d := range append(append([]string(nil), p.Dests...), p.Then...) {
			if fi, err := os.Stat(d); !assembly.IsRemoteDest(d) && (err != nil || !fi.IsDir()) {
				a.do(func() {
					v.stopped(fmt.Sprintf("Destination %s is not there: mount it (dit never creates a destination root).", d))
				})
				return
			}
		}
		notifyFile := ""
		if p.Notify != nil {
			notifyFile = p.File
		}
		// The bus budget: the preset's topology file, else the one the
		// Offload tab holds (as the Offload tab's jobs are planned).
		topo := formTopo
		if file != "" {
			topo = nil
			if p.Topology != "" {
				t, err := plan.LoadTopology(p.Topology)
				if err != nil {
					a.do(func() { v.stopped(fmt.Sprintf("Preset %s: topology: %v", file, err)) })
					return
				}
				topo = t
			}
		}
		w := &watch.Watcher{Preset: p, Runner: &guiRunner{a: a, p: p, throttle: throttle, notifyFile: notifyFile, topo: topo}, Ejector: a.cfg.Ejector, Catalog: a.cfg.Catalog, Say: v.say}
		a.do(func() {
			if ctx.Err() == nil {
				v.w, v.src = w, src
				v.watching(p)
			}
		})
		interval := a.cfg.WatchInterval
		if interval <= 0 {
			interval = time.Second
		}
		w.Run(ctx, watch.Watch(ctx, src, interval))
		a.do(func() { v.stopped("") })
	})
}

// watching says the watch runs (UI goroutine).
func (v *autoView) watching(p *watch.Preset) {
	txt := "On: cards go to " + strings.Join(p.Dests, ", ")
	if len(p.Then) > 0 {
		txt += ", then " + strings.Join(p.Then, ", ")
	}
	if p.Eject {
		txt += "; ejected when free"
	}
	v.status.SetText(txt + ".")
	line := "watching mounted volumes: each camera card is offloaded to " + strings.Join(p.Dests, ", ")
	if len(p.Then) > 0 {
		line += ", then from that copy to " + strings.Join(p.Then, ", ")
	}
	line += " (" + cmp.Or(p.Hashes, assembly.DefaultHashes) + ")"
	if p.Eject {
		line += ", and ejected when it is free"
	}
	if p.File != "" {
		line += "; preset " + p.File
	} else {
		line += "; the Offload tab's settings"
	}
	v.addLine(time.Now().Format("15:04:05") + "  " + line)
	v.status.Importance = widget.SuccessImportance
	v.status.Refresh()
}

// stop turns the watch off (UI goroutine): no card mounted from now on is
// offloaded; a job it started goes on to its end.
func (v *autoView) stop() {
	if v.cancel != nil {
		v.cancel()
	}
	v.w, v.src, v.cancel = nil, nil, nil
	v.setOn(false)
	v.from.Enable()
	v.presetBtn.Enable()
	v.eject.Enable()
	v.describe()
	if v.a.running.active() && v.a.running.run.watched {
		v.status.SetText("Off: cards mounted from now on are not offloaded. The running job goes on to its end.")
		v.status.Refresh()
	}
	v.a.offload.autoChanged()
}

// stopped: the watch ended by itself, or could not start (why) (UI
// goroutine).
func (v *autoView) stopped(why string) {
	if why == "" {
		return // stop already said it
	}
	v.stop()
	v.status.SetText("Auto-offload is off: " + why)
	v.status.Importance = widget.DangerImportance
	v.status.Refresh()
	v.a.banner.add("Auto-offload stopped: " + why)
}

// say takes a watch's event (any goroutine): a line in the log; the
// card's eject result on its panel; the banner and a desktop notification
// when it needs the DIT.
func (v *autoView) say(ev watch.Event) {
	line := fmt.Sprintf("%s  %s: %s", ev.Time.Local().Format("15:04:05"), orDash(ev.Label), ev.Action.Words())
	if ev.JobID != 0 {
		line += fmt.Sprintf(" (job %d)", ev.JobID)
	}
	if ev.Message != "" {
		line += ": " + ev.Message
	}
	line += "  [" + ev.Path + "]"
	alert := ""
	switch ev.Action {
	case watch.Removed:
		alert = fmt.Sprintf("Card %s was removed while it was copied: its remaining files failed. Insert it again: it is taken up where it was.", orDash(ev.Label))
	case watch.EjectFailed:
		alert = fmt.Sprintf("Card %s was not ejected: %s", orDash(ev.Label), strings.TrimPrefix(ev.Message, "not ejected: "))
	case watch.Errored:
		alert = fmt.Sprintf("Auto-offload: %s: %s", orDash(ev.Label), ev.Message)
	}
	if alert != "" {
		v.a.desktopNotify("dit: "+alert, ev.Path)
	}
	v.a.do(func() {
		v.addLine(line)
		if ev.Action == watch.Ejected || ev.Action == watch.EjectFailed {
			v.a.running.ejectResult(ev.Path, ev.Action == watch.Ejected, ev.Message)
		}
		switch {
		case ev.Action == watch.Removed:
			// Taken up again when it is inserted: its verdict then
			// replaces this.
			v.a.banner.addCard(ev.JobID, ev.Label, noticeRemoved, alert)
		case alert != "":
			v.a.banner.add(alert)
		}
	})
}

// addLine appends to the log (UI goroutine).
func (v *autoView) addLine(line string) {
	v.lines = append(v.lines, line)
	if len(v.lines) > logLines {
		v.lines = v.lines[len(v.lines)-logLines:]
	}
	v.log.SetText(strings.Join(v.lines, "\n"))
	v.logBox.Show()
	v.logScroll.ScrollToBottom()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// presetSettings are a preset file's settings as the app's job settings
// (without cards): the preset's Spec checked (watch.Preset.JobSettings).
func presetSettings(p *watch.Preset) (jobSettings, error) {
	st, err := p.JobSettings(nil, time.Now())
	return jobSettings{Settings: st}, err
}

// guiRunner starts a watch's jobs with the app's settings: the job runs
// and shows in the Running job view like any job.
type guiRunner struct {
	a *App
	p *watch.Preset
	// throttle caps each card's read rate (Prepare.Throttle); notifyFile
	// is the preset whose notify: section the jobs' notifications use.
	throttle   float64
	notifyFile string
	// topo, when set, is the topology file whose bus budget the watch's
	// jobs are scheduled by (each job its part: sched.ForJob; cards that
	// join are planned with their entry).
	topo *plan.Topology
}

// guiJob is a job the watch started in the app.
type guiJob struct {
	*assembly.Job
	a   *App
	run *jobRun
}

// Run runs the job to its end in the app (the job's context is its own:
// turning the watch off lets it finish; Cancel interrupts it).
func (j *guiJob) Run(context.Context) (*offload.Summary, error) { return j.a.finishJob(j.run) }

// Start prepares a job for card (see watch.Runner): nil when the card was
// offloaded and verified on every destination of the preset before.
func (r *guiRunner) Start(ctx context.Context, card string, resume int64, onEvent func(offload.Event)) (watch.Job, error) {
	a := r.a
	a.jobMu.Lock()
	cur := a.job
	a.jobMu.Unlock()
	if cur != nil && !cur.finished() && !cur.watched {
		return nil, errors.New("a job started by hand is running: the card is not offloaded; insert it again once that job ended")
	}
	// The preset's settings (a resume: those of this run, the rest is
	// the catalog's).
	var set assembly.Settings
	var err error
	if resume != 0 {
		set, err = r.p.Spec.ForResume().Settings(r.p.Names(), nil)
		set.Resume = resume
	} else {
		set, err = r.p.JobSettings([]string{card}, time.Now())
	}
	if err != nil {
		return nil, err
	}
	set.Throttle = r.throttle
	// The bus budget: each job its part of the watch's topology (cards
	// that join are planned with their entry).
	s := jobSettings{Settings: set, WatchTopology: r.topo, NotifyFile: r.notifyFile}
	run, err := a.prepareJob(s, onEvent)
	if errors.Is(err, errNothingToCopy) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &guiJob{Job: run.job, a: a, run: run}, nil
}

// AutoOffload turns the Auto-offload switch on as a person would (call on
// the UI goroutine): with the preset file preset ("": the Offload tab's
// settings), ejecting each card when it is free if eject is set or the
// preset says eject: true.
func (a *App) AutoOffload(preset string, eject bool) {
	v := a.auto
	if preset != "" {
		abs, err := filepath.Abs(preset)
		if err == nil {
			preset = abs
		}
		v.presetPath = preset
		v.quiet = true
		v.from.SetSelected(autoFromPreset)
		v.quiet = false
		// The preset's eject: true holds (a file this small is read at
		// once; a bad one is said when the watch starts).
		if p, err := watch.LoadPreset(preset); err == nil && p.Eject {
			eject = true
		}
	}
	v.eject.SetChecked(eject)
	v.on.SetChecked(true)
}
