package ui

// Golden images of the running view (Fyne's software test renderer,
// testdata/running-*.png) in both themes: a job copying, a cascade's card
// free, every card safe, a failed job, and the same after a theme switch;
// and the contrast of every state colour measured on rendered pixels.
// After a deliberate change of the view, review the images written to
// testdata/failed/ and copy them over the masters.

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

const (
	gRaid    = "/Volumes/RAID"
	gShuttle = "/Volumes/SHUTTLE"
)

// gDests is a card's copies: the RAID fast, the shuttle lagging (failed:
// a file failed on the shuttle).
func gDests(size int64, f float64, failed bool) []offload.DestProgress {
	raid := offload.DestProgress{Dest: gRaid, State: offload.DestWriting, Bytes: size, BytesWritten: int64(f * float64(size)),
		VerifyTotal: size, BytesVerified: int64(0.8 * f * float64(size)), Rate: 0.52e9}
	sh := offload.DestProgress{Dest: gShuttle, State: offload.DestWriting, Bytes: size, BytesWritten: int64(0.6 * f * float64(size)),
		VerifyTotal: size, BytesVerified: int64(0.4 * f * float64(size)), Rate: 0.31e9}
	switch {
	case f >= 1:
		raid.State, raid.BytesWritten, raid.BytesVerified = offload.DestVerified, size, size
		sh.State, sh.BytesWritten, sh.BytesVerified = offload.DestVerified, size, size
		if failed {
			sh.State, sh.FilesFailed = offload.DestFailed, 1
		}
	case failed:
		sh.State, sh.FilesFailed = offload.DestFailed, 1
	}
	return []offload.DestProgress{raid, sh}
}

// gProg is a card's progress at fraction f of its copy (read back behind).
func gProg(label string, size int64, f float64, failed bool) offload.CardProgress {
	p := offload.CardProgress{Label: label, Phase: "copying", Files: 12, FilesDone: int(f * 12), Bytes: size,
		BytesCopied: int64(f * float64(size)),
		Current:     "CLIPS/" + label + "C007_261122_R1AB.mov", Rate: float64(size) / 8, ETA: gTimes(f), ETASeconds: gTimes(f).Safe, Dests: gDests(size, f, failed), ReadBack: live.ReadBack{VerifyTotal: 2 * size, BytesVerified: int64(1.2 * f * float64(size))}}
	if failed {
		p.FilesFailed = 1
	}
	if f >= 1 {
		p.Phase, p.FilesDone, p.BytesCopied, p.BytesVerified, p.Current = "done", 12, size, 2*size, ""
	}
	// The model's TB/hour: its bytes over the time they took at its rate.
	if p.BytesCopied > 0 {
		p.ActiveSeconds = float64(p.BytesCopied) / p.Rate
		p.TBPerHour = float64(p.BytesCopied) / p.ActiveSeconds * 3600 / 1e12
	}
	return p
}

// gTimes are the model's estimates of a card at fraction f of its copy.
func gTimes(f float64) live.Times {
	return live.Times{Copied: live.In((1 - f) * 80), CardFree: live.In((1-f)*80 + 6), Safe: live.In((1-f)*80 + 12)}
}

func gAt(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// gModel is two cards 40 s into their copy; A002 lost a file on the
// shuttle.
func gModel(cascade bool) *runModel {
	m := newRunModel(7, "day01", t0, offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Files: 12, Bytes: 4e9, ReadBack: live.ReadBack{VerifyTotal: 8e9}}, {Label: "A002", Files: 12, Bytes: 3e9, ReadBack: live.ReadBack{VerifyTotal: 6e9}}}},
		[]string{"/Volumes/A001", "/Volumes/A002"})
	if cascade {
		m.setCascade([]string{gRaid}, []string{gShuttle})
	}
	for s := 1; s <= 40; s++ {
		f := float64(s) / 80
		m.apply(offload.Event{Type: offload.EvProgress, Time: gAt(s), Progress: &offload.Progress{Job: gJob(gAt(s), 7e9/8, int64(f*7e9), (1-f)*80+12),
			Cards: []offload.CardProgress{gProg("A001", 4e9, f, false), gProg("A002", 3e9, f, s > 30)}}})
	}
	m.apply(offload.Event{Type: offload.EvFile, Card: "A002", Path: "CLIPS/A002C002_261122_R2CD.mov", State: offload.StateFailed,
		Copies: []offload.CopyState{{Dest: gShuttle, State: offload.StateFailed, Error: "verify: xxh64 mismatch: source 1f2e3d4c5b6a7988, read back 0a1b2c3d4e5f6071"}}})
	return m
}

// gEnd ends every card: A002 failed or not, the job's summary read.
func gEnd(m *runModel, failed bool) {
	ps := offload.Progress{Cards: []offload.CardProgress{gProg("A001", 4e9, 1, false), gProg("A002", 3e9, 1, failed)}}
	m.setCounters(ps, gAt(81))
	sum := &offload.Summary{JobFigures: offload.JobFigures{Files: 24, Bytes: 7e9, Seconds: 81, TBPerHour: 0.311}, JobID: 7, Name: "day01", Status: verdict.Safe, State: "done", Cards: []offload.CardSummary{
		{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified},
		{CardFigures: offload.CardFigures{Label: "A002", Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified}}}
	end := verdict.Verified
	if failed {
		end = verdict.Failed
		sum.Status, sum.State, sum.Failed = verdict.Failed, "failed", 1
		sum.Cards[1] = offload.CardSummary{CardFigures: offload.CardFigures{Label: "A002", Status: verdict.Failed, Failed: 1, Verdict: "FAILED: NOT safe to format"}, State: "failed", FirstRun: verdict.Failed, Failures: []offload.Failure{{Path: "CLIPS/A002C002_261122_R2CD.mov", Error: "on " + gShuttle + ": verify: xxh64 mismatch"}}}
	}
	m.apply(offload.Event{Type: offload.EvRunDone, Time: gAt(80), Card: "A001", State: verdict.Verified})
	m.apply(offload.Event{Type: offload.EvRunDone, Time: gAt(81), Card: "A002", State: end})
	m.applySummary(sum, true)
}

// goldenScene is the running view's model in one of the states drawn.
func goldenScene(name string) *jobRun {
	var m *runModel
	done := make(chan struct{})
	switch name {
	case "copying":
		m = gModel(false)
	case "free":
		// A cascade: A001 verified on the RAID (free), its second run to
		// the shuttle under way; A002 still copying.
		m = gModel(true)
		a1 := gProg("A001", 4e9, 1, false)
		a1.Dests = a1.Dests[:1]
		m.setCounters(offload.Progress{Cards: []offload.CardProgress{a1}}, gAt(41))
		m.apply(offload.Event{Type: offload.EvRunDone, Time: gAt(41), Card: "A001", State: offload.StateVerified})
		m.apply(offload.Event{Type: offload.EvCardFree, Time: gAt(41), Card: "A001", Path: "/Volumes/A001"})
		for s := 42; s <= 52; s++ {
			h := gProg("A001", 4e9, float64(s-41)/40, false)
			h.Hop, h.Dests = 2, h.Dests[1:]
			m.apply(offload.Event{Type: offload.EvProgress, Time: gAt(s), Progress: &offload.Progress{Job: gJob(gAt(s), 7e9/8, 4e9+int64(float64(s)/80*3e9), (1-float64(s)/80)*80+12),
				Cards: []offload.CardProgress{h, gProg("A002", 3e9, float64(s)/80, true)}}})
		}
	case "safe":
		m = gModel(false)
		gEnd(m, false)
		close(done)
	case "failed":
		m = gModel(false)
		gEnd(m, true)
		close(done)
	}
	run := &jobRun{cancel: func() {}, done: done, pause: newPauser(nil)}
	run.setModel(m)
	return run
}

// showScene draws scene in the running view at 1280x720 in theme mode.
// The view is drawn once in the theme it was built in first, as the app
// does at launch (cmd/dit-gui sets the theme after New): Fyne's test
// driver otherwise keeps a select's arrow in the first theme's colour if
// the select is first drawn after the switch.
func showScene(h *harness, scene, mode string) {
	h.locked(func() {
		h.a.win.Resize(fyne.NewSize(1280, 720))
		h.a.running.bind(goldenScene(scene))
		h.a.selectTab(h.a.running.content)
		h.a.win.Canvas().Capture()
		h.a.SetTheme(mode)
	})
}

// skipRendersUnderRace leaves a rendering test (pixels or markup) to
// make test's first stage: it draws and compares on one goroutine
// (nothing for the race detector to find) and a race build renders about
// ten times slower.
func skipRendersUnderRace(t *testing.T) {
	if raceDetector {
		t.Skip("rendering on one goroutine: run by make test's first stage, not under the race detector")
	}
}

func TestGoldenRunningImages(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	for _, scene := range []string{"copying", "free", "safe", "failed"} {
		for _, mode := range []string{ThemeLight, ThemeDark} {
			t.Run(scene+"-"+mode, func(t *testing.T) {
				h := newHarness(t, nil)
				showScene(h, scene, mode)
				h.locked(func() { test.AssertImageMatches(t, goldenName(scene, mode), h.a.win.Canvas().Capture()) })
			})
		}
	}
}

func goldenName(scene, mode string) string {
	v := "light"
	if mode == ThemeDark {
		v = "dark"
	}
	return "running-" + scene + "-" + v + ".png"
}

// After a theme switch (dark to light, light to dark) the view is drawn
// exactly as one started in the new theme: the same image, pixel for
// pixel (no colour of the old theme kept anywhere).
func TestGoldenRunningAfterThemeSwitch(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	for _, sw := range [][2]string{{ThemeDark, ThemeLight}, {ThemeLight, ThemeDark}} {
		for _, scene := range []string{"failed", "copying"} {
			t.Run(scene+"-"+sw[0]+"-to-"+sw[1], func(t *testing.T) {
				h := newHarness(t, nil)
				showScene(h, scene, sw[0])
				h.locked(func() {
					h.a.SetTheme(sw[1])
					test.AssertImageMatches(t, goldenName(scene, sw[1]), h.a.win.Canvas().Capture())
				})
			})
		}
	}
}

// inkOn returns, of the pixels of img inside r, the most frequent colour
// (the background the text is drawn on) and the one that differs most
// from it (the text's own colour: a glyph's fully covered pixels).
func inkOn(img image.Image, r image.Rectangle) (ink, bg color.NRGBA) {
	count := map[color.NRGBA]int{}
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	best := -1
	for c, n := range count {
		if n > best {
			best, bg = n, c
		}
	}
	far := -1.0
	for c := range count {
		if d := contrast(c, bg); d > far {
			far, ink = d, c
		}
	}
	return ink, bg
}

// pixelsIn is the rectangle the first text s drawn on canvas c covers in
// its image (scale 1).
func pixelsIn(c fyne.Canvas, s string) image.Rectangle {
	root := c.Content()
	var o fyne.CanvasObject
	var find func(fyne.CanvasObject, fyne.Position) (fyne.Position, bool)
	find = func(x fyne.CanvasObject, at fyne.Position) (fyne.Position, bool) {
		if t, ok := x.(*canvas.Text); ok && t.Text == s {

			o = t
			return at, true
		}
		var kids []fyne.CanvasObject
		switch w := x.(type) {
		case fyne.Widget:
			kids = test.WidgetRenderer(w).Objects()
		case *fyne.Container:
			kids = w.Objects
		}
		for _, k := range kids {
			if p, ok := find(k, at.Add(k.Position())); ok {
				return p, true
			}
		}
		return at, false
	}
	p, ok := find(root, root.Position())
	if !ok {
		panic("not inside")
	}
	z := o.Size()
	return image.Rect(int(p.X), int(p.Y), int(p.X+z.Width), int(p.Y+z.Height))
}

// labelPixels is the rectangle label l's first line of text covers in
// the image of canvas c (scale 1): a wrapped label's first line, a
// truncated one's text as drawn.
func labelPixels(c fyne.Canvas, l *widget.Label) image.Rectangle {
	var r image.Rectangle
	var find func(x fyne.CanvasObject, at fyne.Position, in bool) bool
	find = func(x fyne.CanvasObject, at fyne.Position, in bool) bool {
		in = in || x == l
		if t, ok := x.(*canvas.Text); ok && in && strings.TrimSpace(t.Text) != "" && x.Visible() {
			z := t.Size()
			r = image.Rect(int(at.X), int(at.Y), int(at.X+z.Width), int(at.Y+z.Height))
			return true
		}
		var kids []fyne.CanvasObject
		switch w := x.(type) {
		case fyne.Widget:
			kids = test.WidgetRenderer(w).Objects()
		case *fyne.Container:
			kids = w.Objects
		}
		for _, k := range kids {
			if find(k, at.Add(k.Position()), in) {
				return true
			}
		}
		return false
	}
	if !find(c.Content(), c.Content().Position(), false) {
		panic("no text drawn in " + l.Text)
	}
	return r
}

// near: two colours equal but for rounding.
func near(a color.Color, b color.NRGBA) bool {
	x := color.NRGBAModel.Convert(a).(color.NRGBA)
	d := func(p, q uint8) int { return max(int(p)-int(q), int(q)-int(p)) }
	return d(x.R, b.R) <= 2 && d(x.G, b.G) <= 2 && d(x.B, b.B) <= 2
}

// Every colour a state is written in (safe, warning, failed, card free,
// the grey hints, plain text) reads at 4.5:1 or more on its background,
// measured on the rendered pixels, in the light and the dark theme: on a
// sheet of every kind of label, and on the running view's own verdicts.
func TestStateColoursContrastRendered(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	for _, mode := range []string{ThemeLight, ThemeDark} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, nil)
			h.locked(func() { h.a.SetTheme(mode) })
			th := NewTheme(mode)
			v := fyne.CurrentApp().Settings().ThemeVariant()
			type probe struct {
				name string
				o    fyne.CanvasObject
				want fyne.ThemeColorName
			}
			var probes []probe
			sheet := container.NewVBox()
			for _, k := range []struct {
				imp  widget.Importance
				want fyne.ThemeColorName
			}{{widget.SuccessImportance, theme.ColorNameSuccess}, {widget.WarningImportance, theme.ColorNameWarning},
				{widget.DangerImportance, theme.ColorNameError}, {widget.HighImportance, theme.ColorNamePrimary},
				{widget.LowImportance, theme.ColorNameDisabled}, {widget.MediumImportance, theme.ColorNameForeground}} {
				l := widget.NewLabelWithStyle("Safe to format WMWMWM "+string(k.want), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
				l.Importance = k.imp
				sheet.Add(l)
				probes = append(probes, probe{string(k.want), l, k.want})
			}
			e := widget.NewEntry()
			e.SetPlaceHolder("a hint WMWMWM")
			sheet.Add(e)
			btn := widget.NewButton("Start WMWMWM", func() {})
			btn.Importance = widget.HighImportance
			cancel := widget.NewButton("Cancel WMWMWM", func() {})
			cancel.Importance = widget.DangerImportance // the running job's Cancel
			sheet.Add(container.NewHBox(btn, cancel))
			list := widget.NewList(func() int { return 1 }, func() fyne.CanvasObject {
				l := widget.NewLabel("FAILED job WMWMWM")
				l.Importance = widget.DangerImportance
				return l
			}, func(widget.ListItemID, fyne.CanvasObject) {})
			list.Select(0)
			sheet.Add(container.NewGridWrap(fyne.NewSize(400, 44), list))
			w := test.NewTempWindow(t, sheet)
			w.Resize(fyne.NewSize(600, 400))
			img := w.Canvas().Capture()
			// Every pair measured is listed (go test -v) and checked.
			pair := func(name string, ink, bg color.NRGBA) {
				t.Logf("%-5s %-44s %s on %s: %5.2f:1", mode, name, hexOf(ink), hexOf(bg), contrast(ink, bg))
				require.GreaterOrEqual(t, contrast(ink, bg), 4.5, "%s %s: %v on %v is %.2f:1", mode, name, ink, bg, contrast(ink, bg))
			}
			measure := func(name string, img image.Image, o fyne.CanvasObject, want fyne.ThemeColorName) {
				ink, bg := inkOn(img, pixelsIn(w.Canvas(), o.(*widget.Label).Text))
				require.True(t, near(th.Color(want, v), ink), "%s %s: drawn in %v, the theme's %s is %v", mode, name, ink, want, th.Color(want, v))
				pair(name+" label", ink, bg)
			}
			for _, p := range probes {
				measure(p.name, img, p.o, p.want)
			}
			// The entry's hint: inside the entry's own field colour.
			ink, bg := inkOn(img, pixelsIn(w.Canvas(), "a hint WMWMWM"))
			require.True(t, near(th.Color(theme.ColorNamePlaceHolder, v), ink), "%s hint drawn in %v", mode, ink)
			pair("an entry's hint", ink, bg)
			// A high-importance button's text, on the primary colour.
			ink, bg = inkOn(img, pixelsIn(w.Canvas(), "Start WMWMWM"))
			require.True(t, near(th.Color(theme.ColorNameForegroundOnPrimary, v), ink), "%s button text drawn in %v", mode, ink)
			require.True(t, near(th.Color(theme.ColorNamePrimary, v), bg), "%s button drawn in %v", mode, bg)
			pair("a high-importance button's text", ink, bg)
			ink, bg = inkOn(img, pixelsIn(w.Canvas(), "Cancel WMWMWM"))
			require.True(t, near(th.Color(theme.ColorNameError, v), bg), "%s danger button drawn in %v", mode, bg)
			pair("a danger button's text (Cancel job)", ink, bg)
			// A selected row of a list (History's) with a failed job's
			// red text on the selection colour.
			ink, bg = inkOn(img, pixelsIn(w.Canvas(), "FAILED job WMWMWM"))
			require.True(t, near(th.Color(theme.ColorNameError, v), ink), "%s selected row drawn in %v", mode, ink)
			pair("a failed job's row, selected", ink, bg)

			// The running view's verdicts: a failed job (FAILED, the
			// card's failed state, its destination's) and a safe card, in
			// a window tall enough to show every card.
			showScene(h, "failed", mode)
			h.locked(func() {
				h.a.win.Resize(fyne.NewSize(1280, 1600))
				img := h.a.win.Canvas().Capture()
				for _, k := range []struct {
					text string
					want fyne.ThemeColorName
				}{{"FAILED", theme.ColorNameError}, {stateSafe, theme.ColorNameSuccess}, {stateFailed, theme.ColorNameError},
					{"Verified", theme.ColorNameSuccess}, {"FAILED (1 file)", theme.ColorNameError}} {
					ink, bg := inkOn(img, pixelsIn(h.a.win.Canvas(), k.text))
					require.True(t, near(th.Color(k.want, v), ink), "%s %q: drawn in %v, the theme's %s is %v", mode, k.text, ink, k.want, th.Color(k.want, v))
					pair("running view: "+k.text, ink, bg)
				}
				// No text on a card's bar (its figures are beside it, in
				// the text's colours): the bar draws none.
				for _, p := range h.a.running.panels {
					require.Empty(t, p.bar.TextFormatter())
				}
				// The banner: a card's failure, red on its tint.
				h.a.banner.addCard(7, "A002", "failed", "card A002 FAILED: NOT safe to format WMWMWM")
				h.a.win.Resize(fyne.NewSize(1280, 1500)) // laid out with the banner
				h.a.win.Content().Refresh()
				img = h.a.win.Canvas().Capture()
				ink, bg := inkOn(img, pixelsIn(h.a.win.Canvas(), h.a.banner.label.Text))
				pair("the banner's text", ink, bg)
			})
			// The tiles of 8 cards: every state's big verdict, and every
			// text colour of a tile.
			// The job's header too: its big figures, their captions and
			// the stalled card's line.
			showTiles(h, 8, mode)
			h.locked(func() {
				img := h.a.win.Canvas().Capture()
				v := h.a.running
				for _, o := range []*canvas.Text{v.rateBig, v.tbBig, v.etaBig} {
					ink, bg := inkOn(img, pixelsIn(h.a.win.Canvas(), o.Text))
					pair("header: "+o.Text, ink, bg)
				}
				seen := map[string]bool{}
				ls := []*widget.Label{v.title, v.rateCap, v.tbCap, v.etaCap, v.stallL}
				for _, p := range v.panels {
					ls = append(ls, p.state, p.title, p.bytes, p.files, p.rate, p.stall, p.failShort)
					for _, r := range p.dests.rows {
						ls = append(ls, r.name, r.rate, r.state)
					}
				}
				for _, l := range ls {
					if !l.Visible() || l.Text == "" || seen[l.Text] {
						continue
					}
					seen[l.Text] = true
					name := "tile: "
					if l == v.title || l == v.rateCap || l == v.tbCap || l == v.etaCap || l == v.stallL {
						name = "header: "
					}
					ink, bg := inkOn(img, labelPixels(h.a.win.Canvas(), l))
					pair(name+firstLine(l.Text), ink, bg)
				}
			})
		})
	}
}

// hexOf is a colour as #rrggbb.
func hexOf(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// raceCoveredElsewhere leaves a GUI test to make test's first stage when
// the race detector runs: its goroutines are those of a job, an array
// operation, a speed test or the form, which the race stage already
// drives through TestPauseResumeCancelAndResumeFromHistory,
// TestAddCardWhileTheJobRuns, TestCascadeJobShowsCardFreeThenSafeToFormat,
// TestStallIsSaid, TestBannerOnACardFailure,
// TestArraysTabListsArraysAndScrubsByTypedPath (the arrays found, an
// array opened, scrubbed and a blade rebuilt), TestSpeedTestOfArray,
// TestSpeedTestCancel and the auto-offload and notification tests (and
// the engine through its own packages' race tests); under -race each GUI
// job runs five to ten times slower.
func raceCoveredElsewhere(t *testing.T) {
	if raceDetector {
		t.Skip("a GUI job whose goroutines the race stage drives through other tests: run by make test's first stage")
	}
}

// viewLogicOnly leaves to make test's first stage, when the race
// detector runs, a test of what a view or the form says and does, driven
// from the test goroutine under the UI lock: the only other goroutines
// are those every GUI test starts (the History's first read, the form's
// refresh, a card's scan, the destinations looked at), which the tests
// the race stage keeps drive too. Under -race it would pay the
// detector's cost on Fyne's layout (about ten times slower) with no
// concurrency of its own to find.
func viewLogicOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("view and form logic on the test goroutine (no concurrency of its own): run by make test's first stage")
	}
}
