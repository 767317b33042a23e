package ui

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// runningView shows the job in progress: large rate and ETA, a panel per
// card, the throughput chart, pause / resume / cancel.
type runningView struct {
	a       *App
	content fyne.CanvasObject
	run     *jobRun

	runningFigures  // the job's big figures
	runningControls // its buttons and lines of words
	runningLayout   // the tiles, the chart and how they share the view

	ejectMsg string // the last card-free message shown (tests)
}

// runningFigures are the running job's big figures and their captions.
type runningFigures struct {
	title   *widget.Label
	rateBig *canvas.Text
	tbBig   *canvas.Text // the model's live TB/hour, end to end
	etaBig  *canvas.Text
	rateCap *widget.Label
	tbCap   *widget.Label
	etaCap  *widget.Label
	tbBox   *fyne.Container
	figures *fyne.Container
}

// runningControls are the running job's buttons and lines of words.
type runningControls struct {
	stallL   *widget.Label // how many runs are stalled, and where
	pauseBtn *widget.Button
	stopBtn  *widget.Button
	addBtn   *widget.Button
	chartBtn *widget.Button
	planL    *widget.Label
	doneL    *widget.Label
	warnL    *widget.Label
	prepL    *widget.Label // what the assembly said before the start
	empty    *widget.Label
}

// runningLayout is the running view's tiles, chart and their places.
type runningLayout struct {
	cardsBox *fyne.Container
	panels   []*cardPanel
	chart    *throughputChart
	body     *fyne.Container
	scroll   *container.Scroll
	split    *container.Split // the tiles over the chart
	center   *fyne.Container  // the split, or the tiles alone (the chart off)
	chartOn  bool
	tiles    []fyne.CanvasObject // the tiles in the order shown
}

func newRunningView(a *App) *runningView {
	v := &runningView{a: a}
	v.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.title.SizeName = theme.SizeNameSubHeadingText
	v.rateBig = canvas.NewText("-", theme.Color(theme.ColorNameForeground))
	v.rateBig.TextSize = bigFigure
	v.rateBig.TextStyle.Bold = true
	v.tbBig = canvas.NewText("-", theme.Color(theme.ColorNameForeground))
	v.tbBig.TextSize = bigFigure
	v.tbBig.TextStyle.Bold = true
	v.etaBig = canvas.NewText("-", theme.Color(theme.ColorNameForeground))
	v.etaBig.TextSize = bigFigure
	v.etaBig.TextStyle.Bold = true
	v.rateCap = widget.NewLabel("all cards now")
	v.tbCap = widget.NewLabel("end to end so far")
	v.etaCap = widget.NewLabel("until every card is safe to format")
	for _, l := range []*widget.Label{v.rateCap, v.tbCap, v.etaCap} {
		l.SizeName = theme.SizeNameCaptionText
	}
	v.stallL = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.stallL.Wrapping = fyne.TextWrapWord
	v.stallL.Importance = widget.WarningImportance
	v.stallL.Hide()
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
	v.prepL = widget.NewLabel("")
	v.prepL.Wrapping = fyne.TextWrapWord
	v.prepL.Importance = widget.WarningImportance
	v.prepL.Hide()
	v.cardsBox = container.NewGridWithColumns(1)
	v.chart = newThroughputChart()
	v.empty = widget.NewLabel("No job yet. Set one up in the Offload tab and press Start (Ctrl+Enter).")

	gap := func() fyne.CanvasObject {
		g := canvas.NewRectangle(color.Transparent)
		g.SetMinSize(fyne.NewSize(48, 1))
		return g
	}
	v.tbBox = container.NewHBox(container.NewVBox(v.tbBig, v.tbCap), gap())
	v.figures = container.NewHBox(
		container.NewVBox(v.rateBig, v.rateCap), gap(), v.tbBox,
		container.NewVBox(v.etaBig, v.etaCap),
	)
	v.chartBtn = widget.NewButton("Show chart", func() { v.setChart(!v.chartOn) })
	head := container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(v.chartBtn, v.addBtn, v.pauseBtn, v.stopBtn), v.title),
		container.NewBorder(nil, nil, v.figures, nil, v.stallL), v.prepL)
	chartBox := container.NewBorder(widget.NewLabelWithStyle("Throughput per card (decimal GB/s)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		nil, nil, nil, v.chart)
	v.scroll = container.NewScroll(container.NewThemeOverride(container.NewVBox(v.cardsBox, v.doneL, v.warnL, v.planL), compactTheme{}))
	// The cards and the chart share the height (a split the person can
	// move): with the auto-offload log and the banner above, the cards
	// are not squeezed into what the chart leaves.
	v.split = container.NewVSplit(v.scroll, chartBox)
	v.split.Offset = 0.7
	v.center = container.NewStack(v.scroll)
	v.body = container.NewBorder(container.NewThemeOverride(head, compactTheme{}), nil, nil, nil, v.center)
	v.body.Hide()
	v.content = container.NewPadded(container.NewBorder(container.NewThemeOverride(a.auto.content, compactTheme{}), nil, nil, nil, container.NewStack(container.NewCenter(v.empty), v.body)))
	return v
}

// active reports whether a job is running.
func (v *runningView) active() bool { return v.run != nil && !v.run.finished() }

// bind shows a new job (UI goroutine).
func (v *runningView) bind(run *jobRun) {
	v.run = run
	v.cardsBox.RemoveAll()
	v.panels = nil
	v.tiles = nil
	for i := range run.modelOrNil().view().Cards {
		v.panels = append(v.panels, newCardPanel(i, v.showEject, v.render))
	}
	// The chart is off on a screen too short for it and the tiles.
	v.setChart(v.a.win.Canvas().Size().Height >= 900)
	v.empty.Hide()
	v.body.Show()
	for _, b := range []*widget.Button{v.pauseBtn, v.stopBtn, v.addBtn} {
		b.Enable()
		b.Show()
	}
	v.render()
}

// addCard asks for a card folder (typed, or chosen in the folder
// dialog) and adds it to the running job: it is
// checked like the cards given at the start and copied at once; the plan
// is re-made (UI goroutine; the work runs in the background).
func (v *runningView) addCard() {
	if !v.active() || v.run.job == nil {
		return
	}
	job := v.run.job
	v.a.askFolder("A card to add to the running job", "The card's path: /media/dit/A002", "Add card", func(p string) {
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
	state := jobState(mv)
	setText(v.title, fmt.Sprintf("Job %d  %s  (%s)", mv.JobID, mv.Name, state))
	v.renderFigures(mv, state)
	v.renderCards(mv)
	v.renderChart(mv)
	setText(v.planL, planText(mv))
	setText(v.warnL, strings.Join(mv.Warnings, "\n"))
	if len(mv.Prepared) > 0 {
		setText(v.prepL, "Before the start:\n"+strings.Join(mv.Prepared, "\n"))
		v.prepL.Show()
	} else {
		v.prepL.Hide()
	}
	v.renderDone(mv)
	for _, l := range []*widget.Label{v.planL, v.warnL, v.doneL} {
		l.Hidden = l.Text == "" // (an empty line still takes the tiles' height)
	}
	relayout(v.scroll) // (a Refresh would draw every label of every card again)
	v.renderButtons(mv)
}

// jobState is the job's state in a word, as its title says it.
func jobState(mv runView) string {
	switch {
	case mv.Finished && mv.Err != "":
		return "stopped"
	case mv.Finished && mv.Summary != nil && mv.Summary.Status.Ended():
		return string(mv.Summary.Status) // done, failed, interrupted: the verdict model's
	case mv.Finished:
		return "finished"
	case mv.Paused:
		return "paused"
	}
	return "running"
}

// renderFigures draws the large figures (state: the job's, in a word):
// while it runs, the live model's rate, TB/hour and time until every
// card is safe to format, and the runs it says are stalled; once it
// ended, the summary's TB/hour and the verdict.
func (v *runningView) renderFigures(mv runView, state string) {
	fg := theme.Color(theme.ColorNameForeground)
	v.tbBox.Hide()
	switch {
	case mv.Finished:
		v.rateBig.Text, v.etaBig.Text = "-", "done"
		if mv.Summary != nil && mv.Summary.TBPerHour > 0 {
			v.rateBig.Text = units.FormatTBPerHour(mv.Summary.TBPerHour)
			setText(v.rateCap, "whole job")
		}
		setText(v.etaCap, "")
	case mv.Paused:
		v.rateBig.Text, v.etaBig.Text = "paused", "-"
		setText(v.etaCap, "no estimate while paused")
	default:
		v.rateBig.Text, v.tbBig.Text, v.etaBig.Text = jobFigures(mv)
		setText(v.rateCap, "all cards now")
		v.tbBox.Show()
		setText(v.etaCap, jobETACaption(mv))
	}
	if s := stalledText(mv); s != "" {
		setText(v.stallL, s)
		v.stallL.Show()
	} else {
		v.stallL.Hide()
	}
	v.rateBig.Color, v.tbBig.Color, v.etaBig.Color = fg, fg, fg
	if mv.Finished && (mv.Err != "" || (mv.Summary != nil && mv.Summary.Status.Bad())) {
		// A job that ended badly says so at a glance, in the failure colour.
		v.etaBig.Text = strings.ToUpper(state)
		v.etaBig.Color = theme.Color(theme.ColorNameError)
	}
	v.rateBig.Refresh()
	v.tbBig.Refresh()
	v.etaBig.Refresh()
	v.figures.Refresh() // the figures' widths changed
}

// jobFigures are the live model's figures of a running job as the header
// shows them: its rate now, its TB/hour end to end so far, and its time
// until every card is safe to format ("unknown" when the model cannot
// say, e.g. while a card is stalled); dashes before its first snapshot.
func jobFigures(mv runView) (rate, tbh, eta string) {
	if !mv.HaveJob {
		return "-", "-", "-"
	}
	j := mv.Job
	return rateText(j.Rate), units.FormatTBPerHour(j.TBPerHour), j.ETA.Safe.String()
}

// jobETACaption says what the big estimate is, and the model's other
// estimates of the job: every card copied, or in a cascade free.
func jobETACaption(mv runView) string {
	txt := "until every card is safe to format"
	if !mv.HaveJob {
		return txt
	}
	j := mv.Job
	switch {
	case len(mv.Then) > 0 && j.Copied < j.Cards:
		return txt + " (" + estimateIn("every card copied", j.ETA.Copied) + ", " + estimateIn("free", j.ETA.CardFree) + ")"
	case len(mv.Then) > 0:
		return txt + " (every card copied; " + estimateIn("every card free", j.ETA.CardFree) + ")"
	case j.Copied < j.Cards:
		return txt + " (" + estimateIn("every card copied", j.ETA.Copied) + ")"
	}
	return txt + " (every card copied)"
}

// stalledText says how many runs the model says are stalled, and each
// one's place and cause ("" when none): "1 card stalled: A001: Stalled
// at /Volumes/SHUTTLE: ...".
func stalledText(mv runView) string {
	if mv.Finished || mv.Job.Stalled == 0 {
		return ""
	}
	var lines []string
	for _, c := range mv.Cards {
		if c.stalled() {
			lines = append(lines, c.Label+": "+stallText(c.Prog.Stall))
		}
		if c.Then != nil && c.Then.stalled() {
			lines = append(lines, c.Label+" (2nd run): "+stallText(c.Then.Prog.Stall))
		}
	}
	head := plural(mv.Job.Stalled, "card") + " stalled: the estimates are unknown until it moves"
	if mv.Job.Stalled > 1 {
		head = plural(mv.Job.Stalled, "card") + " stalled: the estimates are unknown until they move"
	}
	return strings.Join(append([]string{head}, lines...), "\n")
}

// renderCards draws a panel per card, adding those of cards that joined
// the job.
func (v *runningView) renderCards(mv runView) {
	for len(v.panels) < len(mv.Cards) { // a card joined the job
		v.panels = append(v.panels, newCardPanel(len(v.panels), v.showEject, v.render))
	}
	for i, c := range mv.Cards {
		v.panels[i].set(c, mv)
	}
	v.arrangeTiles(mv)
}

// tileColumns is how many tiles a row of the view holds for n cards:
// two (up to 8 cards fit a 1280x800 screen in four rows; more scroll),
// one card takes the width.
func tileColumns(n int) int {
	if n <= 1 {
		return 1
	}
	return 2
}

// tileRank orders the tiles: failed cards first, then those with a
// warning (stalled, a file lost), then the others in the job's order.
func tileRank(c cardView) int {
	switch stateImportance(c) {
	case widget.DangerImportance:
		return 0
	case widget.WarningImportance:
		return 1
	}
	return 2
}

// arrangeTiles lays the tiles out in their grid, failed and stalled
// cards first (panels keep the job's order: the grid's order is the
// view's).
func (v *runningView) arrangeTiles(mv runView) {
	order := make([]int, len(mv.Cards))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tileRank(mv.Cards[a]), tileRank(mv.Cards[b])) })
	objs := make([]fyne.CanvasObject, len(order))
	for k, i := range order {
		objs[k] = v.panels[i].tile
	}
	if slices.Equal(objs, v.tiles) {
		return
	}
	v.tiles = objs
	// Column by column, each tile its own height (a failed card's tile
	// is taller by its failure's line): in rows, a row takes the height
	// of its tallest.
	cols := make([]fyne.CanvasObject, tileColumns(len(objs)))
	for c := range cols {
		col := container.NewVBox()
		for k := c; k < len(objs); k += len(cols) {
			col.Add(objs[k])
		}
		cols[c] = col
	}
	v.cardsBox.Layout = layout.NewGridLayoutWithColumns(len(cols))
	v.cardsBox.Objects = cols
	v.cardsBox.Refresh()
}

// setChart shows or hides the throughput chart: off, the tiles take the
// height.
func (v *runningView) setChart(on bool) {
	if on {
		v.center.Objects = []fyne.CanvasObject{v.split}
		v.chartBtn.SetText("Hide chart")
	} else {
		v.center.Objects = []fyne.CanvasObject{v.scroll}
		v.chartBtn.SetText("Show chart")
	}
	v.chartOn = on
	v.center.Refresh()
}

// renderChart draws the throughput of each card's runs.
func (v *runningView) renderChart(mv runView) {
	var series []chartSeries
	for i, c := range mv.Cards {
		series = append(series, chartSeries{Label: c.Label, Points: c.Series, Card: i})
	}
	for i, c := range mv.Cards {
		if c.Then != nil {
			series = append(series, chartSeries{Label: c.Label + " (2nd run)", Points: c.Then.Series, Card: i, Second: true})
		}
	}
	v.chart.set(series, mv.Started, mv.Now, mv.Window)
}

// planText is the simulation and the plan in force, in words.
func planText(mv runView) string {
	var plan []string
	if mv.Sim != "" {
		plan = append(plan, mv.Sim)
	}
	if mv.Plan != nil {
		plan = append(plan, fmt.Sprintf("Plan in force (%s): %s, bottleneck: %s", mv.PlanWhy, units.FormatRate(mv.Plan.Total), mv.Plan.Bottleneck))
	}
	return strings.Join(plan, "\n")
}

// renderDone says how the job ended: why it stopped, or its summary.
func (v *runningView) renderDone(mv runView) {
	switch {
	case mv.Finished && mv.Err != "":
		setText(v.doneL, "The job stopped: "+mv.Err)
		v.doneL.Importance = widget.DangerImportance
	case mv.Finished && mv.Summary != nil:
		txt, bad := summaryText(mv.Summary, v.run.reportPaths())
		if v.run.finished() && v.run.proxies != "" {
			txt += "\nProxies: " + v.run.proxies
		}
		setText(v.doneL, txt)
		v.doneL.Importance = widget.MediumImportance
		if bad {
			v.doneL.Importance = widget.DangerImportance
		}
	default:
		setText(v.doneL, "")
	}
	v.doneL.Refresh()
}

// summaryText is a job's summary in words (reports: the report files
// written); bad when a file failed or a card is not safe to format.
func summaryText(s *offload.Summary, reports []string) (txt string, bad bool) {
	safe := 0
	for _, c := range s.Cards {
		if c.SafeToFormat {
			safe++
		}
	}
	txt = fmt.Sprintf("%s in %s (%s): %d of %d cards safe to format, %s failed.",
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
	if s.Status == verdict.Interrupted {
		txt = fmt.Sprintf("Interrupted: nothing unverified is reported verified. Resume job %d from History.", s.JobID)
	}
	if len(reports) > 0 {
		txt += "\nReports written to " + strings.Join(reports, ", ")
	}
	return txt, s.Failed > 0 || safe < len(s.Cards)
}

// renderButtons takes Pause, Cancel and Add card away once the job
// ended (ended means ended: nothing is left to pause, cancel or join);
// Pause reads Resume while paused.
func (v *runningView) renderButtons(mv runView) {
	if mv.Finished || v.run.finished() {
		for _, b := range []*widget.Button{v.pauseBtn, v.stopBtn, v.addBtn} {
			if b.Visible() {
				b.Disable()
				b.Hide()
			}
		}
		return
	}
	if mv.Paused {
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
