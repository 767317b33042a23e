package ui

// The running view at a glance: every card of a job of up to 8 cards
// visible at 1280x800 (a laptop's screen), a big verdict or phase per
// card, failed and stalled cards first; golden images of 1, 2, 4 and 8
// cards in both themes (testdata/tiles-N-THEME.png).

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// tileKind is what a card of a tiles scene is doing.
type tileKind int

const (
	tileCopying tileKind = iota
	tileFailed
	tileStalled
	tileDone
)

// tileKinds are the cards of an n-card scene: copying, then (with two
// cards and more) one failed, (four and more) one stalled and one safe to
// format, the rest copying or done; above 8, the failed and the stalled
// card are the job's last two.
func tileKinds(n int) []tileKind {
	all := []tileKind{tileCopying, tileFailed, tileStalled, tileDone, tileCopying, tileDone, tileCopying, tileDone}
	switch {
	case n == 2:
		return []tileKind{tileCopying, tileFailed}
	case n > len(all):
		var ks []tileKind
		for i := range n - 2 {
			ks = append(ks, []tileKind{tileCopying, tileDone}[i%2])
		}
		return append(ks, tileFailed, tileStalled)
	}
	return all[:n]
}

// tilesModel is an n-card job 40 s into its copy, each card as tileKinds
// says.
func tilesModel(n int) *runModel {
	kinds := tileKinds(n)
	var start []offload.CardProgress
	var paths []string
	size := func(i int) int64 { return int64(2+i%3) * 1e9 }
	var total int64
	for i := range kinds {
		l := fmt.Sprintf("A%03d", i+1)
		start = append(start, offload.CardProgress{Label: l, Files: 12, Bytes: size(i), ReadBack: live.ReadBack{VerifyTotal: 2 * size(i)}})
		paths = append(paths, "/Volumes/"+l)
		total += size(i)
	}
	m := newRunModel(7, "day01", t0, offload.Progress{Cards: start}, paths)
	prog := func(s int) *offload.Progress {
		p := &offload.Progress{}
		var read int64
		stalled := 0
		for i, k := range kinds {
			l := fmt.Sprintf("A%03d", i+1)
			f := float64(s) / 80 * (1 + 0.15*float64(i%3))
			switch k {
			case tileDone:
				f = min(1, float64(s)/30)
			case tileStalled:
				f = min(f, 0.3)
			}
			c := gProg(l, size(i), min(f, 1), k == tileFailed && s > 30)
			if k == tileStalled && s > 24 {
				c.Rate, c.Dests[0].Rate, c.Dests[1].Rate = 0, 0, 0
				c.Stall = &live.Stall{Since: gAt(24), Seconds: float64(s - 24), Where: gShuttle, Cause: "write: input/output error", Retry: 3, Retries: 10}
				c.Dests[1].Stall = c.Stall // the shuttle is where it stalled
				// Its TB/hour so far counts the time it stands still.
				c.ActiveSeconds = float64(s)
				c.TBPerHour = float64(c.BytesCopied) / c.ActiveSeconds * 3600 / 1e12
				c.ETA, c.ETASeconds = live.Times{}, live.Estimate{}
				stalled++
			}
			read += c.BytesCopied
			p.Cards = append(p.Cards, c)
		}
		p.Job = gJob(gAt(s), float64(total)/8, read, 92-float64(s))
		p.Job.Bytes, p.Job.Cards, p.Job.Stalled = total, n, stalled
		if stalled > 0 {
			p.Job.ETA = live.Times{}
		}
		return p
	}
	for s := 1; s <= 40; s++ {
		m.apply(offload.Event{Type: offload.EvProgress, Time: gAt(s), Progress: prog(s)})
	}
	for i, k := range kinds {
		l := fmt.Sprintf("A%03d", i+1)
		switch k {
		case tileFailed:
			m.apply(offload.Event{Type: offload.EvFile, Card: l, Path: "CLIPS/" + l + "C002_261122_R2CD.mov", State: offload.StateFailed,
				Copies: []offload.CopyState{{Dest: gShuttle, State: offload.StateFailed, Error: "verify: xxh64 mismatch: source 1f2e3d4c5b6a7988, read back 0a1b2c3d4e5f6071"}}})
		case tileDone:
			m.apply(offload.Event{Type: offload.EvRunDone, Time: gAt(30), Card: l, State: verdict.Verified})
			m.apply(offload.Event{Type: offload.EvCardDone, Time: gAt(31), Card: l, State: verdict.Safe, Message: "Verified: safe to format",
				Summary: &offload.CardSummary{CardFigures: offload.CardFigures{Label: l, Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified}})
		}
	}
	return m
}

// showTiles draws an n-card scene in the running view at 1280x800 in
// theme mode (first drawn in the theme it was built in, as showScene).
func showTiles(h *harness, n int, mode string) {
	h.locked(func() {
		h.a.win.Resize(fyne.NewSize(1280, 800))
		run := &jobRun{cancel: func() {}, done: make(chan struct{}), pause: newPauser(nil)}
		run.setModel(tilesModel(n))
		h.a.running.bind(run)
		h.a.selectTab(h.a.running.content)
		h.a.win.Canvas().Capture()
		h.a.SetTheme(mode)
	})
}

var writeTiles = flag.Bool("tiles", false, "write the tiles' golden images (testdata/tiles-*.png) and docs/gui-tiles-4-*.png")

// tileName is the golden image of n cards in theme mode.
func tileName(n int, mode string) string {
	v := "light"
	if mode == ThemeDark {
		v = "dark"
	}
	return fmt.Sprintf("tiles-%d-%s.png", n, v)
}

// Every card of a job of 1, 2, 4 and 8 cards shows at 1280x800 without
// scrolling, failed and stalled cards first, each with its verdict or
// phase at 24 px or more; the view is drawn as the golden images are
// (testdata/tiles-*.png, compared with a tolerance: a few pixels of
// anti-aliasing may differ between font rasterisers). docs/gui-tiles-4-*.png
// are the 4-card images. `go test -run TestGoldenTiles ./ui/ -args
// -tiles` writes them all.
func TestGoldenTiles(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	for _, n := range []int{1, 2, 4, 8} {
		for _, mode := range []string{ThemeLight, ThemeDark} {
			t.Run(fmt.Sprint(n, "-", mode), func(t *testing.T) {
				h := newHarness(t, nil)
				showTiles(h, n, mode)
				var img image.Image
				h.locked(func() {
					v := h.a.running
					require.Len(t, v.panels, n)
					require.False(t, v.chartOn, "the chart is off below 900 px")
					// Every tile inside the scroll's view: nothing to scroll.
					vis := v.scroll.Size()
					require.LessOrEqual(t, v.scroll.Content.MinSize().Height, vis.Height, "%d cards fit without scrolling", n)
					for _, p := range v.panels {
						pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.tile)
						top := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.scroll)
						require.GreaterOrEqual(t, pos.Y, top.Y)
						require.LessOrEqual(t, pos.Y+p.tile.Size().Height, top.Y+vis.Height+0.5, "%s inside the view", p.title.Text)
						require.GreaterOrEqual(t, p.state.Theme().Size(p.state.SizeName), float32(24), "%s's verdict at 24 px or more", p.title.Text)
					}
					// Failed first, stalled next, then the job's order.
					want := map[int][]string{1: {"A001"}, 2: {"A002", "A001"}, 4: {"A002", "A003", "A001", "A004"},
						8: {"A002", "A003", "A001", "A004", "A005", "A006", "A007", "A008"}}[n]
					var got []string
					for _, o := range v.tiles {
						for _, p := range v.panels {
							if p.tile == o {
								got = append(got, p.title.Text)
							}
						}
					}
					require.Equal(t, want, got)
					img = h.a.win.Canvas().Capture()
				})
				matchGolden(t, filepath.Join("testdata", tileName(n, mode)), img)
				if n == 4 {
					docs := filepath.Join("..", "docs", "gui-"+tileName(n, mode))
					if *writeTiles {
						b, err := os.ReadFile(filepath.Join("testdata", tileName(n, mode)))
						require.NoError(t, err)
						require.NoError(t, os.WriteFile(docs, b, 0o644))
					}
					a, err := os.ReadFile(docs)
					require.NoError(t, err, "-args -tiles writes it")
					b, err := os.ReadFile(filepath.Join("testdata", tileName(n, mode)))
					require.NoError(t, err)
					require.True(t, bytes.Equal(a, b), "%s is the golden image", docs)
				}
			})
		}
	}
}

// Above 8 cards the tiles scroll, and the failed and stalled cards come
// first: at 1280x800 a 12-card job whose failed and stalled cards are
// its last two shows those two at the top of the view, unscrolled, and
// the rest below, reached by scrolling.
func TestTilesAboveEightScrollFailedAndStalledFirst(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	showTiles(h, 12, ThemeLight)
	h.locked(func() {
		v := h.a.running
		require.Len(t, v.panels, 12)
		var got []string
		for _, o := range v.tiles {
			for _, p := range v.panels {
				if p.tile == o {
					got = append(got, p.title.Text)
				}
			}
		}
		require.Equal(t, []string{"A011", "A012", "A001", "A002", "A003", "A004", "A005", "A006", "A007", "A008", "A009", "A010"}, got)
		vis := v.scroll.Size()
		require.Greater(t, v.scroll.Content.MinSize().Height, vis.Height, "12 cards do not fit: the tiles scroll")
		require.Equal(t, float32(0), v.scroll.Offset.Y)
		top := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.scroll)
		inView := func(p *cardPanel) bool {
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.tile)
			return pos.Y >= top.Y && pos.Y+p.tile.Size().Height <= top.Y+vis.Height+0.5
		}
		for _, p := range v.panels {
			switch p.title.Text {
			case "A011", "A012":
				require.True(t, inView(p), "%s (failed or stalled) in view without scrolling", p.title.Text)
			case "A009", "A010":
				require.False(t, inView(p), "%s below the fold", p.title.Text)
			}
		}
		require.Equal(t, stateCopying+stalledSuffix, v.panels[11].state.Text)
		require.Equal(t, widget.WarningImportance, v.panels[10].state.Importance, "A011 lost a file")
		if *writeTiles { // for a person to look at (not a golden image)
			require.NoError(t, os.MkdirAll(filepath.Join("testdata", "failed"), 0o755))
			writePNG(t, filepath.Join("testdata", "failed", "tiles-12-light.png"), paletted(h.a.win.Canvas().Capture()))
		}
	})
}

// The throughput chart is off by default below 900 px of height (the
// tiles take it), on at 900 and more, and Show chart / Hide chart turn it
// on and off.
func TestChartOffBelow900AndCollapsible(t *testing.T) {
	viewLogicOnly(t)
	h := newHarness(t, nil)
	for _, c := range []struct {
		height float32
		on     bool
	}{{800, false}, {899, false}, {900, true}, {1080, true}} {
		h.locked(func() {
			h.a.win.Resize(fyne.NewSize(1280, c.height))
			v := h.a.running
			v.bind(goldenScene("copying"))
			require.Equal(t, c.on, v.chartOn, "at %v px", c.height)
			require.Len(t, v.center.Objects, 1)
			if c.on {
				require.Same(t, v.split, v.center.Objects[0], "the chart under the tiles at %v px", c.height)
				require.Equal(t, "Hide chart", v.chartBtn.Text)
			} else {
				require.Same(t, v.scroll, v.center.Objects[0], "the tiles alone at %v px", c.height)
				require.Equal(t, "Show chart", v.chartBtn.Text)
			}
			test.Tap(v.chartBtn)
			require.Equal(t, !c.on, v.chartOn, "the button turns it over at %v px", c.height)
			if c.on {
				require.Same(t, v.scroll, v.center.Objects[0])
			} else {
				require.Same(t, v.split, v.center.Objects[0])
			}
			v.render() // a render leaves the person's choice alone
			require.Equal(t, !c.on, v.chartOn)
		})
	}
}

// matchGolden compares img with the golden image at path: at most 0.2 %
// of the pixels may differ by more than 24 in a channel (anti-aliasing).
// With -tiles it writes the image instead; a mismatch writes what was
// drawn to testdata/failed/ for a person to look at.
func matchGolden(t *testing.T, path string, img image.Image) {
	t.Helper()
	pal := paletted(img)
	if *writeTiles {
		writePNG(t, path, pal)
		return
	}
	f, err := os.Open(path)
	require.NoError(t, err, "go test -run TestGoldenTiles ./ui/ -args -tiles writes it")
	defer f.Close()
	want, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, want.Bounds(), pal.Bounds())
	b, bad := pal.Bounds(), 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := color.NRGBAModel.Convert(pal.At(x, y)).(color.NRGBA)
			q := color.NRGBAModel.Convert(want.At(x, y)).(color.NRGBA)
			d := func(u, v uint8) int { return max(int(u)-int(v), int(v)-int(u)) }
			if max(d(p.R, q.R), d(p.G, q.G), d(p.B, q.B)) > 24 {
				bad++
			}
		}
	}
	if limit := b.Dx() * b.Dy() / 500; bad > limit {
		failed := filepath.Join("testdata", "failed", filepath.Base(path))
		require.NoError(t, os.MkdirAll(filepath.Dir(failed), 0o755))
		writePNG(t, failed, pal)
		t.Fatalf("%s: %d pixels differ (at most %d): see %s", path, bad, limit, failed)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	require.NoError(t, enc.Encode(&buf, img))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// Ended means ended: once a job ended (done or failed), Pause, Cancel and
// Add card leave the view (not greyed: gone), even if the job ended
// paused, and Ctrl+P does nothing; the next job has them again.
func TestEndedJobHasNoPauseOrCancel(t *testing.T) {
	viewLogicOnly(t)
	for _, scene := range []string{"safe", "failed"} {
		t.Run(scene, func(t *testing.T) {
			h := newHarness(t, nil)
			run := goldenScene(scene)
			run.modelOrNil().setPaused(true)
			h.locked(func() {
				v := h.a.running
				v.bind(run)
				for _, b := range []*widget.Button{v.pauseBtn, v.stopBtn, v.addBtn} {
					require.False(t, b.Visible(), "%q on an ended job", b.Text)
					require.True(t, b.Disabled(), "%q on an ended job", b.Text)
				}
				v.togglePause() // Ctrl+P on an ended job: nothing
				require.False(t, run.pause.Paused())
				// A job running again: its buttons are back.
				v.bind(goldenScene("copying"))
				for _, b := range []*widget.Button{v.pauseBtn, v.stopBtn, v.addBtn} {
					require.True(t, b.Visible(), "%q on a running job", b.Text)
					require.False(t, b.Disabled(), "%q on a running job", b.Text)
				}
				require.Equal(t, "Pause (Ctrl+P)", v.pauseBtn.Text)
			})
		})
	}
}

// The Offload tab's free space is the free space now: a destination
// written to after it was added (here a 64 MB file; a job, a drive
// emptied or resized) reads again when the tab is shown.
// freeFS is the OS filesystem with the free space the test sets: the
// machine's own changes with whatever else runs beside the tests.
type freeFS struct {
	fsys.OS
	free atomic.Uint64
}

func (f *freeFS) Free(string) (uint64, string, error) { return f.free.Load(), "test", nil }

func TestOffloadFreeSpaceIsFresh(t *testing.T) {
	fs := &freeFS{}
	fs.free.Store(315_000_000)
	h := newHarness(t, func(c *Config) { c.FS = fs })
	dest := mkdir(t, filepath.Join(h.dir, "dest"))
	h.locked(func() { h.a.offload.addDest(dest) })
	h.eventually("the destination's free space", func() bool {
		d := h.a.offload.dests[0]
		return !d.Loading && d.Free == 315_000_000
	})
	fs.free.Store(1_800_000_000) // the destination was resized, or emptied
	h.locked(func() {
		h.a.selectTab(h.a.running.content)
		h.a.selectTab(h.a.offload.content)
	})
	h.eventually("the free space read again", func() bool {
		d := h.a.offload.dests[0]
		return !d.Loading && d.Free == 1_800_000_000
	})
	h.locked(func() {
		require.Contains(t, texts(h.a.offload.content), "1.80 GB free")
		require.NotContains(t, texts(h.a.offload.content), "315 MB free")
	})
}

// While the form is shown, its destinations' free space is read again
// every FreshEvery without a click: a drive other work fills or empties
// reads as it is now before Start.
func TestOffloadFreeSpaceRefreshedWhileTheFormIsOpen(t *testing.T) {
	fs := &freeFS{}
	fs.free.Store(315_000_000)
	h := newHarness(t, func(c *Config) { c.FS, c.FreshEvery = fs, 20*time.Millisecond })
	dest := mkdir(t, filepath.Join(h.dir, "dest"))
	h.locked(func() {
		h.a.selectTab(h.a.offload.content)
		h.a.offload.addDest(dest)
	})
	h.eventually("the destination's free space", func() bool {
		d := h.a.offload.dests[0]
		return !d.Loading && d.Free == 315_000_000
	})
	fs.free.Store(1_800_000_000)
	// Read every 20 ms: the last figure stays shown while it is read
	// again (never "looking..." once known).
	var shown string
	h.eventually("the free space read again with no click, and shown", func() bool {
		shown = texts(h.a.offload.content)
		return strings.Contains(shown, "looking...") || strings.Contains(shown, "1.80 GB free")
	})
	require.NotContains(t, shown, "looking...", "a periodic read hid the known free space")
}
