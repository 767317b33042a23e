package ui

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/verdict"
)

// flipFS flips one byte of a matching copy on disk just before it is read
// back (as internal/offload's fault tests do): a destination that returns
// other bytes than were written.
type flipFS struct {
	fsys.FS
	match string
}

func (f flipFS) OpenNoCache(name string) (fsys.File, error) {
	if strings.Contains(name, f.match) {
		if fh, err := os.OpenFile(name, os.O_RDWR, 0); err == nil {
			var b [1]byte
			fh.ReadAt(b[:], 1000)
			b[0] ^= 0x01
			fh.WriteAt(b[:], 1000)
			fh.Close()
		}
	}
	return f.FS.OpenNoCache(name)
}

// runningJob returns the model of the job the running view shows.
func (h *harness) view() runView {
	h.t.Helper()
	var v runView
	h.locked(func() {
		require.NotNil(h.t, h.a.running.run, "no job in the running view")
		v = h.a.running.run.modelOrNil().view()
	})
	return v
}

// waitJob waits for the job the Offload view started to end: its done
// channel, then the Offload view taking the end (Start enabled again,
// the running view drawn with the verdicts).
func (h *harness) waitJob() {
	h.t.Helper()
	var run *jobRun
	h.eventually("the job to start", func() bool {
		// Prepare starts the job once its plan is made (autoStart).
		run = h.a.running.run
		return run != nil || (!h.a.offload.busy && !h.a.offload.autoStart)
	})
	if run == nil {
		var status string
		h.locked(func() { status = h.a.offload.status.Text })
		h.t.Fatalf("the job did not start: %q", status)
	}
	await(h.t, "the job to end", run.done)
	h.eventually("the Offload view to take the job's end", func() bool { return !h.a.offload.busy })
}

func (h *harness) panelStates() []string {
	var out []string
	h.locked(func() {
		for _, p := range h.a.running.panels {
			out = append(out, p.state.Text)
		}
	})
	return out
}

func shortcut(h *harness, s fyne.Shortcut) {
	h.locked(func() { h.a.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(s) })
}

// A two-card job on the demo's simulated hardware (a RAID 4 dit array and
// a shuttle): the plan is shown before the start, Ctrl+Enter starts it,
// the bars move and reach 100%, both cards end "Verified: safe to
// format", and the report is exported from History.
func TestTwoCardJobEndsSafeToFormatAndReportExports(t *testing.T) {
	raceCoveredElsewhere(t)
	h := newHarness(t, nil)
	d, err := PrepareDemo(context.Background(), filepath.Join(h.dir, "demo"), 3_000_000)
	require.NoError(t, err)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "day01", Cards: d.Cards, Dests: d.Dests, Preset: d.Topology, Simulate: true, Scale: 0.004})
	})

	// The plan, before the start.
	h.eventually("the plan", func() bool {
		v := h.a.offload
		return v.lastPlan.res != nil && v.lastSeq == v.planSeq
	})
	var planText string
	h.locked(func() { planText = texts(h.a.offload.planBox) })
	require.Contains(t, planText, "Plan from the preset demo-topology.yaml")
	require.Contains(t, planText, "Bottleneck: ")
	require.Contains(t, planText, "A002 (cfast2, 0.550 GB/s) is in a reader on a USB 3.0 (5 Gbit/s) port (usb-b): it reads at most 0.350 GB/s there")
	require.Contains(t, planText, "Simulated: the plan's hardware is played at 1/250 of field rates")
	var destText string
	h.locked(func() { destText = texts(h.a.offload.destBox) })
	require.Contains(t, destText, `dit array "demo-raid", RAID 4, 4 blades: healthy`)

	shortcut(h, shortcutStart)
	var mid bool
	h.eventually("the job to end, its progress bars part way meanwhile", func() bool {
		for _, p := range h.a.running.panels {
			if p.bar.Value > 0 && p.bar.Value < 1 {
				mid = true
			}
		}
		return h.a.running.run != nil && h.a.running.run.finished() && !h.a.offload.busy
	})
	require.True(t, mid, "the progress bars were seen part way")
	// The job has ended and the running view shows its verdicts.
	require.Equal(t, []string{stateSafe, stateSafe}, h.panelStates(), "both cards safe to format")
	v := h.view()
	require.Equal(t, "day01", v.Name)
	require.Empty(t, v.Warnings, "no warnings (hash lists and reports written, also into the array)")
	for i, c := range v.Cards {
		require.True(t, c.Safe, c.Label)
		require.Equal(t, 1.0, c.Fraction(), c.Label)
		require.NotEmpty(t, c.Series, "%s has throughput samples for the chart", c.Label)
		h.locked(func() { require.Equal(t, 1.0, h.a.running.panels[i].bar.Value) })
	}
	sum, err := offload.LoadSummary(h.cat, v.JobID)
	require.NoError(t, err)
	require.Equal(t, offload.ExitOK, sum.ExitCode)
	require.GreaterOrEqual(t, len(sum.Plans), 2, "the plan at the start and the re-plans, in the catalog")
	require.Equal(t, "start", sum.Plans[0].Reason)
	require.True(t, sum.Plans[0].Simulated)
	var runText string
	h.locked(func() { runText = texts(h.a.running.content) })
	require.Contains(t, runText, "2 of 2 cards safe to format")
	require.Contains(t, runText, "Reports written to ")

	// History: the job with its totals; export its report; reveal the MHL.
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() {
		head, tot := h.a.history.rows[0].text()
		require.Contains(t, head, "Job 1  day01  (done)")
		require.Contains(t, tot, "2 of 2 cards safe to format")
		require.Contains(t, tot, "TB/hour")
		h.a.history.list.Select(0)
	})
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	for _, f := range []string{"CSV", "PDF"} {
		h.locked(func() { test.Tap(buttonIn(h.a.history.detail, "Export "+f)) })
		h.eventually(f+" saved", func() bool { return strings.HasPrefix(h.a.history.status.Text, "Report saved to ") })
		h.locked(func() { h.a.history.say("") })
	}
	h.mu.Lock()
	csvPath, pdfPath := h.saved["dit-report_job1_day01.csv"], h.saved["dit-report_job1_day01.pdf"]
	h.mu.Unlock()
	csv, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.Contains(t, string(csv), "card,path,size_bytes")
	require.Contains(t, string(csv), "A001,CLIPS/")
	require.Contains(t, string(csv), "A002,CLIPS/")
	pdf, err := os.ReadFile(pdfPath)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(pdf), "%PDF-"))

	h.locked(func() {
		// A001 on the shuttle: a real folder with its ASC MHL history.
		mhl := buttonsIn(h.a.history.detail, "MHL folder")
		require.Len(t, mhl, 4)
		test.Tap(mhl[1])
	})
	h.mu.Lock()
	urls := append([]string(nil), h.urls...)
	h.mu.Unlock()
	require.Equal(t, []string{filepath.ToSlash(filepath.Join(d.Dests[1], "day01", "A001", "ascmhl"))}, urls)

	// The cards now read as offloaded: left out of a next job.
	h.locked(func() { h.a.selectTab(h.a.offload.content) })
	h.eventually("the cards found offloaded", func() bool {
		for _, c := range h.a.offload.cards {
			if c.Scanning || c.Prior == nil {
				return false
			}
		}
		return len(h.a.offload.cards) == 2
	})
	h.locked(func() {
		require.Contains(t, texts(h.a.offload.cardBox), "Already offloaded: A001 was offloaded in job 1 on ")
		require.Empty(t, h.a.offload.included())
		h.a.offload.start()
		require.Contains(t, h.a.offload.status.Text, "Add at least one card (cards offloaded before are left out")
	})

	// Files of a card.
	h.locked(func() { test.Tap(buttonsIn(h.a.history.detail, "Files")[0]) })
	h.eventually("the file list", func() bool {
		fs := h.a.history.files
		return fs != nil && fs.count > 0 && fs.file(fs.count-1) != nil
	})
	h.locked(func() {
		require.Contains(t, h.a.history.filesL.Text, "A001: ")
		fs := h.a.history.files
		require.Equal(t, h.a.history.open.sum.Cards[0].Files, fs.count, "the card's files, counted")
		for i := range fs.count {
			f := fs.file(i)
			require.Equal(t, "verified", f.State, f.Rel)
		}
	})
}

// A destination byte flipped before read-back: the card reads Failed and
// names the file and the destination; the other card is safe to format.
func TestFlippedByteShowsTheCardFailedWithTheFile(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 2_000_000)
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	// The largest file of A001 is damaged on d2.
	var rels []string
	filepath.Walk(cards[0].Path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 2000 && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(cards[0].Path, p)
			rels = append(rels, rel)
		}
		return nil
	})
	require.NotEmpty(t, rels)
	sort.Strings(rels)
	victim := filepath.ToSlash(rels[0])
	h := newHarness(t, func(c *Config) {
		c.FS = flipFS{FS: fsys.OS{}, match: filepath.Join("d2", "flip", "A001", filepath.FromSlash(victim))}
	})
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "flip", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1, d2},
			Throttle: 4e6, Start: true})
	})
	h.waitJob()
	// The job has ended and the running view shows the cards' verdicts.
	require.Equal(t, []string{stateFailed, stateSafe}, h.panelStates())
	var fail string
	h.locked(func() { fail = h.a.running.panels[0].failures.Text })
	require.Contains(t, fail, "1 file failed:")
	require.Contains(t, fail, "\n"+victim+": on "+d2+": ")
	require.Contains(t, fail, "xxh64 mismatch")
	v := h.view()
	require.False(t, v.Cards[0].Safe)
	require.Less(t, v.Cards[0].Fraction(), 1.0+1e-9)
	var runText string
	h.locked(func() { runText = texts(h.a.running.content) })
	require.Contains(t, runText, "1 of 2 cards safe to format, 1 file failed.")

	// The GUI renders the verdict model: each card's state is the one the
	// catalog's summary (every other front end's) gives; a job with a
	// failed card reads FAILED in the failure colour, and the failed
	// card's bar is drawn in it too.
	sum, err := offload.LoadSummary(h.a.cfg.Catalog, v.JobID)
	require.NoError(t, err)
	require.Equal(t, verdict.Failed, sum.Status)
	for i, c := range sum.Cards {
		require.Equal(t, c.Status, v.Cards[i].Status, "card %s", c.Label)
	}
	require.Equal(t, []verdict.State{verdict.Failed, verdict.Safe}, []verdict.State{sum.Cards[0].Status, sum.Cards[1].Status})
	h.locked(func() {
		r := h.a.running
		require.Contains(t, r.title.Text, "(failed)")
		require.Equal(t, "FAILED", r.etaBig.Text)
		require.Equal(t, theme.Color(theme.ColorNameError), r.etaBig.Color)
		bar := func(i int) color.Color {
			tt, ok := r.panels[i].barTint.Theme.(tintTheme)
			require.True(t, ok, "card %d's bar is tinted", i)
			return tt.Color(theme.ColorNamePrimary, fyne.CurrentApp().Settings().ThemeVariant())
		}
		variant := fyne.CurrentApp().Settings().ThemeVariant()
		require.Equal(t, theme.Color(theme.ColorNameError), bar(0))
		require.Equal(t, fyne.CurrentApp().Settings().Theme().Color(theme.ColorNameSuccess, variant), bar(1))
	})
}

// Pause holds reads and writes, resume lets them go on, cancel interrupts
// the job (nothing reads safe to format), and History resumes it to the
// end.
func TestPauseResumeCancelAndResumeFromHistory(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 6_000_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.offload.mhl.SetSelected("MHL v1.1")
		h.a.Prepare(Preparation{Name: "pause", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1},
			Throttle: 1e6, Start: true})
	})
	h.eventually("copying", func() bool {
		if h.a.running.run == nil || h.a.running.run.job == nil {
			return false
		}
		for _, c := range h.a.running.run.job.Snapshot().Cards {
			if c.BytesCopied == 0 {
				return false
			}
		}
		return true
	})
	copied := func() (n int64) {
		h.locked(func() {
			for _, c := range h.a.running.run.job.Snapshot().Cards {
				n += c.BytesCopied
			}
		})
		return n
	}
	shortcut(h, shortcutPause)
	h.locked(func() {
		require.True(t, h.a.running.run.pause.Paused())
		require.Equal(t, "Resume (Ctrl+P)", h.a.running.pauseBtn.Text)
		require.Equal(t, "paused", h.a.running.rateBig.Text)
		for _, p := range h.a.running.panels {
			require.True(t, strings.HasSuffix(p.state.Text, "(paused)"), p.state.Text)
		}
	})
	// A block that passed the pause before it was set still finishes
	// (the 1 MB/s throttle holds a 1 MiB block up to ~1 s): wait until
	// the reader of every card still copying is held by the pause (the
	// engine asks the limiter before each block it reads), then nothing
	// moves.
	h.eventually("every card still copying held by the pause", func() bool {
		run := h.a.running.run
		for i, c := range run.job.Snapshot().Cards {
			if c.BytesCopied < c.Bytes && !run.pause.ReadHeld(i) {
				return false
			}
		}
		return true
	})
	before := copied()
	time.Sleep(time.Second)
	require.Equal(t, before, copied(), "nothing is copied while paused")
	// A paused card shows "Paused": no rate, no TB/hour, no estimate, its
	// destinations no rate either, after the engine's progress came in
	// while paused (its model says paused too, its estimates unknown).
	h.eventually("the engine's model paused", func() bool {
		p := h.a.running.run.job.Snapshot()
		return p.Job.Paused && !p.Job.ETA.Safe.Known
	})
	h.locked(func() {
		v := h.a.running
		v.render()
		for _, p := range v.panels {
			if p.last.Done {
				continue
			}
			require.Equal(t, "Paused", p.rate.Text, p.last.Label)
			for _, r := range p.dests.rows {
				require.Equal(t, "paused", r.rate.Text, p.last.Label)
			}
		}
		require.Equal(t, "-", v.etaBig.Text)
		require.Equal(t, "no estimate while paused", v.etaCap.Text)
		require.False(t, v.tbBox.Visible())
	})
	shortcut(h, shortcutPause)
	h.eventually("copying again", func() bool {
		var n int64
		for _, c := range h.a.running.run.job.Snapshot().Cards {
			n += c.BytesCopied
		}
		return n > before
	})

	h.locked(func() { h.a.running.cancel() })
	h.waitJob()
	require.Equal(t, []string{stateInterrupted, stateInterrupted}, h.panelStates())
	v := h.view()
	require.Equal(t, "interrupted", v.Summary.State)

	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool {
		return h.a.history.open != nil && buttonIn(h.a.history.detail, "Resume job") != nil
	})
	h.locked(func() {
		require.Contains(t, texts(h.a.history.detail), "Interrupted: NOT safe to format (resume the job)")
		test.Tap(buttonIn(h.a.history.detail, "Resume job"))
	})
	h.eventually("the resumed job to end safe to format", func() bool {
		r := h.a.running.run
		if r == nil || !r.finished() || h.a.offload.busy {
			return false
		}
		for _, p := range h.a.running.panels {
			if p.state.Text != stateSafe {
				return false
			}
		}
		return true
	})
	require.Equal(t, v.JobID, h.view().JobID, "the same job, resumed")
	// The resumed job wrote the hash lists the job started with (MHL
	// v1.1), not the default ASC MHL.
	for _, c := range cards[:2] {
		cardDir := filepath.Join(d1, "pause", filepath.Base(c.Path))
		ents, err := os.ReadDir(cardDir)
		require.NoError(t, err)
		var lists []string
		for _, e := range ents {
			if e.Name() == "ascmhl" || strings.HasSuffix(e.Name(), ".mhl") {
				lists = append(lists, e.Name())
			}
		}
		require.Len(t, lists, 1, "hash lists in %s: %v", cardDir, lists)
		require.True(t, strings.HasSuffix(lists[0], ".mhl"), "MHL v1.1 in %s, got %v", cardDir, lists)
	}
}

// Errors before the start reach the person in words.
func TestStartErrorsAreShownInWords(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	h := newHarness(t, nil)
	h.locked(func() { h.a.offload.start() })
	h.locked(func() {
		require.Equal(t, "Add at least one card (cards offloaded before are left out unless \"Copy it again\" is checked).", h.a.offload.status.Text)
	})
	// A destination inside a card is refused the moment it is added, in
	// the engine's words, and never reaches the form's list.
	inside := mkdir(t, filepath.Join(cards[0].Path, "copies"))
	h.locked(func() {
		h.a.offload.status.SetText("")
		h.a.Prepare(Preparation{Cards: []string{cards[0].Path}, Dests: []string{inside}, Start: true})
	})
	h.eventually("the error", func() bool { return h.a.offload.status.Text != "" && !h.a.offload.busy })
	h.locked(func() {
		require.Contains(t, h.a.offload.status.Text, "destination "+inside+" is inside the card")
		require.Empty(t, h.a.offload.dests)
		require.Nil(t, h.a.running.run)
	})
	// A folder inside a card is not a second card; a card is not a
	// destination: both refused at add time, with the reason.
	h.locked(func() {
		v := h.a.offload
		v.addCard(filepath.Join(cards[0].Path, "CLIPS"))
		require.Contains(t, v.status.Text, "overlap (one is inside the other)")
		require.Len(t, v.cards, 1)
		v.addDest(cards[0].Path)
		require.Contains(t, v.status.Text, "is the card "+cards[0].Path+" itself")
		require.Empty(t, v.dests)
		d := mkdir(t, filepath.Join(dir, "raid"))
		v.addDest(d)
		require.Len(t, v.dests, 1, "a folder apart from the cards is taken")
		v.addCard(d)
		require.Contains(t, v.status.Text, "is the card")
		require.Len(t, v.cards, 1)
	})
}

// Detect cards adds the removable volumes the machine reports; the plan's
// topology is saved as a preset that loads back.
func TestDetectCardsAndSavePreset(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, func(c *Config) {
		c.Discover = func(context.Context) ([]devices.Volume, error) {
			return []devices.Volume{
				{Mount: "/", Internal: true},
				{Mount: cards[0].Path, Removable: true, Bus: "usb3.2-gen2", Media: "cfast2"},
				{Mount: d1, Removable: true}, // already a destination
			}, nil
		}
	})
	h.locked(func() {
		h.a.offload.addDest(d1)
		test.Tap(buttonIn(h.a.offload.content, "Detect cards"))
	})
	h.eventually("the detected card, scanned", func() bool {
		v := h.a.offload
		return len(v.cards) == 1 && !v.cards[0].Scanning && v.lastPlan.topo != nil && v.lastSeq == v.planSeq
	})
	h.locked(func() {
		require.Equal(t, cards[0].Path, h.a.offload.cards[0].Path)
		require.Equal(t, "A001", h.a.offload.cards[0].Label)
		require.Equal(t, cards[0].Files, h.a.offload.cards[0].Files)
		require.Contains(t, texts(h.a.offload.planBox), "Plan from the volumes this machine reports")
		test.Tap(buttonIn(h.a.offload.content, "Save preset"))
	})
	h.eventually("the preset saved", func() bool { return strings.HasPrefix(h.a.offload.presetLabel.Text, "Saved the preset to ") })
	h.mu.Lock()
	saved := h.saved["dit-topology.yaml"]
	h.mu.Unlock()
	topo, err := plan.LoadTopology(saved)
	require.NoError(t, err)
	require.Len(t, topo.Sources, 1)
	require.Equal(t, cards[0].Path, topo.Sources[0].Path)
	require.Len(t, topo.Destinations, 1)
	h.locked(func() { h.a.offload.loadPreset(saved) })
	h.eventually("the preset's plan", func() bool {
		v := h.a.offload
		return v.preset != nil && v.lastSeq == v.planSeq && v.lastPlan.res != nil
	})
	h.locked(func() { require.Contains(t, texts(h.a.offload.planBox), "Plan from the preset dit-topology.yaml") })
}

// gateFS holds every open of a file under dir until gate is closed: a
// card whose copy cannot end before the test lets it. The first such open
// closes opening: the job runs (the engine copies the card).
type gateFS struct {
	fsys.FS
	dir     string
	gate    chan struct{}
	opening chan struct{}
	once    *sync.Once
}

func (f gateFS) Open(name string) (fsys.File, error) {
	if strings.HasPrefix(name, f.dir+string(filepath.Separator)) {
		f.once.Do(func() { close(f.opening) })
		<-f.gate
	}
	return f.FS.Open(name)
}

// A card inserted while the job runs: "Add card" in the running view asks
// for its folder (its path typed); it gets its own panel and ends safe to format like the
// others.
func TestAddCardWhileTheJobRuns(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 2_000_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	// The first card's files open only once the second card has joined,
	// so the job is still running when it is added, however slow the
	// machine.
	gfs := gateFS{FS: fsys.OS{}, dir: cards[0].Path, gate: make(chan struct{}), opening: make(chan struct{}), once: &sync.Once{}}
	var release sync.Once
	open := func() { release.Do(func() { close(gfs.gate) }) }
	h := newHarness(t, func(c *Config) {
		c.FS = gfs
	})
	t.Cleanup(open) // before the harness cancels the job and waits for it
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "late", Cards: []string{cards[0].Path}, Dests: []string{d1}, Throttle: 2e6, Start: true})
	})
	// The engine copies the first card: the job runs (a card can join a
	// job only once it runs, not while the app is still starting it).
	await(t, "the job to copy the first card", gfs.opening)
	h.eventually("the running view", func() bool { return h.a.running.active() })
	h.locked(func() {
		test.Tap(h.a.running.addBtn)
		// The card's path typed into the dialog (no folder dialog).
		ask := h.a.win.Canvas().Overlays().Top()
		require.NotNil(t, ask, "the dialog that asks for the card")
		var entry *widget.Entry
		walk(ask, func(o fyne.CanvasObject) {
			if e, ok := o.(*widget.Entry); ok && entry == nil {
				entry = e
			}
		})
		require.NotNil(t, entry)
		test.Type(entry, cards[1].Path)
		test.Tap(buttonIn(ask, "Add card"))
		require.Nil(t, h.a.win.Canvas().Overlays().Top(), "the dialog closed")
	})
	h.eventually("the added card's panel", func() bool { return len(h.a.running.panels) == 2 })
	open()
	h.waitJob()
	// The job has ended and the running view shows both cards' verdicts.
	require.Equal(t, []string{stateSafe, stateSafe}, h.panelStates())
	v := h.view()
	require.Len(t, v.Cards, 2)
	require.Equal(t, "A002", v.Cards[1].Label)
}

// The form's destinations and settings are remembered when a job starts
// and come back at the next launch (the same preferences, a new app);
// a destination no longer there is left out.
func TestFormRememberedAcrossLaunches(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	raid, shuttle, gone := mkdir(t, filepath.Join(dir, "raid")), mkdir(t, filepath.Join(dir, "shuttle")), mkdir(t, filepath.Join(dir, "gone"))
	h := newHarness(t, nil)
	h.locked(func() {
		v := h.a.offload
		v.addDest(raid)
		v.addDest(shuttle)
		v.addDest(gone)
		v.setDestRun(1, true)
		for _, c := range v.hashes {
			c.SetChecked(c.Text == "xxh128" || c.Text == "sha1")
		}
		v.verify.SetSelected(verifySourceText)
		v.verifyAll.SetChecked(true)
		v.remember()
	})
	// The first app's destinations are read in the background; they
	// are drawn before the second app is made (two apps draw through
	// Fyne's shared caches, each under its own lock).
	h.a.bg.Wait()
	require.NoError(t, os.Remove(gone))
	var a2 *App
	h.locked(func() { a2 = New(h.a.fa, h.a.cfg) })
	t.Cleanup(a2.Close)
	v2 := a2.offload
	a2.locked(func() {
		require.Len(t, v2.dests, 2, "the destinations still there")
		require.Equal(t, raid, v2.dests[0].Path)
		require.False(t, v2.dests[0].Then)
		require.Equal(t, shuttle, v2.dests[1].Path)
		require.True(t, v2.dests[1].Then, "the second run's destination stays in the second run")
		var hashes []string
		for _, c := range v2.hashes {
			if c.Checked {
				hashes = append(hashes, c.Text)
			}
		}
		require.Equal(t, []string{"sha1", "xxh128"}, hashes)
		require.Equal(t, verifySourceText, v2.verify.Selected)
		require.True(t, v2.verifyAll.Checked)
	})
}

// Folders dropped on the window: a camera card becomes a card, another
// folder a destination, each checked as if added by hand; a file is
// refused in words.
func TestDropFolders(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	file := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	h := newHarness(t, nil)
	h.locked(func() {
		v := h.a.offload
		v.dropped([]string{cards[0].Path, raid, file})
		require.Len(t, v.cards, 1)
		require.Equal(t, cards[0].Path, v.cards[0].Path)
		require.Len(t, v.dests, 1)
		require.Equal(t, raid, v.dests[0].Path)
		require.Contains(t, v.status.Text, file+" is not a folder")
		// A folder inside the card dropped: refused as a card would be.
		v.dropped([]string{filepath.Join(cards[0].Path, "CLIPS")})
		require.Len(t, v.cards, 1)
		require.Len(t, v.dests, 1)
		require.Contains(t, v.status.Text, "inside")
	})
}

// A demo (dit-gui --demo, make gui-shot) fills the form with its own
// destinations only, not the remembered ones beside them, and leaves the
// remembered form as it was for the next real launch.
func TestDemoFormIsNotRemembered(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	raid, demo := mkdir(t, filepath.Join(dir, "raid")), mkdir(t, filepath.Join(dir, "demo-dest"))
	h := newHarness(t, nil)
	h.locked(func() {
		// The form as a launch restores it: a remembered destination.
		h.a.offload.addDest(raid)
		h.a.offload.remember()
		h.a.Prepare(Preparation{Name: "demo", Cards: []string{cards[0].Path}, Dests: []string{demo}, Ephemeral: true, Start: true})
		require.Len(t, h.a.offload.dests, 1, "only the demo's destination")
		require.Equal(t, demo, h.a.offload.dests[0].Path)
	})
	h.waitJob()
	require.Equal(t, []string{stateSafe}, h.panelStates(), "the demo's job ran")
	require.Equal(t, []string{raid}, h.a.fa.Preferences().StringList(prefDests), "the remembered form is the user's, not the demo's")
}
