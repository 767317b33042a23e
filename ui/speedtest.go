package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/speedchart"
)

// speedTarget is what a Speed test action measures: a card (read only:
// nothing on it is written), a destination folder (written, read back,
// its test files removed) or a dit array (each blade, then the whole
// array), as dit speedtest does (speedtest.Run).
type speedTarget struct {
	Path     string
	What     string // "card A001", "destination /Volumes/SHUTTLE", "array \"set-raid\""
	ReadOnly bool
	Array    bool // a blade of a dit array: its blades, then the whole array
	// Parts name the test's parts in order, each a write then a read
	// (an array: each blade, then the whole array); nil: one part.
	Parts []string
}

// arrayTarget is the speed test of the array st (its blades, then the
// whole array, as speedtest.RunArray tests them).
func arrayTarget(dir string, st *arrayStatus) speedTarget {
	t := speedTarget{Path: dir, What: fmt.Sprintf("array %q", st.Label), Array: true}
	for i := range st.Members {
		t.Parts = append(t.Parts, fmt.Sprintf("Blade %d of %d", i+1, len(st.Members)))
	}
	t.Parts = append(t.Parts, "The whole array")
	return t
}

// speedSizeDefault is the size choice that lets internal/speedtest pick:
// more than the memory and the media's likely caches.
const speedSizeDefault = "Default"

// speedSizes are the sizes offered besides the default.
var speedSizes = []string{"1 GB", "4 GB", "16 GB", "64 GB"}

// speedChartSize is the chart's size as drawn (points at 144 dpi: 1008 x
// 504 pixels) and as shown.
var (
	speedChartW, speedChartH = 7 * vg.Inch, 3.5 * vg.Inch
	speedChartShown          = fyne.NewSize(700, 350)
)

// speedTest is one speed test in its dialog: the size, Start, the
// progress with Cancel, then each result with its curves as a chart, the
// cliff if one was found and where the result is kept.
type speedTest struct {
	a *App
	t speedTarget

	dlg      dialog.Dialog
	sizeSel  *widget.Select
	startBtn *widget.Button
	stopBtn  *widget.Button
	status   *widget.Label
	bar      *widget.ProgressBar
	results  *fyne.Container
	body     *fyne.Container

	cancel  context.CancelFunc
	running bool
	// done is closed once a started test has ended and its results (or
	// its error) are shown.
	done chan struct{}
	// rs and kept are the test's results and what the catalog kept.
	rs   []*speedtest.Result
	kept []speedtest.Kept
	err  error
	// charts are the PNGs shown, one per result.
	charts [][]byte
	// catPath names the catalog the results are kept in.
	catPath string
}

// speedTestOf opens the Speed test dialog of t (UI goroutine).
func (a *App) speedTestOf(t speedTarget) *speedTest {
	if a.speed != nil && a.speed.running {
		a.speed.dlg.Show() // one test at a time: they would measure each other
		return a.speed
	}
	st := &speedTest{a: a, t: t, done: make(chan struct{}), catPath: a.cfg.Catalog.Path()}
	intro := "Writes test files into the folder, reads them back past the cache and removes them."
	switch {
	case t.ReadOnly:
		intro = "Reads the card's own files past the cache, the largest first. Nothing on the card is written."
	case t.Array:
		intro = "Tests each blade as a folder, then the whole array through its own writer and checked reader; the test files are removed."
	}
	intro += " The default size is more than this machine's memory and the media's likely caches (16 GB a drive), so the sustained rate is what is seen; a smaller one is quicker."
	introL := widget.NewLabel(intro)
	introL.Wrapping = fyne.TextWrapWord
	st.sizeSel = widget.NewSelect(append([]string{speedSizeDefault}, speedSizes...), nil)
	st.sizeSel.SetSelected(speedSizeDefault)
	st.startBtn = widget.NewButtonWithIcon("Start", theme.MediaPlayIcon(), st.start)
	st.startBtn.Importance = widget.HighImportance
	st.stopBtn = widget.NewButtonWithIcon("Cancel test", theme.CancelIcon(), st.stop)
	st.stopBtn.Disable()
	st.status = widget.NewLabel("")
	st.status.Wrapping = fyne.TextWrapWord
	st.bar = widget.NewProgressBar()
	st.bar.Hide()
	st.results = container.NewVBox()
	path := widget.NewLabel(t.Path)
	path.Truncation = fyne.TextTruncateEllipsis
	st.body = container.NewVBox(path, introL,
		container.NewHBox(widget.NewLabel("Bytes moved"), st.sizeSel, st.startBtn, st.stopBtn),
		st.status, st.bar, st.results)
	scroll := container.NewVScroll(st.body)
	scroll.SetMinSize(fyne.NewSize(900, 640))
	st.dlg = dialog.NewCustom("Speed test of the "+t.What, "Close", scroll, a.win)
	st.dlg.SetOnClosed(func() { st.stop() })
	a.speed = st
	st.dlg.Show()
	return st
}

// speedButton is a row's Speed test action.
func (a *App) speedButton(t func() speedTarget) *widget.Button {
	return widget.NewButtonWithIcon("Speed test", theme.MediaFastForwardIcon(), func() { a.speedTestOf(t()) })
}

// size is the chosen test size (0: speedtest's default).
func (st *speedTest) size() (int64, error) {
	if st.sizeSel.Selected == speedSizeDefault || st.sizeSel.Selected == "" {
		return 0, nil
	}
	n, err := units.ParseBytes(st.sizeSel.Selected)
	if err != nil {
		return 0, fmt.Errorf("test size %q: %w", st.sizeSel.Selected, err)
	}
	return n, nil
}

// start runs the test in the background (UI goroutine).
func (st *speedTest) start() {
	if st.running {
		return
	}
	if st.a.running.active() {
		st.status.SetText("A job is running: a speed test now would slow it down and measure less than the drive sustains. Start it once the job has ended.")
		return
	}
	size, err := st.size()
	if err != nil {
		st.status.SetText(err.Error())
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.cancel, st.running = cancel, true
	st.startBtn.Disable()
	st.sizeSel.Disable()
	st.stopBtn.Enable()
	st.results.RemoveAll()
	st.status.SetText("Starting...")
	st.bar.SetValue(0)
	st.bar.Show()
	o := speedtest.Options{Size: size, Progress: st.progressFunc()}
	a := st.a
	a.goBG(func() {
		rs, err := speedtest.Run(ctx, st.t.Path, st.t.ReadOnly, o, speedtest.Memory())
		var kept []speedtest.Kept
		if len(rs) > 0 {
			vols, _ := a.cfg.Discover(ctx)
			kept = speedtest.Keep(a.cfg.Catalog, rs, vols)
		}
		charts := make([][]byte, len(rs))
		for i, r := range rs {
			charts[i], _ = speedChartPNG(r)
		}
		a.do(func() {
			st.running = false
			cancel()
			st.rs, st.kept, st.err, st.charts = rs, kept, err, charts
			st.finish()
			close(st.done)
		})
	})
}

// stop cancels a running test: its files are removed (UI goroutine).
func (st *speedTest) stop() {
	if st.running && st.cancel != nil {
		st.cancel()
		st.status.SetText("Stopping: removing the test files...")
	}
}

// progressFunc updates the bar at each whole percent of a phase (called
// from the test's I/O goroutines).
func (st *speedTest) progressFunc() func(phase string, done, total int64) {
	var mu sync.Mutex
	last, lastPhase, part := -1, "", 0
	return func(phase string, done, total int64) {
		if total <= 0 {
			return
		}
		pct := int(100 * done / total)
		mu.Lock()
		if pct == last && phase == lastPhase {
			mu.Unlock()
			return
		}
		if phase == "write" && lastPhase == "read" {
			part++ // the next part starts with its write
		}
		last, lastPhase = pct, phase
		p := part
		mu.Unlock()
		verb := map[string]string{"write": "Writing", "read": "Reading past the cache"}[phase]
		if verb == "" {
			verb = phase
		}
		txt := fmt.Sprintf("%s: %s of %s", verb, units.FormatBytes(done), units.FormatBytes(total))
		if parts := st.t.Parts; len(parts) > 1 && p < len(parts) {
			txt = parts[p] + ", " + strings.ToLower(txt[:1]) + txt[1:]
		}
		st.a.do(func() {
			if !st.running {
				return
			}
			st.bar.SetValue(float64(done) / float64(total))
			st.status.SetText(txt)
		})
	}
}

// finish shows the results, or why there are none (UI goroutine).
func (st *speedTest) finish() {
	st.bar.Hide()
	st.stopBtn.Disable()
	st.startBtn.Enable()
	st.sizeSel.Enable()
	st.status.Importance = widget.MediumImportance
	switch {
	case errors.Is(st.err, speedtest.ErrCanceled):
		st.status.SetText("Speed test stopped: its test files were removed. Nothing was recorded.")
	case st.err != nil:
		st.status.SetText("Speed test failed: " + st.err.Error())
		st.status.Importance = widget.DangerImportance
	default:
		st.status.SetText(fmt.Sprintf("Speed test finished (%s).", plural(len(st.rs), "result")))
	}
	st.status.Refresh()
	for i, r := range st.rs {
		st.results.Add(st.resultBox(i, r))
	}
}

// resultBox is one result: what was tested, each phase's rate, the cliff
// if one was found, how the cache was kept out, the chart and where the
// result is kept.
func (st *speedTest) resultBox(i int, r *speedtest.Result) fyne.CanvasObject {
	name := r.Path
	if r.Label != "" {
		name = r.Label
	}
	box := container.NewVBox(widget.NewSeparator(), widget.NewLabelWithStyle(fmt.Sprintf("%s (%s): %s in %s I/Os, %s",
		name, r.Kind, units.FormatBytes(r.Size), units.FormatBytes(int64(r.Block)), plural(r.Streams, "stream")),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	for _, line := range speedLines(r) {
		l := widget.NewLabel(line.text)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = line.imp
		box.Add(l)
	}
	if i < len(st.charts) && len(st.charts[i]) > 0 {
		img := canvas.NewImageFromReader(bytes.NewReader(st.charts[i]), fmt.Sprintf("speedtest-%d.png", i+1))
		img.FillMode = canvas.ImageFillContain
		img.ScaleMode = canvas.ImageScaleSmooth
		img.SetMinSize(speedChartShown)
		png := st.charts[i]
		save := widget.NewButtonWithIcon("Save chart...", theme.DocumentSaveIcon(), func() {
			st.a.cfg.SaveFile(chartName(r), func(w io.WriteCloser, path string) { st.saveChart(w, path, png) })
		})
		box.Add(img)
		defer box.Add(container.NewHBox(save))
	}
	kept := widget.NewLabel(st.keptText(r))
	kept.Wrapping = fyne.TextWrapWord
	box.Add(kept)
	return box
}

type speedLine struct {
	text string
	imp  widget.Importance
}

// speedLines are a result's phases in words: rate, bytes and time, how
// the cache was kept out, the cliff (where a cache ran out) if one was
// found; then its notes.
func speedLines(r *speedtest.Result) []speedLine {
	var out []speedLine
	for _, ph := range []*speedtest.Phase{r.Write, r.Read} {
		if ph == nil {
			continue
		}
		what := map[string]string{"write": "Write", "read": "Read"}[ph.Name]
		cliff := "no cliff: the rate held"
		if ph.Cliff != nil {
			cliff = "a cliff (below)"
		}
		out = append(out, speedLine{fmt.Sprintf("%s: %s (%s in %.1f s, %s; %s)", what, units.FormatRate(ph.Rate), units.FormatBytes(ph.Bytes),
			ph.Seconds, ph.Cache, cliff), widget.MediumImportance})
		if c := ph.Cliff; c != nil {
			out = append(out, speedLine{fmt.Sprintf("%s cliff: the rate fell after %s, from %s to %s (a cache ran out).",
				what, units.FormatBytes(c.At), units.FormatRate(c.Before), units.FormatRate(c.After)), widget.WarningImportance})
		}
	}
	for _, n := range r.Notes {
		out = append(out, speedLine{"Note: " + n, widget.MediumImportance})
	}
	return out
}

// keptText says where r is kept: the catalog, under which volume, for
// the plan and the offloads.
func (st *speedTest) keptText(r *speedtest.Result) string {
	for _, k := range st.kept {
		if k.Result != r {
			continue
		}
		if k.Err != nil {
			return "Not recorded: " + k.Err.Error()
		}
		return fmt.Sprintf("Recorded in the catalog %s as speed test %d of %s (%s), station %s: the plan and the offloads use it in place of the table rates.",
			st.catPath, k.Row.ID, r.Volume, r.VolumeHow, k.Row.Station)
	}
	return "Not recorded: the test did not finish."
}

// speedChartPNG draws r's curves (reports/speedchart, as dit speedtest
// --chart).
func speedChartPNG(r *speedtest.Result) ([]byte, error) {
	return speedchart.PNG(r, speedChartW, speedChartH)
}

// chartName is the file name offered for a result's chart.
func chartName(r *speedtest.Result) string {
	base := filepath.Base(r.Path)
	if r.Label != "" {
		base = r.Label
	}
	base = strings.NewReplacer("/", "-", " ", "-", "\"", "").Replace(base)
	return fmt.Sprintf("speedtest-%s-%s.png", base, r.Started.Format("20060102-150405"))
}

// saveChart writes a chart where the person chose.
func (st *speedTest) saveChart(w io.WriteCloser, path string, png []byte) {
	_, err := w.Write(png)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		st.a.showError(fmt.Errorf("writing the chart %s: %w", path, err))
		return
	}
	st.status.SetText("Chart saved: " + path)
}
