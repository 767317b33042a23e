package ui

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

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
	stall    *widget.Label // the model's stall of the run, in words
	failures *widget.Label
	clips    *widget.Label // camera, clip count and duration
	swatch   *canvas.Rectangle
	details  *fyne.Container // the first run's counters
	dests    *destRows       // the first run on each destination
	box      *fyne.Container

	cardTile    // the card's tile in the view's grid
	cardCascade // a cascade's rows

	last    cardView // what the panel shows (the eject action tells of it)
	onEject func(cardView)
}

// cardTile is a card's tile in the running view's grid: the panel's box
// in the compact theme, framed; more shows or hides its details (each
// destination's bytes, the file being copied). failShort: the first
// failed file in a line (the tile); the panel's failures list them all
// with why (its details).
type cardTile struct {
	tile      *fyne.Container
	frame     *canvas.Rectangle
	more      *widget.Button
	failShort *widget.Label
}

// cardCascade is a card panel's rows of a cascade.
type cardCascade struct {
	run1     *widget.Label // "1st run: from the card to ..."
	run1St   *widget.Label
	run1Head *fyne.Container
	free     *widget.Label
	eject    *widget.Button
	freeRow  *fyne.Container
	ejectBtn *widget.Button // the card's Eject (enabled once it is free)
	ejectL   *widget.Label  // what the eject said
	second   *runRow
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
	stall    *widget.Label
	failures *widget.Label
	details  *fyne.Container
	dests    *destRows
	box      *fyne.Container
}

// newStallLabel is the line that says a run stalled and why.
func newStallLabel() *widget.Label {
	l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	l.Hide()
	return l
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
		stall:    newStallLabel(),
		failures: widget.NewLabel(""),
		dests:    newDestRows(),
	}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.current.Truncation = fyne.TextTruncateEllipsis
	r.failures.Wrapping = fyne.TextWrapWord
	r.failures.Importance = widget.DangerImportance
	for _, l := range []*widget.Label{r.bytes, r.files, r.rate} {
		l.Wrapping = fyne.TextWrapWord
	}
	r.details = container.New(figuresLayout{}, r.bytes, r.files, r.rate)
	r.bar.TextFormatter = func() string { return "" }
	thin := container.NewThemeOverride(r.bar, tintTheme{Theme: compactTheme{}, primary: theme.ColorNamePrimary})
	r.box = container.NewVBox(container.NewBorder(nil, nil, nil, r.state, r.title), thin, r.stall, r.details, r.current, r.dests.box, r.failures)
	return r
}

func newCardPanel(i int, onEject func(cardView), onLayout func()) *cardPanel {
	p := &cardPanel{
		title:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		state:    widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		bar:      widget.NewProgressBar(),
		bytes:    widget.NewLabel(""),
		files:    widget.NewLabel(""),
		rate:     widget.NewLabel(""),
		current:  widget.NewLabel(""),
		stall:    newStallLabel(),
		failures: widget.NewLabel(""),
		clips:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Italic: true}),
		swatch:   canvas.NewRectangle(cardColor(i)),
		cardCascade: cardCascade{
			run1:   widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
			run1St: widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
			free:   widget.NewLabel(""),
			second: newRunRow(),
		},
		dests:   newDestRows(),
		onEject: onEject,
	}
	p.title.SizeName = theme.SizeNameSubHeadingText
	// The verdict or phase, big: read at arm's length.
	p.state.SizeName = sizeNameVerdict
	p.state.Alignment = fyne.TextAlignLeading
	p.state.Wrapping = fyne.TextWrapWord
	p.bar.TextFormatter = func() string { return "" } // the figures are beside it, in the text's colours
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
	p.more = widget.NewButton("Details", func() {
		p.setMore(!p.dests.detail)
		if onLayout != nil {
			onLayout()
		}
	})
	p.more.Importance = widget.LowImportance
	head := container.NewBorder(nil, nil, container.NewHBox(p.swatch, p.title), container.NewHBox(p.more, p.ejectBtn), p.state)
	for _, l := range []*widget.Label{p.bytes, p.files, p.rate} {
		l.Wrapping = fyne.TextWrapWord
	}
	p.details = container.New(figuresLayout{}, p.bytes, p.files, p.rate)
	p.failShort = widget.NewLabel("")
	p.failShort.Truncation = fyne.TextTruncateEllipsis
	p.failShort.Importance = widget.DangerImportance
	p.failShort.Hide()
	p.current.Hide()
	p.clips.Truncation = fyne.TextTruncateEllipsis
	p.clips.Hide()
	p.barTint = container.NewThemeOverride(p.bar, compactTheme{})
	p.box = container.NewVBox(head, p.run1Head, p.barTint, p.stall, p.details, p.current, p.dests.box, p.clips, p.failShort, p.failures, p.freeRow, p.ejectL, p.second.box)
	frame := canvas.NewRectangle(color.Transparent)
	frame.StrokeWidth, frame.CornerRadius = 1, 4
	frame.StrokeColor = theme.Color(theme.ColorNameSeparator)
	p.frame = frame
	p.tile = container.NewStack(frame, container.NewPadded(p.box)) // in the compact theme: see runningView
	p.run1Head.Hide()
	p.freeRow.Hide()
	p.second.box.Hide()
	return p
}

// setRun shows one run's counters: bytes, files, the model's rate and
// estimates (times: the card's, from the run's snapshot) and phase, the
// file being copied. While paused no rate or estimate is shown.
func setRun(bytes, files, rate, current *widget.Label, r runState, cascade, paused bool) {
	pr := r.Prog
	b := fmt.Sprintf("Copied %s of %s", units.FormatBytes(pr.BytesCopied), units.FormatBytes(pr.Bytes))
	if pr.VerifyTotal > 0 && len(pr.Dests) == 0 {
		// (With the destinations' rows, each says what it read back.)
		b += fmt.Sprintf("\nRead back %s of %s (all copies)", units.FormatBytes(pr.BytesVerified), units.FormatBytes(pr.VerifyTotal))
	}
	if pr.BytesResent > 0 {
		b += fmt.Sprintf("\n%s sent again after retries", units.FormatBytes(pr.BytesResent))
	}
	setText(bytes, b)
	f := fmt.Sprintf("Files %d of %d done", pr.FilesDone, pr.Files)
	if n := r.failedFiles(); n > 0 {
		f += fmt.Sprintf(", %d failed", n)
	}
	setText(files, f)
	setText(rate, runFigures(r, cascade, paused))
	if pr.Current != "" && !r.Done {
		// While the card verifies, the engine's current file is one
		// being read back from a destination.
		if pr.Phase == live.Verifying {
			setText(current, "Reading back "+pr.Current)
		} else {
			setText(current, pr.Current)
		}
		current.Show()
	} else {
		current.Hide()
	}
}

// runFigures is a running run's rate, its TB/hour so far and the
// model's estimates for its card, all the model's: "0.520 GB/s, 1.872
// TB/hour; safe in 1m05s", in a cascade's first run "...; free in 20s,
// safe in 1m05s"; an estimate the model cannot make (a stall, nothing
// measured yet) reads "safe: unknown"; with no rate (a stall, a queued
// run), its TB/hour so far and the estimates ("1.872 TB/hour so far;
// Safe: unknown"), or the estimates alone before it read anything ("Safe
// in 2m00s"). While paused: "Paused", no rate and no estimate. A run
// that ended: "Done" and its TB/hour.
func runFigures(r runState, cascade, paused bool) string {
	pr := r.Prog
	tbh := ""
	if pr.TBPerHour > 0 {
		tbh = units.FormatTBPerHour(pr.TBPerHour)
	}
	switch {
	case r.Done && tbh != "":
		return "Done, " + tbh
	case r.Done:
		return "Done"
	case paused:
		return "Paused"
	}
	eta := estimateIn("safe", pr.ETA.Safe)
	if cascade && pr.Hop != 2 {
		eta = estimateIn("free", pr.ETA.CardFree) + ", " + eta
	}
	if rate := rateText(pr.Rate); rate != "-" {
		if tbh != "" {
			rate += ", " + tbh
		}
		return rate + "; " + eta
	}
	// Nothing moving (a stall, a queued run): the estimates, and the
	// run's TB/hour so far once it read something (a stalled card still
	// says what it has done).
	eta = strings.ToUpper(eta[:1]) + eta[1:]
	if tbh != "" {
		return tbh + " so far; " + eta
	}
	return eta
}

// estimateIn is one of the model's estimates in words: "safe in 1m05s",
// or "safe: unknown" (live.Estimate.String's words).
func estimateIn(what string, e live.Estimate) string {
	if !e.Known {
		return what + ": " + e.String()
	}
	return what + " in " + e.String()
}

// stallText says where a run stalled and why, as the model says it:
// "Stalled at /Volumes/SHUTTLE: write: i/o timeout, retry 3 of 10, since
// 40s" ("" when it moves).
func stallText(s *live.Stall) string {
	if s == nil {
		return ""
	}
	where := "on the card"
	if s.Where != "" && s.Where != live.StallCard {
		where = "at " + shortDest(s.Where)
	}
	return "Stalled " + where + ": " + s.String()
}

// setStall shows a running run's stall (none while paused: see
// runModel.view).
func setStall(l *widget.Label, r runState) {
	if !r.stalled() {
		l.Hide()
		return
	}
	setText(l, stallText(r.Prog.Stall))
	l.Show()
}

// failureText lists what failed in a run (at most 20 lines, then how
// many more: those beyond 20 and the more not held), under the
// engine's count of its failed files (n): "2 files failed:", a line per
// file with why, and what failed beside them (the hash lists), not
// counted as a file.
func failureText(fs []failure, more, n int, interrupted bool, what string) string {
	var b strings.Builder
	switch {
	case n > 0 && interrupted:
		fmt.Fprintf(&b, "%s%s not finished (resume the job to retry):", what, plural(n, "file"))
	case n > 0:
		fmt.Fprintf(&b, "%s%s failed:", what, plural(n, "file"))
	default:
		b.WriteString(what + "Failed:")
	}
	for i, f := range fs {
		if i == 20 {
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", f.Path, firstLine(f.Why))
	}
	if more += len(fs) - min(len(fs), 20); more > 0 {
		fmt.Fprintf(&b, "\n... and %d more (see History)", more)
	}
	return b.String()
}

// failureLine is what failed in a run in a line, for its tile: "1 file
// failed: CLIPS/C002.mov (Details: why)" (n, the engine's count, and the
// first failed file); no file failed: the first failure and why.
func failureLine(fs []failure, n int, interrupted bool, what string) string {
	if n == 0 {
		return fmt.Sprintf("%s%s: %s", what, fs[0].Path, firstLine(fs[0].Why))
	}
	verb := "failed"
	if interrupted {
		verb = "not finished"
	}
	return fmt.Sprintf("%s%s %s: %s (Details: why)", what, plural(n, "file"), verb, fs[0].Path)
}

// tintBar colours the card's bar as its verdict once the card ended (the
// summary read): green when safe to format, the failure colour when it
// failed or was interrupted; the theme's own colour while it runs. The
// theme is read anew each time, so a theme switch is followed.
func (p *cardPanel) tintBar(imp widget.Importance, ended bool) {
	th := tintTheme{Theme: compactTheme{}, primary: theme.ColorNamePrimary}
	switch {
	case ended && imp == widget.SuccessImportance:
		th.primary = theme.ColorNameSuccess
	case ended && imp == widget.DangerImportance:
		th.primary = theme.ColorNameError
	}
	p.barTint.Theme = th
	p.barTint.Refresh()
}

// runImportance colours a run's state.
func runImportance(r runState) widget.Importance {
	switch {
	case r.Done && r.EndState.Bad():
		return widget.DangerImportance
	case len(r.Failures) > 0, r.stalled():
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

// set shows card c of the job mv: its state, bar and counters, a stall,
// eject, clips and failures, and in a cascade each run on its own row.
func (p *cardPanel) set(c cardView, mv runView) {
	p.last = c
	setText(p.title, c.Label)
	p.setState(c, mv.Paused)
	p.bar.SetValue(c.Fraction())
	p.tintBar(p.state.Importance, c.HaveSummary)
	p.frame.StrokeColor = theme.Color(theme.ColorNameSeparator)
	p.frame.Refresh()
	setRun(p.bytes, p.files, p.rate, p.current, c.runState, c.Cascade, mv.Paused)
	if !p.dests.detail {
		p.current.Hide() // (in the tile's details)
	}
	setStall(p.stall, c.runState)
	p.dests.set(c.Prog.Dests, c.Done, c.Prog.Stall, mv.Paused && !c.Done)
	p.setEject(c)
	p.setClips(c)
	p.setFailures(c)
	if !c.Cascade {
		p.details.Show()
		p.run1Head.Hide()
		p.freeRow.Hide()
		p.second.box.Hide()
		return
	}
	p.setCascade(c, mv)
}

// setState shows the card's state in words and in its colour (" (paused)"
// while a paused card still runs).
func (p *cardPanel) setState(c cardView, paused bool) {
	st := c.State()
	if paused && !c.settled() && !c.HaveSummary {
		st += " (paused)"
	}
	setText(p.state, st)
	setImportance(p.state, stateImportance(c))
}

// stateImportance colours a card's state: the verdict's colour once the
// engine gave one (green only for safe to format), else the failure
// colour for a run that ended failed or interrupted, the warning colour
// for a lost file or a stall, the primary colour for card free.
func stateImportance(c cardView) widget.Importance {
	switch {
	case c.HaveSummary && c.Status == verdict.Safe:
		return widget.SuccessImportance
	case c.HaveSummary && c.Status == verdict.CardFree:
		return widget.HighImportance
	case c.HaveSummary:
		return widget.DangerImportance
	case c.Done && c.EndState.Bad(), c.Free && (c.thenFailed() || c.thenEnd().Bad()):
		return widget.DangerImportance
	case len(c.Failures) > 0, c.stalled():
		return widget.WarningImportance
	case c.Free:
		// Card free reads apart from safe to format: another colour,
		// other words.
		return widget.HighImportance
	}
	return widget.MediumImportance
}

// setClips shows the card's clips once they are known.
func (p *cardPanel) setClips(c cardView) {
	if c.Clips != nil {
		setText(p.clips, c.Clips.text())
		p.clips.Show()
	} else {
		p.clips.Hide()
	}
}

// setFailures lists the card's failed files (in a cascade: its first
// run's); a card the engine says failed with no file listed says the
// engine's words why ("Incomplete (unreadable entries on the card)").
func (p *cardPanel) setFailures(c cardView) {
	p.failShort.Hide()
	switch {
	case len(c.Failures) > 0:
		what := ""
		if c.Cascade {
			what = "1st run: "
		}
		setText(p.failures, failureText(c.Failures, c.FailuresMore, c.failedFiles(), c.interrupted(), what))
		if p.dests.detail {
			p.failures.Show()
			return
		}
		p.failures.Hide()
		setText(p.failShort, failureLine(c.Failures, c.failedFiles(), c.interrupted(), what))
		p.failShort.Show()
	case c.HaveSummary && c.Status == verdict.Failed && !c.thenFailed() && c.Verdict != "":
		setText(p.failures, c.Verdict)
		p.failures.Show()
	default:
		p.failures.Hide()
	}
}

// setCascade shows a cascade's card: the first run, card free, the
// second run.
func (p *cardPanel) setCascade(c cardView, mv runView) {
	// A run that is done shows its full bar and its state: its counters
	// make room for the other run's.
	if c.Done {
		p.details.Hide()
	} else {
		p.details.Show()
	}
	first := "the first-run destinations"
	if len(mv.Dests) > 0 {
		first = strings.Join(mv.Dests, ", ")
	}
	setText(p.run1, "1st run: from the card to "+first)
	setText(p.run1St, c.runState.runText())
	setImportance(p.run1St, runImportance(c.runState))
	p.run1Head.Show()
	p.setFree(c, first)
	p.second.set(c, mv)
}

// setFree shows the card-free row once the card is free: it may leave
// the reader, and is safe to format only once both runs verified it.
// first names the first-run destinations.
func (p *cardPanel) setFree(c cardView, first string) {
	if !c.Free {
		p.freeRow.Hide()
		return
	}
	at := ""
	if !c.FreeAt.IsZero() {
		at = " at " + c.FreeAt.Local().Format("15:04:05")
	}
	if c.HaveSummary && c.Safe {
		setText(p.free, fmt.Sprintf("Card free%s; both runs verified%s: safe to format.", at, safeAtText(c.SafeAt)))
		p.free.Importance = widget.SuccessImportance
	} else {
		setText(p.free, fmt.Sprintf("Card free%s: verified on %s. It may leave the reader: do NOT format it until the second run is verified.", at, first))
		p.free.Importance = widget.HighImportance
	}
	p.free.Refresh()
	p.freeRow.Show()
}

// set shows card c's second run: waiting for the card to be free, queued,
// or its own bar, counters and failures once the engine reports it.
func (r *runRow) set(c cardView, mv runView) {
	src := "the first copy"
	if mv.FirstCopy != "" {
		src = "the first copy on " + mv.FirstCopy
	}
	setText(r.title, fmt.Sprintf("2nd run: from %s to %s", src, strings.Join(mv.Then, ", ")))
	if c.Then == nil {
		setText(r.state, runWaitFree)
		switch {
		case c.Done && c.EndState != verdict.Verified:
			setText(r.state, "Not started (the card is not free)")
		case c.Free && mv.Finished:
			setText(r.state, "Not started")
		case c.Free:
			setText(r.state, runQueued)
		}
		r.state.Importance = widget.MediumImportance
		r.bar.SetValue(0)
		r.details.Hide()
		r.stall.Hide()
		r.dests.set(nil, false, nil, false)
		r.failures.Hide()
	} else {
		h := c.Then.runState
		setText(r.state, h.runText())
		r.state.Importance = runImportance(h)
		r.bar.SetValue(h.Fraction())
		setRun(r.bytes, r.files, r.rate, r.current, h, true, mv.Paused)
		if !r.dests.detail {
			r.current.Hide()
		}
		setStall(r.stall, h)
		r.dests.set(h.Prog.Dests, h.Done, h.Prog.Stall, mv.Paused && !h.Done)
		if h.Done {
			r.details.Hide()
		} else {
			r.details.Show()
		}
		if len(h.Failures) > 0 {
			setText(r.failures, failureText(h.Failures, h.FailuresMore, h.failedFiles(), h.Done && h.EndState == verdict.Interrupted, "2nd run: "))
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
		setText(p.ejectL, "Ejecting "+c.Path+"...")
		p.ejectL.Importance = widget.MediumImportance
	case ejectDone:
		setText(p.ejectL, "Ejected: "+strings.TrimPrefix(c.EjectMsg, "ejected: "))
		p.ejectL.Importance = widget.SuccessImportance
	case ejectFailed:
		setText(p.ejectL, "NOT ejected: "+strings.TrimPrefix(c.EjectMsg, "not ejected: "))
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

// setMore shows or hides the tile's details: each destination's bytes
// written and read back, the file being copied.
func (p *cardPanel) setMore(on bool) {
	p.dests.detail = on
	p.second.dests.detail = on
	if on {
		p.more.SetText("Less")
	} else {
		p.more.SetText("Details")
	}
	p.dests.set(p.last.Prog.Dests, p.last.Done, p.last.Prog.Stall, false)
	if p.last.Then != nil {
		p.second.dests.set(p.last.Then.Prog.Dests, p.last.Then.Done, p.last.Then.Prog.Stall, false)
	}
}
