package ui

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/raid"
)

// speedSize is the tests' size: the smallest test that says anything.
const speedSize = "16 MB"

// runSpeed starts the open Speed test dialog's test at speedSize and
// waits for its end.
func (h *harness) runSpeed() *speedTest {
	h.t.Helper()
	var st *speedTest
	h.locked(func() {
		st = h.a.speed
		require.NotNil(h.t, st, "no Speed test dialog")
		st.sizeSel.Options = append(st.sizeSel.Options, speedSize)
		st.sizeSel.SetSelected(speedSize)
		test.Tap(st.startBtn)
	})
	await(h.t, "the speed test's end", st.done)
	return st
}

// chartsIn counts the speed charts shown in o.
func chartsIn(o fyne.CanvasObject) int {
	n := 0
	walk(o, func(o fyne.CanvasObject) {
		if img, ok := o.(*canvas.Image); ok && img.MinSize() == speedChartShown {
			n++
		}
	})
	return n
}

// tempFiles lists the speed test's files left in dir.
func tempFiles(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".dit-speedtest") {
			out = append(out, p)
		}
		return err
	}))
	return out
}

// A destination folder's Speed test (Offload tab): the test writes and
// reads back, its result is recorded in the catalog under the folder's
// volume, the curve's chart is shown, and no test file is left.
func TestSpeedTestOfDestination(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	dest := mkdir(t, filepath.Join(dir, "Shuttle ünïcode"))
	h := newHarness(t, nil)
	h.locked(func() { h.a.offload.addDest(dest) })
	h.a.bg.Wait()
	h.locked(func() {
		b := buttonIn(h.a.offload.destBox, "Speed test")
		require.NotNil(t, b)
		test.Tap(b)
		require.Contains(t, texts(h.a.speed.body), "Writes test files")
		require.True(t, h.a.speed.stopBtn.Disabled(), "nothing to cancel before the start")
	})
	st := h.runSpeed()
	h.locked(func() {
		require.NoError(t, st.err)
		require.Len(t, st.rs, 1)
		r := st.rs[0]
		require.Equal(t, speedtest.Folder, r.Kind)
		require.NotNil(t, r.Write)
		require.NotNil(t, r.Read)
		txt := texts(st.body)
		require.Contains(t, txt, "Speed test finished (1 result).")
		require.Contains(t, txt, "Write: ")
		require.Contains(t, txt, "Read: ")
		require.Contains(t, txt, "Recorded in the catalog "+h.cat.Path())
		require.Equal(t, 1, chartsIn(st.results), "the curve's chart")
		require.False(t, st.bar.Visible())
	})
	row, err := h.cat.LatestSpeedTest(st.rs[0].Volume, true)
	require.NoError(t, err)
	require.NotNil(t, row, "the result is in the catalog")
	require.Equal(t, dest, row.Path)
	require.Equal(t, st.kept[0].Row.ID, row.ID)
	require.Greater(t, row.Write, 0.0)
	require.Empty(t, tempFiles(t, dest))
}

// A card's Speed test reads its files only: nothing on the card changes,
// and the read is recorded.
func TestSpeedTestOfCardIsReadOnly(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 20_000_000)
	before := snapshotDir(t, cards[0].Path)
	h := newHarness(t, nil)
	h.locked(func() { h.a.offload.addCard(cards[0].Path) })
	h.a.bg.Wait()
	h.locked(func() {
		b := buttonIn(h.a.offload.cardBox, "Speed test")
		require.NotNil(t, b)
		test.Tap(b)
		require.True(t, h.a.speed.t.ReadOnly)
	})
	st := h.runSpeed()
	h.locked(func() {
		require.NoError(t, st.err)
		require.Len(t, st.rs, 1)
		require.Equal(t, speedtest.Card, st.rs[0].Kind)
		require.Nil(t, st.rs[0].Write, "a card is never written")
		require.NotNil(t, st.rs[0].Read)
		require.Equal(t, 1, chartsIn(st.results))
	})
	require.Equal(t, before, snapshotDir(t, cards[0].Path), "the card is unchanged")
	row, err := h.cat.LatestSpeedTest(st.rs[0].Volume, false)
	require.NoError(t, err)
	require.NotNil(t, row)
	require.Equal(t, "card", row.Kind)
}

// snapshotDir is every entry of dir with its size and modification time.
func snapshotDir(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%s %s %d", fi.ModTime().Format(time.RFC3339Nano), fi.Mode(), fi.Size())
		return nil
	}))
	return out
}

// An array's Speed test (Arrays tab): each blade, then the whole array;
// every result recorded and charted.
func TestSpeedTestOfArray(t *testing.T) {
	dir := t.TempDir()
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "speed-raid"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	h := newHarness(t, nil)
	v := h.a.arrays
	h.locked(func() { v.openArray(blades[0]) })
	h.arrayOps("the array read")
	h.locked(func() {
		require.False(t, v.speedBtn.Disabled())
		test.Tap(v.speedBtn)
		require.Equal(t, `array "speed-raid"`, h.a.speed.t.What)
	})
	var st *speedTest
	h.locked(func() {
		st = h.a.speed
		require.Equal(t, []string{"Blade 1 of 3", "Blade 2 of 3", "Blade 3 of 3", "The whole array"}, st.t.Parts)
	})
	st = h.runSpeed()
	h.locked(func() {
		require.NoError(t, st.err)
		require.Len(t, st.rs, 4, "three blades, then the array")
		require.Equal(t, speedtest.Array, st.rs[3].Kind)
		require.Equal(t, 4, chartsIn(st.results))
		require.Len(t, st.kept, 4)
		for _, k := range st.kept {
			require.NoError(t, k.Err)
		}
	})
	row, err := h.cat.LatestSpeedTest(st.rs[3].Volume, true)
	require.NoError(t, err)
	require.NotNil(t, row)
	require.Equal(t, "array", row.Kind)
	for _, b := range blades {
		require.Empty(t, tempFiles(t, b))
	}
}

// Cancel stops a running test: its files are removed, nothing is
// recorded.
func TestSpeedTestCancel(t *testing.T) {
	dir := t.TempDir()
	dest := mkdir(t, filepath.Join(dir, "dest"))
	h := newHarness(t, nil)
	var st *speedTest
	h.locked(func() {
		st = h.a.speedTestOf(speedTarget{Path: dest, What: "destination " + dest})
		st.sizeSel.Options = append(st.sizeSel.Options, "2 GB")
		st.sizeSel.SetSelected("2 GB")
		test.Tap(st.startBtn)
		require.False(t, st.stopBtn.Disabled())
	})
	h.eventually("the test writing", func() bool { return strings.HasPrefix(st.status.Text, "Writing") })
	h.locked(func() { test.Tap(st.stopBtn) })
	await(t, "the stopped test's end", st.done)
	h.locked(func() {
		require.ErrorIs(t, st.err, speedtest.ErrCanceled)
		require.Contains(t, st.status.Text, "Speed test stopped: its test files were removed. Nothing was recorded.")
		require.Equal(t, 0, chartsIn(st.results))
	})
	require.Empty(t, tempFiles(t, dest))
	id, _ := speedtest.VolumeID(dest)
	row, err := h.cat.LatestSpeedTest(id, false)
	require.NoError(t, err)
	require.Nil(t, row)
}

// goldenSpeedResult is a folder's test with a cache that ran out at 40 %.
func goldenSpeedResult() *speedtest.Result {
	r := &speedtest.Result{Path: "/Volumes/SHUTTLE", Kind: speedtest.Folder, Volume: "uuid:5e1f-0a2b", VolumeHow: "the filesystem's UUID",
		Started: t0, Size: 64_000_000_000, Block: 1 << 20, Streams: 1}
	w := &speedtest.Phase{Name: "write", Bytes: r.Size, Direct: true, Cache: "past the page cache (O_DIRECT)"}
	rd := &speedtest.Phase{Name: "read", Bytes: r.Size, Direct: true, Cache: "past the page cache (O_DIRECT)"}
	var tw, tr float64
	for i := 1; i <= 100; i++ {
		at := r.Size * int64(i) / 100
		rate := 1.9e9 + float64(i%7)*0.02e9
		if i > 40 {
			rate = 0.62e9 + float64(i%5)*0.01e9
		}
		tw += float64(r.Size/100) / rate
		w.Curve = append(w.Curve, speedtest.Point{At: at, Seconds: tw, Rate: rate})
		rr := 2.1e9 + float64(i%3)*0.01e9
		tr += float64(r.Size/100) / rr
		rd.Curve = append(rd.Curve, speedtest.Point{At: at, Seconds: tr, Rate: rr})
	}
	w.Seconds, w.Rate = tw, float64(r.Size)/tw
	rd.Seconds, rd.Rate = tr, float64(r.Size)/tr
	w.Cliff = &speedtest.Cliff{At: 25_600_000_000, Before: 1.96e9, After: 0.64e9}
	r.Write, r.Read = w, rd
	return r
}

// The result as the dialog shows it: rates, the cliff, where it is kept
// and the curves' chart (a golden image of the test renderer).
func TestGoldenSpeedTestResult(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	h.locked(func() {
		st := h.a.speedTestOf(speedTarget{Path: "/Volumes/SHUTTLE", What: "destination /Volumes/SHUTTLE"})
		st.catPath = "/home/dit/.local/share/dit/catalog.db"
		r := goldenSpeedResult()
		png, err := speedChartPNG(r)
		require.NoError(t, err)
		st.rs, st.charts = []*speedtest.Result{r}, [][]byte{png}
		st.kept = []speedtest.Kept{{Result: r, Row: &catalog.SpeedTest{ID: 3, Station: "cart-1"}}}
		st.finish()
		txt := texts(st.body)
		require.Contains(t, txt, "Write: 0.876 GB/s (64.0 GB in 73.1 s, past the page cache (O_DIRECT); a cliff (below))")
		require.Contains(t, txt, "Write cliff: the rate fell after 25.6 GB, from 1.960 GB/s to 0.640 GB/s (a cache ran out).")
		require.Contains(t, txt, "Read: 2.110 GB/s (64.0 GB in 30.3 s, past the page cache (O_DIRECT); no cliff: the rate held)")
		require.Contains(t, txt, "Recorded in the catalog /home/dit/.local/share/dit/catalog.db as speed test 3 of uuid:5e1f-0a2b")
		h.a.win.Resize(fyne.NewSize(1280, 860))
		test.AssertImageMatches(t, "speedtest-result.png", h.a.win.Canvas().Capture())
	})
}

// The progress names the part of an array's test under way: each part
// is a write, then a read.
func TestSpeedProgressParts(t *testing.T) {
	h := newHarness(t, nil)
	var st *speedTest
	h.locked(func() {
		st = h.a.speedTestOf(speedTarget{Path: "/x", What: "array", Array: true, Parts: []string{"Blade 1 of 2", "Blade 2 of 2", "The whole array"}})
		st.running = true
	})
	p := st.progressFunc()
	for _, c := range []struct {
		phase       string
		done, total int64
		want        string
	}{
		{"write", 0, 100e6, "Blade 1 of 2, writing: 0 B of 100 MB"},
		{"write", 50e6, 100e6, "Blade 1 of 2, writing: 50.0 MB of 100 MB"},
		{"read", 10e6, 100e6, "Blade 1 of 2, reading past the cache: 10.0 MB of 100 MB"},
		{"write", 1e6, 100e6, "Blade 2 of 2, writing: 1.00 MB of 100 MB"},
		{"read", 100e6, 100e6, "Blade 2 of 2, reading past the cache: 100 MB of 100 MB"},
		{"write", 200e6, 200e6, "The whole array, writing: 200 MB of 200 MB"},
	} {
		p(c.phase, c.done, c.total)
		h.locked(func() { require.Equal(t, c.want, st.status.Text) })
	}
	h.locked(func() { st.running = false })
}

// While a job runs, a speed test is refused in words: it would slow the
// job and measure less than the drive sustains.
func TestSpeedTestRefusedWhileAJobRuns(t *testing.T) {
	dest := mkdir(t, filepath.Join(t.TempDir(), "dest"))
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.running.run = &jobRun{done: make(chan struct{})} // a job under way
		st := h.a.speedTestOf(speedTarget{Path: dest, What: "destination " + dest})
		test.Tap(st.startBtn)
		require.False(t, st.running)
		require.Contains(t, st.status.Text, "A job is running")
		h.a.running.run = nil
	})
	require.Empty(t, tempFiles(t, dest))
}
