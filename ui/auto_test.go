package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/watch"
)

// watchHarness is a harness whose Auto-offload watches the folder vols
// (its subfolders are volumes), every 20 ms.
func watchHarness(t *testing.T, vols string, mod func(*Config)) *harness {
	return newHarness(t, func(c *Config) {
		c.Volumes = watch.Dir(vols)
		c.WatchInterval = 20 * time.Millisecond
		if mod != nil {
			mod(c)
		}
	})
}

// logHas waits until the auto-offload log has a line holding each of
// parts.
func (h *harness) logHas(what string, parts ...string) string {
	h.t.Helper()
	var found string
	h.eventually(what, func() bool {
		for _, l := range h.a.auto.lines {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				found = l
				return true
			}
		}
		return false
	})
	return found
}

// watchedJob waits for the job the watch started (the running view's)
// to end, and for the running view to show its verdicts.
func (h *harness) watchedJob() *jobRun {
	h.t.Helper()
	var run *jobRun
	h.eventually("the watch to start a job", func() bool {
		run = h.a.running.run
		return run != nil
	})
	await(h.t, "the watched job to end", run.done)
	h.eventually("the running view to show the job's end", func() bool {
		return len(h.a.running.panels) > 0 && h.a.running.run.modelOrNil().view().Finished
	})
	return run
}

// mount "inserts" a card: its folder appears in the watched folder at
// once (a rename).
func mount(t *testing.T, card, vols string) string {
	t.Helper()
	p := filepath.Join(vols, filepath.Base(card))
	require.NoError(t, os.Rename(card, p))
	return p
}

// notesUntil collects desktop notifications until one whose title holds
// want.
func (h *harness) notesUntil(want string) []string {
	h.t.Helper()
	var titles []string
	for {
		n := await(h.t, "a desktop notification "+want, h.notes)
		titles = append(titles, n.Title)
		if strings.Contains(n.Title, want) {
			return titles
		}
	}
}

// The switch starts a watch with the Offload tab's settings: a folder
// that is not a card is ignored (the log says why); a card that appears
// in the watched folder is offloaded like any job (its panel ends safe to
// format), ejected when free (the eject checkbox) through the app's
// Ejector, with desktop notifications; Start is off meanwhile.
func TestAutoOffloadOffloadsACardThatAppearsAndIgnoresOtherVolumes(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 400_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	notes := mkdir(t, filepath.Join(vols, "NOTES"))
	require.NoError(t, os.WriteFile(filepath.Join(notes, "todo.txt"), []byte("call the DOP"), 0o644))
	h := watchHarness(t, vols, nil)
	addDestNow(h, d1)

	h.locked(func() {
		tapCheck(h.a.auto.eject)
		tapCheck(h.a.auto.on)
		require.True(t, h.a.auto.running())
		require.True(t, h.a.offload.startBtn.Disabled(), "no job by hand while auto-offload is on")
		require.True(t, h.a.auto.from.Disabled())
	})
	line := h.logHas("NOTES ignored", "NOTES: ignored: ")
	require.Contains(t, line, "["+notes+"]")
	h.eventually("the watch's status", func() bool { return strings.HasPrefix(h.a.auto.status.Text, "On: cards go to "+d1) })
	h.locked(func() { require.Contains(t, h.a.auto.status.Text, "ejected when free") })
	h.logHas("the watch's settings in the log", "watching mounted volumes: each camera card is offloaded to "+d1, "ejected when it is free")

	a001 := mount(t, cards[0].Path, vols)
	h.logHas("A001 offloaded", "A001: offload (job ", "a CLIPS folder")
	run := h.watchedJob()
	require.True(t, run.watched)
	require.Equal(t, []string{stateSafe}, h.panelStates())
	v := h.view()
	require.Equal(t, a001, v.Cards[0].Path)

	// Ejected when free, through the app's Ejector; shown on the card.
	ej := await(t, "the eject", h.ejector.ch)
	require.Equal(t, a001, ej.Path)
	h.logHas("the eject in the log", "A001: ejected", "verified on every destination")
	h.eventually("the eject on the card", func() bool {
		return strings.HasPrefix(h.a.running.panels[0].ejectL.Text, "Ejected: ")
	})
	h.locked(func() { require.True(t, h.a.running.panels[0].ejectBtn.Disabled(), "ejected already") })
	require.NoError(t, h.cat.Flush())
	recs, err := h.cat.Cards(v.JobID)
	require.NoError(t, err)
	require.Contains(t, recs[0].Eject, "ejected")

	// Desktop notifications: the card safe to format, the job's end.
	titles := h.notesUntil("done: 1 of 1 card(s) safe to format")
	require.Contains(t, strings.Join(titles, "\n"), "card A001 verified: safe to format")

	require.Empty(t, h.a.banner.items, "nothing needed the DIT")

	h.locked(func() {
		tapCheck(h.a.auto.on)
		require.False(t, h.a.auto.running())
		require.False(t, h.a.offload.startBtn.Disabled())
		require.True(t, strings.HasPrefix(h.a.auto.status.Text, "Off"), h.a.auto.status.Text)
	})
}

// A preset file: its destinations and eject: true; a volume named like a
// destination is never a card.
func TestAutoOffloadWithAPresetFile(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	blade := mkdir(t, filepath.Join(vols, "RAID"))
	preset := filepath.Join(dir, "set.yaml")
	require.NoError(t, os.WriteFile(preset, []byte("destinations: [vols/RAID]\nhashes: md5\nname: \"Day {date}\"\neject: true\nlayout: \"{card}\"\n"), 0o644))
	h := watchHarness(t, vols, func(c *Config) {
		c.OpenFile = func(_ string, done func(r io.ReadCloser, path string)) {
			f, err := os.Open(preset)
			require.NoError(t, err)
			done(f, preset)
		}
	})
	h.locked(func() { test.Tap(h.a.auto.presetBtn) })
	h.eventually("the preset read", func() bool { return h.a.auto.presetPath == preset && h.a.auto.eject.Checked })
	h.locked(func() {
		require.Equal(t, autoFromPreset, h.a.auto.from.Selected)
		tapCheck(h.a.auto.on)
	})
	h.logHas("the destination ignored", "RAID: ignored: a destination of the preset")
	mount(t, cards[1].Path, vols)
	h.watchedJob()
	require.Equal(t, []string{stateSafe}, h.panelStates())
	v := h.view()
	require.True(t, strings.HasPrefix(v.Name, "Day "), v.Name)
	_, err := os.Stat(filepath.Join(blade, "A002"))
	require.NoError(t, err, "the preset's layout")
	require.Equal(t, "A002", await(t, "the eject", h.ejector.ch).Label)
}

// The Eject button is disabled until the card is free (its copy held),
// then asks, and ejects through the app's Ejector; the result is shown
// on the card. A failed eject raises the banner.
func TestEjectButtonOnlyOnceTheCardIsFree(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 400_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	card := filepath.Join(vols, "A001")
	gfs := gateFS{FS: fsys.OS{}, dir: card, gate: make(chan struct{}), opening: make(chan struct{}), once: &sync.Once{}}
	var release sync.Once
	open := func() { release.Do(func() { close(gfs.gate) }) }
	h := watchHarness(t, vols, func(c *Config) { c.FS = gfs })
	t.Cleanup(open)
	addDestNow(h, d1)
	h.locked(func() { tapCheck(h.a.auto.on) })
	h.eventually("the watch", func() bool { return h.a.auto.w != nil })
	mount(t, cards[0].Path, vols)
	await(t, "the card's copy to start", gfs.opening)
	h.eventually("the card's panel", func() bool { return len(h.a.running.panels) == 1 })
	h.locked(func() {
		p := h.a.running.panels[0]
		require.True(t, p.ejectBtn.Visible())
		require.True(t, p.ejectBtn.Disabled(), "not free: the card is being read")
		test.Tap(p.ejectBtn)
		require.Nil(t, h.a.win.Canvas().Overlays().Top(), "no eject asked")
	})
	open()
	h.watchedJob()
	select {
	case v := <-h.ejector.ch:
		t.Fatalf("ejected %s without being asked", v.Path)
	default:
	}
	h.ejector.mu.Lock()
	h.ejector.err = fmt.Errorf("udisksctl unmount -b /dev/sdz1: target is busy")
	h.ejector.mu.Unlock()
	h.locked(func() {
		p := h.a.running.panels[0]
		require.False(t, p.ejectBtn.Disabled(), "verified: it may be ejected")
		test.Tap(p.ejectBtn)
		require.Contains(t, h.a.running.ejectMsg, "It may be removed from the reader:\n"+card)
		tapDialogButton(t, h, "Eject")
	})
	require.Equal(t, card, await(t, "the eject", h.ejector.ch).Path)
	h.eventually("the failed eject on the card and the banner", func() bool {
		return strings.HasPrefix(h.a.running.panels[0].ejectL.Text, "NOT ejected: ") && strings.Contains(h.a.banner.text(), "was not ejected: udisksctl")
	})
	h.locked(func() {
		p := h.a.running.panels[0]
		require.Equal(t, widget.DangerImportance, p.ejectL.Importance)
		require.False(t, p.ejectBtn.Disabled(), "it may be tried again")
	})
	h.logHas("the failed eject in the log", "A001: eject failed", "target is busy")

	// Again, and it works.
	h.ejector.mu.Lock()
	h.ejector.err = nil
	h.ejector.mu.Unlock()
	h.locked(func() {
		test.Tap(h.a.running.panels[0].ejectBtn)
		tapDialogButton(t, h, "Eject")
	})
	await(t, "the second eject", h.ejector.ch)
	h.eventually("the eject on the card", func() bool {
		return strings.HasPrefix(h.a.running.panels[0].ejectL.Text, "Ejected: ")
	})
}

// tapCheck taps a check box on its box (a check taller than its content,
// in a row with wrapped text, takes taps on its content only).
func tapCheck(c *widget.Check) {
	test.TapAt(c, fyne.NewPos(8, c.Size().Height/2))
}

// tapDialogButton taps the button labelled text in the dialog on top.
func tapDialogButton(t *testing.T, h *harness, text string) {
	t.Helper()
	top := h.a.win.Canvas().Overlays().Top()
	require.NotNil(t, top, "a dialog")
	var b *widget.Button
	walk(top, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == text {
			b = x
		}
	})
	require.NotNil(t, b, "the dialog's %q button", text)
	test.Tap(b)
}

// A card removed while it is copied, and a card that fails: the banner
// says so until dismissed; a desktop notification tells the failure.
func TestBannerWhenACardIsRemovedOrFails(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 400_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	card := filepath.Join(vols, "A001")
	gfs := gateFS{FS: fsys.OS{}, dir: card, gate: make(chan struct{}), opening: make(chan struct{}), once: &sync.Once{}}
	var release sync.Once
	open := func() { release.Do(func() { close(gfs.gate) }) }
	h := watchHarness(t, vols, func(c *Config) { c.FS = gfs })
	t.Cleanup(open)
	addDestNow(h, d1)
	h.locked(func() {
		tapCheck(h.a.auto.on)
		require.Equal(t, "", h.a.banner.text())
	})
	h.eventually("the watch", func() bool { return h.a.auto.w != nil })
	mount(t, cards[0].Path, vols)
	await(t, "the card's copy to start", gfs.opening)
	require.NoError(t, os.Rename(card, filepath.Join(dir, "pulled")))
	h.logHas("the card removed", "A001: removed (job ")
	h.eventually("the banner", func() bool { return strings.Contains(h.a.banner.text(), "Card A001 was removed while it was copied") })
	open()
	h.watchedJob()
	require.Equal(t, []string{stateFailed}, h.panelStates())
	h.eventually("the card's failure on the banner", func() bool {
		return strings.Contains(h.a.banner.text(), "card A001 FAILED: NOT safe to format")
	})
	titles := h.notesUntil("card A001 FAILED")
	require.NotEmpty(t, titles)
	h.locked(func() {
		require.True(t, h.a.banner.box.Visible())
		test.Tap(h.a.banner.dismiss)
		require.False(t, h.a.banner.box.Visible())
		require.Equal(t, "", h.a.banner.text())
	})
}

// A job started by hand with a flipped byte: the banner says the card
// failed.
func TestBannerOnACardFailure(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, func(c *Config) {
		c.FS = flipFS{FS: fsys.OS{}, match: filepath.Join("d1", "flip", "A001", "CLIPS")}
	})
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "flip", Cards: []string{cards[0].Path}, Dests: []string{d1}, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateFailed}, h.panelStates())
	h.eventually("the banner", func() bool {
		return strings.Contains(h.a.banner.text(), "job flip (#1): card A001 FAILED: NOT safe to format")
	})
	var banner string
	h.locked(func() { banner = h.a.banner.text() })
	require.Equal(t, 1, strings.Count(banner, "NOT safe to format"), "the banner says it once, then why: %q", banner)
	h.notesUntil("job flip (#1) FAILED: 0 of 1 card(s) safe to format")
}

// The job's notifications go to the webhook of the notify: config too.
func TestNotificationsGoToTheConfiguredWebhook(t *testing.T) {
	kinds := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			Kind string `json:"kind"`
		}
		json.NewDecoder(r.Body).Decode(&p)
		kinds <- p.Kind
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("notify:\n  webhook:\n    url: "+srv.URL+"\n"), 0o644))
	cards := genCards(t, dir, 200_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, func(c *Config) { c.NotifyConfig = cfg })
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "hook", Cards: []string{cards[0].Path}, Dests: []string{d1}, Start: true})
	})
	h.waitJob()
	var got []string
	for {
		k := await(t, "the job_done webhook", kinds)
		got = append(got, k)
		if k == string(notify.JobDone) {
			break
		}
	}
	require.Equal(t, []string{string(notify.SafeToFormat), string(notify.JobDone)}, got)
}

// A preset with a topology file: the watch's job is scheduled by the bus
// budget as dit watch's (its plan recorded with the job), and a card that
// joins the running job is planned with its entry of the file ("A002
// added"), the budget shared anew.
func TestAutoOffloadPlansByThePresetsTopology(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 4_000_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	raid := mkdir(t, filepath.Join(dir, "raid"))
	topo := filepath.Join(dir, "set.yaml")
	require.NoError(t, os.WriteFile(topo, []byte(fmt.Sprintf(`
buses:
  - {name: usb-shared, kind: usb3.0}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-shared}
  - {name: A002, media: cfast2, bus: usb-shared}
destinations:
  - {name: raid, path: %s, bus: tb-1, kind: nvme-raid-tb3}
`, raid)), 0o644))
	preset := filepath.Join(dir, "watch.yaml")
	require.NoError(t, os.WriteFile(preset, []byte(fmt.Sprintf("destinations: [%s]\nhashes: md5\nname: day01\ntopology: %s\n", raid, topo)), 0o644))
	h := watchHarness(t, vols, nil)
	h.locked(func() {
		// Each card read at 2 MB/s at most: A001 still copies when A002
		// arrives.
		h.a.Prepare(Preparation{Throttle: 2e6})
		h.a.AutoOffload(preset, false)
	})
	mount(t, cards[0].Path, vols)
	h.logHas("A001 offloaded", "A001: offload (job ")
	mount(t, cards[1].Path, vols)
	h.logHas("A002 joins", "A002: join (job ")
	run := h.watchedJob()
	require.Equal(t, []string{stateSafe, stateSafe}, h.panelStates())
	require.NoError(t, h.cat.Flush())
	plans, err := h.cat.Plans(run.job.ID())
	require.NoError(t, err)
	var reasons []string
	for _, p := range plans {
		reasons = append(reasons, p.Reason)
	}
	require.NotEmpty(t, plans, "the job is planned by the preset's topology")
	require.Contains(t, reasons, "A002 added", "%v", reasons)
	for _, p := range plans {
		if p.Reason != "A002 added" {
			continue
		}
		var labels []string
		for _, c := range p.Cards {
			labels = append(labels, c.Name)
		}
		require.Contains(t, labels, "A002", "the joined card in the plan made when it joined")
	}
}

// A preset whose topology file cannot be read stops the watch, saying
// which file and why.
func TestAutoOffloadPresetWithABadTopology(t *testing.T) {
	dir := t.TempDir()
	vols := mkdir(t, filepath.Join(dir, "vols"))
	raid := mkdir(t, filepath.Join(dir, "raid"))
	preset := filepath.Join(dir, "watch.yaml")
	missing := filepath.Join(dir, "nope.yaml")
	require.NoError(t, os.WriteFile(preset, []byte(fmt.Sprintf("destinations: [%s]\ntopology: %s\n", raid, missing)), 0o644))
	h := watchHarness(t, vols, nil)
	h.locked(func() { h.a.AutoOffload(preset, false) })
	h.eventually("the watch stopped", func() bool { return !h.a.auto.running() && strings.Contains(h.a.auto.status.Text, missing) })
	h.locked(func() { require.Contains(t, h.a.auto.status.Text, "topology") })
}
