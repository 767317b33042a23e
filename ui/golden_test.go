package ui

// Golden markup of the main views, rendered from fixed data by Fyne's
// test driver (testdata/*.xml). After a deliberate change of a view,
// review the markup written to testdata/failed/ and copy it over the
// master.

import (
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid/mountplace"
)

var t0 = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

const goldenTopology = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.0}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, path: /Volumes/A001, media: cfast2, bus: usb-a}
  - {name: A002, path: /Volumes/A002, media: cfast2, bus: usb-b}
destinations:
  - {name: raid, path: /Volumes/Blade1, bus: tb-1, kind: nvme-raid4-tb3}
  - {name: shuttle, path: /Volumes/SHUTTLE, bus: usb-a, kind: ssd-usb}
`

func goldenArray() *arrayStatus {
	return &arrayStatus{Dir: "/Volumes/Blade1", Label: "set-raid", Level: "raid4", K: 3, StripeUnit: 1 << 20, Files: 1234,
		Free: 6_000_000_000_000, DrivesRead: true, Members: []memberStatus{
			{Role: 0, State: "active", Dir: "/Volumes/Blade1", Hint: "/Volumes/Blade1", Free: 2_000_000_000_000, Drive: smartFixture("nvme-blade-healthy.json")},
			{Role: 1, State: "active", Dir: "/Volumes/Blade2", Hint: "/Volumes/Blade2", Free: 2_000_000_000_000, Drive: smartFixture("nvme-blade-worn-media-errors.json")},
			{Role: 2, State: "missing", Hint: "/Volumes/Blade3"},
			{Role: 3, Parity: true, State: "active", Dir: "/Volumes/Blade4", Hint: "/Volumes/Blade4", Free: 2_000_000_000_000, Drive: smartFixture("usb-bridge-unknown.json")},
		}}
}

// goldenArrays is the Arrays tab's list: goldenArray, degraded, written
// by two jobs and not mounted; a shuttle array on a volume, mounted.
func goldenArrays() []*knownArray {
	day2 := &catalog.Job{ID: 12, Name: "day02", Started: t0.Add(24 * time.Hour)}
	day1 := &catalog.Job{ID: 7, Name: "day01", Started: t0}
	day0 := &catalog.Job{ID: 3, Name: "day00", Started: t0.Add(-24 * time.Hour)}
	set := goldenArray()
	set.UUID = "1a2b3c4d-0000-4000-8000-000000000001"
	sh := &arrayStatus{Dir: "/Volumes/SH-A", Label: "shuttle", Level: "raid0", K: 2, StripeUnit: 1 << 20, Files: 0,
		Free: 3_000_000_000_000, Members: []memberStatus{
			{Role: 0, State: "active", Dir: "/Volumes/SH-A", Hint: "/Volumes/SH-A", Free: 1_500_000_000_000},
			{Role: 1, State: "active", Dir: "/Volumes/SH-B", Hint: "/Volumes/SH-B", Free: 1_500_000_000_000},
		}}
	return []*knownArray{
		{UUID: set.UUID, Label: "set-raid", Blades: []string{"/Volumes/Blade1", "/Volumes/Blade2", "/Volumes/Blade4"},
			Jobs: []*catalog.Job{day2, day1}, St: set,
			Place: &mountplace.Place{UUID: set.UUID, Label: "set-raid", Blade: "/Volumes/Blade1", Dir: "/home/dit/dit-arrays/set-raid-1a2b3c4d"}},
		{UUID: "5e6f7a8b-0000-4000-8000-000000000002", Label: "shuttle", Blades: []string{"/Volumes/SH-A", "/Volumes/SH-B"}, OnVolume: true, St: sh,
			Place: &mountplace.Place{UUID: "5e6f7a8b-0000-4000-8000-000000000002", Label: "shuttle", Blade: "/Volumes/SH-A", Dir: "/home/dit/dit-arrays/shuttle-5e6f7a8b", Mounted: true}},
		// Gone to the lab: no blade of it here, seen by the catalog only.
		{UUID: "9c0d1e2f-0000-4000-8000-000000000003", Jobs: []*catalog.Job{day0},
			Seen: []catalog.ArraySeen{{UUID: "9c0d1e2f-0000-4000-8000-000000000003", Path: "/Volumes/LAB-1", JobID: 3, T: day0.Started}}},
	}
}

// fillOffload shows two cards, an array and a shuttle, and the plan of
// goldenTopology.
func fillOffload(t *testing.T, h *harness) {
	topo, err := plan.ParseTopology("set.yaml", []byte(goldenTopology))
	require.NoError(t, err)
	v := h.a.offload
	cards := []cardItem{
		{Path: "/Volumes/A001", Label: "A001", Files: 412, Bytes: 256_000_000_000},
		{Path: "/Volumes/A002", Label: "A002", Files: 398, Bytes: 248_500_000_000},
	}
	dests := []destItem{
		{Path: "/Volumes/Blade1", Free: 6_000_000_000_000, Array: goldenArray()},
		{Path: "/Volumes/SHUTTLE", Free: 300_000_000_000},
	}
	out := computePlan(t.Context(), planInput{cards: cards, dests: dests, preset: topo,
		algos: []hashing.Algo{hashing.XXH64, hashing.MD5}, verify: true, valgos: []hashing.Algo{hashing.XXH64}, noCPU: true})
	require.Empty(t, out.err)
	h.locked(func() {
		for i := range cards {
			v.cards = append(v.cards, &cards[i])
		}
		for i := range dests {
			v.dests = append(v.dests, &dests[i])
		}
		v.preset = topo
		v.presetLabel.SetText("Preset set.yaml: 3 buses, 2 sources, 2 destinations.")
		v.renderCards()
		v.renderDests()
		v.lastPlan = out
		v.planBox.Objects = []fyne.CanvasObject{planPanel(out, "")}
		v.relayout()
	})
}

func TestGoldenOffloadView(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	fillOffload(t, h)
	h.locked(func() { test.AssertRendersToMarkup(t, "offload.xml", h.a.win.Canvas()) })
	text := texts(h.a.offload.planBox)
	require.Contains(t, text, "Bottleneck: ")
	require.Contains(t, text, "A002 (cfast2, 0.550 GB/s) is in a reader on a USB 3.0 (5 Gbit/s) port (usb-b)")
	require.Contains(t, text, "A002 does not fit on /Volumes/SHUTTLE: the cards need 505 GB, 300 GB is free.")
	require.Contains(t, text, "/Volumes/Blade1: the array is DEGRADED (blade 2 missing)")
}

// gJob is the model's job at at: its rate, bytes read (TB/hour over the
// time since t0, rounded to the thousandth as a person reads it) and the
// time until every card is safe (copied 8 s before).
func gJob(at time.Time, rate float64, read int64, safe float64) live.Job {
	el := at.Sub(t0).Seconds()
	tbh := math.Round(float64(read)/el*3600/1e9) / 1e3
	j := live.Job{At: at, Elapsed: el, Bytes: 7_000_000_000, BytesCopied: read, BytesRead: read, Rate: rate, TBPerHour: tbh, Cards: 2,
		ETA: live.Times{Copied: live.In(max(0, safe-8)), CardFree: live.In(safe), Safe: live.In(safe)}}
	if read >= j.Bytes {
		j.Copied = 2
	}
	return j
}

// goldenRun is a job one minute in: A001 verified, A002 failed one file,
// with a minute of throughput samples.
func goldenRun() *jobRun {
	prog := offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "scanning", Files: 12, Bytes: 4_000_000_000, ReadBack: live.ReadBack{VerifyTotal: 8_000_000_000}},
		{Label: "A002", Phase: "scanning", Files: 9, Bytes: 3_000_000_000, ReadBack: live.ReadBack{VerifyTotal: 6_000_000_000}},
	}}
	m := newRunModel(7, "day01", t0, prog, []string{"/Volumes/A001", "/Volumes/A002"})
	for s := 1; s <= 60; s++ {
		r1 := 0.52e9 + float64(s%5)*0.01e9
		r2 := 0.33e9 + float64(s%3)*0.01e9
		at := t0.Add(time.Duration(s) * time.Second)
		m.apply(offload.Event{Type: offload.EvProgress, Time: at, Progress: &offload.Progress{Job: gJob(at, r1+r2, int64(s)*85_000_000, 77-float64(s)), Cards: []offload.CardProgress{
			{Label: "A001", Phase: "copying", Files: 12, FilesDone: s / 6, Bytes: 4_000_000_000, BytesCopied: int64(s) * 52_000_000, Current: "CLIPS/A001C007_261122_R1AB.mov", Rate: r1, ETA: live.Times{Safe: live.In(17)}, ETASeconds: live.In(17), ReadBack: live.ReadBack{VerifyTotal: 8_000_000_000, BytesVerified: int64(s) * 80_000_000}},
			{Label: "A002", Phase: "copying", Files: 9, FilesDone: s / 8, Bytes: 3_000_000_000, BytesCopied: int64(s) * 33_000_000, Current: "CLIPS/A002C003_261122_R2CD.mov", Rate: r2, ETA: live.Times{Safe: live.In(31)}, ETASeconds: live.In(31), ReadBack: live.ReadBack{VerifyTotal: 6_000_000_000, BytesVerified: int64(s) * 50_000_000}},
		}}})
	}
	m.apply(offload.Event{Type: offload.EvFile, Card: "A002", Path: "CLIPS/A002C002_261122_R2CD.mov", State: offload.StateFailed,
		Copies: []offload.CopyState{{Dest: "/Volumes/SHUTTLE", State: offload.StateFailed, Error: "verify: xxh64 mismatch: source 1f2e3d4c5b6a7988, read back 0a1b2c3d4e5f6071"}}})
	m.apply(offload.Event{Type: offload.EvRunDone, Time: t0.Add(61 * time.Second), Card: "A001", State: offload.StateVerified})
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified}}}, false)
	m.setCounters(offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "done", Files: 12, FilesDone: 12, Bytes: 4_000_000_000, BytesCopied: 4_000_000_000, ReadBack: live.ReadBack{VerifyTotal: 8_000_000_000, BytesVerified: 8_000_000_000}},
		{Label: "A002", Phase: "verifying", Files: 9, FilesDone: 8, FilesFailed: 1, Bytes: 3_000_000_000, BytesCopied: 3_000_000_000, Current: "CLIPS/A002C009_261122_R2CD.mov", ReadBack: live.ReadBack{VerifyTotal: 6_000_000_000, BytesVerified: 4_500_000_000}},
	}}, t0.Add(61*time.Second))
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(62 * time.Second), Progress: &offload.Progress{Job: gJob(t0.Add(62*time.Second), 1.1e9, 7_000_000_000, 8), Cards: []offload.CardProgress{
		{Label: "A001", Phase: "done", Files: 12, FilesDone: 12, Bytes: 4_000_000_000, BytesCopied: 4_000_000_000, ReadBack: live.ReadBack{VerifyTotal: 8_000_000_000, BytesVerified: 8_000_000_000}},
		{Label: "A002", Phase: "verifying", Files: 9, FilesDone: 8, FilesFailed: 1, Bytes: 3_000_000_000, BytesCopied: 3_000_000_000, Current: "CLIPS/A002C009_261122_R2CD.mov", Rate: 1.1e9, ETA: live.Times{Safe: live.In(8)}, ETASeconds: live.In(8), ReadBack: live.ReadBack{VerifyTotal: 6_000_000_000, BytesVerified: 4_500_000_000}},
	}}})
	m.sim = simText(0.1)
	run := &jobRun{cancel: func() {}, done: make(chan struct{}), pause: newPauser(nil)}
	run.setModel(m)
	return run
}

func TestGoldenRunningView(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.running.bind(goldenRun())
		h.a.selectTab(h.a.running.content)
		test.AssertRendersToMarkup(t, "running.xml", h.a.win.Canvas())
		text := texts(h.a.running.content)
		require.Contains(t, text, stateSafe)
		require.Contains(t, text, stateVerifying)
		// The tile says the failed file in a line; its Details, why.
		require.Contains(t, text, "1 file failed: CLIPS/A002C002_261122_R2CD.mov (Details: why)")
		p := h.a.running.panels[1]
		test.Tap(p.more)
		require.Contains(t, texts(h.a.running.content), "1 file failed:\nCLIPS/A002C002_261122_R2CD.mov: on /Volumes/SHUTTLE: verify: xxh64 mismatch")
		require.True(t, p.current.Visible(), "the file being read back, in the details")
		require.False(t, p.failShort.Visible())
		test.Tap(p.more)
		require.False(t, p.failures.Visible())
		// The big figures are the model's, as it gave them.
		require.Equal(t, "1.100 GB/s", h.a.running.rateBig.Text)
		require.Equal(t, units.FormatTBPerHour(0.406), h.a.running.tbBig.Text)
		require.Equal(t, "8s", h.a.running.etaBig.Text)
		require.Equal(t, "until every card is safe to format (every card copied)", h.a.running.etaCap.Text)
	})
}

// fillHistory shows two past jobs, the first one opened.
func fillHistory(h *harness) {
	sum := &offload.Summary{JobFigures: offload.JobFigures{Files: 21, Bytes: 7_000_000_000, BytesCopied: 7_000_000_000, Failed: 1, Seconds: 1800, TBPerHour: 0.014}, JobID: 7, Name: "day01", State: "done", Status: verdict.Failed, Started: t0, Finished: t0.Add(30 * time.Minute), Hashes: "xxh64,md5", Verify: "dest", Cards: []offload.CardSummary{
		{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, Files: 12, Bytes: 4_000_000_000, BytesCopied: 4_000_000_000, SafeToFormat: true, Verdict: "Verified: safe to format", TBPerHour: 1.8}, Path: "/Volumes/A001", State: "verified", Destinations: []offload.DestSummary{{Path: "/Volumes/Blade1/day01/A001", Verified: 12}, {Path: "/Volumes/SHUTTLE/day01/A001", Verified: 12}}},
		{CardFigures: offload.CardFigures{Label: "A002", Status: verdict.Failed, Files: 9, Bytes: 3_000_000_000, BytesCopied: 3_000_000_000, Failed: 1, Verdict: "FAILED: NOT safe to format", TBPerHour: 1.1}, Path: "/Volumes/A002", State: "failed", Destinations: []offload.DestSummary{{Path: "/Volumes/Blade1/day01/A002", Verified: 9}, {Path: "/Volumes/SHUTTLE/day01/A002", Verified: 8, Failed: 1}}, Failures: []offload.Failure{{Path: "CLIPS/A002C002_261122_R2CD.mov", Error: "verify: xxh64 mismatch: source 1f2e3d4c5b6a7988, read back 0a1b2c3d4e5f6071"}}},
	}}
	h.locked(func() {
		v := h.a.history
		v.rows = []jobRow{
			{ID: 7, Name: "day01", State: "failed", Started: t0, Cards: 2, Safe: 1, Files: 21, Failed: 1, Bytes: 7_000_000_000, Copied: 7_000_000_000, TBh: 0.014},
			{ID: 6, Name: "day00-tests", State: "interrupted", Started: t0.Add(-24 * time.Hour), Cards: 1, Files: 40, Bytes: 1_000_000_000, Copied: 250_000_000},
		}
		v.list.Refresh()
		v.selected = 7
		v.open = &jobDetail{sum: sum}
		v.renderDetail()
		h.a.tabs.SelectIndex(2)
		// Selecting the tab started a read of the (empty) catalog; its
		// answer, waiting for this lock, would replace the rows above
		// and try to open job 7 from the empty catalog. Drop it.
		v.seq++
	})
}

func TestGoldenHistoryView(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	fillHistory(h)
	h.locked(func() { test.AssertRendersToMarkup(t, "history.xml", h.a.win.Canvas()) })
}

func TestGoldenArrayView(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.selectTab(h.a.arrays.content) // (its own look at the arrays ends after the test)
		h.a.arrays.list.show(goldenArrays(), nil)
		h.a.arrays.dir = "/Volumes/Blade1"
		h.a.arrays.render(goldenArray())
		test.AssertRendersToMarkup(t, "arrays.xml", h.a.win.Canvas())
		list := texts(h.a.arrays.list.box)
		require.Contains(t, list, `"set-raid", RAID 4, 4 blades: DEGRADED (blade 2 missing): every file is still readable; replace the blade`)
		require.Contains(t, list, `3 of 4 blades here (/Volumes/Blade1, /Volumes/Blade2, /Volumes/Blade4); written by 2 jobs, newest first: job 12 "day02" of 2026-11-23 09:30, job 7 "day01" of 2026-11-22 09:30; not mounted (its files open in other programs once it is: dit array mount /Volumes/Blade1 /home/dit/dit-arrays/set-raid-1a2b3c4d)`)
		require.Contains(t, list, `"shuttle", RAID 0, 2 blades: healthy`)
		require.Contains(t, list, "2 of 2 blades here (/Volumes/SH-A, /Volumes/SH-B); on a volume mounted now; no job of this catalog wrote to it; its files open at /home/dit/dit-arrays/shuttle-5e6f7a8b")
		require.Contains(t, list, "array 9c0d1e2f, last seen at /Volumes/LAB-1: no blade connected")
		require.Contains(t, list, `connect a blade to open it; seen at /Volumes/LAB-1 on 2026-11-21 09:30; written by job 3 "day00" of 2026-11-21 09:30`)
		require.True(t, h.a.arrays.list.opens["9c0d1e2f-0000-4000-8000-000000000003"].Disabled(), "nothing to open it by")
		require.Contains(t, h.a.arrays.info.Text, "Health: DEGRADED (blade 2 missing): every file is still readable; replace the blade")
		require.Equal(t, "blade 2", h.a.arrays.roleSel.Selected, "the missing blade is the one to rebuild")
		txt := texts(h.a.arrays.drives)
		require.Contains(t, txt, "Blade 0 drive: ok: /dev/nvme0 (Samsung SSD 990 PRO 4TB S7DPNJ0W912345X): 0 media errors, wear 3 %, 41 °C")
		require.Contains(t, txt, "Blade 1 drive: WARNING: ")
		require.Contains(t, txt, "17 media error(s)")
		require.Contains(t, txt, "Blade 2 drive: unknown: the blade is not here")
		require.Contains(t, txt, "Blade 3 drive: unknown: the device does not answer SMART queries")
	})
}

// The Arrays tab as drawn (the test renderer): the blades, and each
// blade's drive health from the committed smartctl fixtures (ok, a
// warning with its reasons, unknown with why).
func TestGoldenArrayHealthImage(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.selectTab(h.a.arrays.content)
		h.a.arrays.list.show(goldenArrays()[:2], nil) // (the third, not here, would push the drives off the image)
		h.a.arrays.dir = "/Volumes/Blade1"
		h.a.arrays.render(goldenArray())
		h.a.win.Canvas().Capture() // drawn once in the first theme, as the app does (see showScene)
		h.a.SetTheme(ThemeLight)
		test.AssertImageMatches(t, "arrays-health.png", h.a.win.Canvas().Capture())
	})
}
