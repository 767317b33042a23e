package ui

import (
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
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// A cascade card, from events and summaries: copying, then card free
// (card_free), its second run on a row of its own, and safe to format
// only once a summary says so; a summary read while the second run still
// runs is not its verdict.
func TestCascadeCardGoesCopyingFreeThenSafeOnlyFromTheSummary(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001", Bytes: 100, ReadBack: live.ReadBack{VerifyTotal: 100}}}}, []string{"/Volumes/A001"})
	m.setCascade([]string{"/d1"}, []string{"/d2"})
	c := func() cardView { return m.view().Cards[0] }
	notSafe := func(when string) {
		t.Helper()
		require.False(t, c().Safe, when)
		require.NotEqual(t, stateSafe, c().State(), when)
	}
	require.True(t, c().Cascade)
	require.Equal(t, stateWaiting, c().State())
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying", Bytes: 100, BytesCopied: 40, ReadBack: live.ReadBack{VerifyTotal: 100}}}}})
	require.Equal(t, stateCopying, c().State())
	require.Nil(t, c().Then)

	// The first run ends verified: finishing until card_free.
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateVerified})
	require.Equal(t, stateFinishing, c().State())
	// The summary read then (the first run done, the second not) says
	// card free, not safe: it is not the card's verdict yet.
	m.applySummary(&offload.Summary{Then: []string{"/d2"}, Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.CardFree, CardFree: true, FreeAt: t0.Add(2 * time.Second), Verdict: "Card free (card free since 09:30:02): second run not done: NOT safe to format yet"}, State: "verified", FirstRun: verdict.Verified}}}, false)
	require.False(t, c().HaveSummary)
	m.apply(offload.Event{Type: offload.EvCardFree, Card: "A001", Path: "/Volumes/A001", Time: t0.Add(2 * time.Second)})
	require.Equal(t, stateFree, c().State())
	require.True(t, c().Free)
	require.Equal(t, t0.Add(2*time.Second), c().FreeAt)
	notSafe("card free")

	// The second run: its own progress (Hop 2), apart from the first run.
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(3 * time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "done", Bytes: 100, BytesCopied: 100, ReadBack: live.ReadBack{VerifyTotal: 100, BytesVerified: 100}},
		{Label: "A001", Hop: 2, Phase: "copying", Bytes: 100, BytesCopied: 30, Rate: 30, ETA: live.Times{Safe: live.In(5)}, ETASeconds: live.In(5), ReadBack: live.ReadBack{VerifyTotal: 100}}}}})
	v := m.view()
	require.Len(t, v.Cards, 1, "the second run is the card's, not a card of its own")
	require.NotNil(t, v.Cards[0].Then)
	require.Equal(t, stateCopying, v.Cards[0].Then.runText())
	require.InDelta(t, 0.15, v.Cards[0].Then.Fraction(), 1e-9)
	require.Equal(t, 1.0, v.Cards[0].Fraction(), "the first run is complete")
	require.Equal(t, stateFree, v.Cards[0].State())
	require.Equal(t, live.In(5), v.Cards[0].Then.Prog.ETA.Safe, "the second run's estimate is the model's")
	require.True(t, strings.HasSuffix(runFigures(v.Cards[0].Then.runState, true, false), "; safe in 5s"), "a second run's row says when the card is safe, not free")
	notSafe("second run copying")

	// A summary claiming safe while the second run runs is not taken.
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, CardFree: true, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified"}}}, false)
	notSafe("a summary read while the second run runs")

	// The second run ends verified: still not safe until the summary.
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", Hop: 2, State: offload.StateVerified})
	require.Equal(t, runDone, m.view().Cards[0].Then.runText())
	require.Equal(t, stateFree, c().State())
	notSafe("second run done, no summary")
	m.applySummary(&offload.Summary{Then: []string{"/d2"}, Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, CardFree: true, SafeToFormat: true, FreeAt: t0.Add(2 * time.Second), SafeAt: t0.Add(9 * time.Second), Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified, Then: &offload.HopSummary{Status: verdict.Verified, State: "verified"}}}}, false)
	require.Equal(t, stateSafe, c().State())
	require.Equal(t, t0.Add(9*time.Second), c().SafeAt)
}

// A second run that fails: the card stays free (it may leave the
// reader) and reads the second run FAILED, never safe to format.
func TestCascadeSecondRunFailureIsNotSafe(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}}}, nil)
	m.setCascade([]string{"/d1"}, []string{"/d2"})
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateVerified})
	m.apply(offload.Event{Type: offload.EvCardFree, Card: "A001", Time: t0})
	m.apply(offload.Event{Type: offload.EvFile, Card: "A001", Hop: 2, Path: "CLIPS/C001.mov", State: offload.StateFailed,
		Copies: []offload.CopyState{{Dest: "/d2", State: offload.StateFailed, Error: "verify: xxh64 mismatch"}}})
	c := m.view().Cards[0]
	require.Empty(t, c.Failures, "the first run has no failure")
	require.Equal(t, []failure{{Path: "CLIPS/C001.mov", Why: "on /d2: verify: xxh64 mismatch"}}, c.Then.Failures)
	require.Equal(t, stateThenFailed, c.State())
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", Hop: 2, State: offload.StateFailed})
	m.applySummary(&offload.Summary{Then: []string{"/d2"}, Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, CardFree: true, Verdict: "Second run FAILED (card free since 09:30:00): NOT safe to format: keep the card"}, State: "verified", FirstRun: verdict.Verified, Then: &offload.HopSummary{Status: verdict.Failed, State: "failed", Failed: 1, Failures: []offload.Failure{{Path: "CLIPS/C001.mov", Error: "verify: xxh64 mismatch"}}}}}}, true)
	c = m.view().Cards[0]
	require.Equal(t, stateThenFailed, c.State())
	require.False(t, c.Safe)
	require.Len(t, c.Then.Failures, 1)
}

// addDestNow adds a destination and waits until it is looked at.
func addDestNow(h *harness, dirs ...string) {
	h.t.Helper()
	h.locked(func() {
		for _, d := range dirs {
			h.a.offload.addDest(d)
		}
	})
	h.eventually("the destinations looked at", func() bool {
		for _, d := range h.a.offload.dests {
			if d.Loading {
				return false
			}
		}
		return len(h.a.offload.dests) >= len(dirs)
	})
}

// destRun chooses the run of destination i as a person does: its radio
// buttons in the Destinations list.
func destRun(h *harness, i int, choice string) {
	h.t.Helper()
	var radios []*widget.RadioGroup
	walk(h.a.offload.destBox, func(o fyne.CanvasObject) {
		if r, ok := o.(*widget.RadioGroup); ok {
			radios = append(radios, r)
		}
	})
	require.Greater(h.t, len(radios), i)
	radios[i].SetSelected(choice)
}

// The Offload view builds the engine's Options from the runs chosen per
// destination (Dests, Then, ThenParallel) and refuses a second run
// without a first copy, in words.
func TestOffloadFormBuildsCascadeOptionsAndRefusesThenWithoutFirst(t *testing.T) {
	viewLogicOnly(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	d1, d2, d3 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2")), mkdir(t, filepath.Join(dir, "d3"))
	h := newHarness(t, nil)
	h.locked(func() { h.a.offload.addCard(cards[0].Path) })
	h.eventually("the card scanned", func() bool { return !h.a.offload.cards[0].Scanning })
	addDestNow(h, d1, d2, d3)

	// No second run: a plain job.
	h.locked(func() {
		s, msg := h.a.offload.jobSettings()
		require.Empty(t, msg)
		o := s
		require.Equal(t, []string{d1, d2, d3}, o.Dests)
		require.Empty(t, o.Then)
		require.True(t, h.a.offload.thenPar.Disabled(), "cards at once: only for a second run")
		require.False(t, h.a.offload.cascadeL.Visible())
	})
	// d2 in the second run, 2 cards at once.
	h.locked(func() {
		destRun(h, 1, destThenText)
		require.False(t, h.a.offload.thenPar.Disabled())
		h.a.offload.thenPar.SetSelected("2")
		s, msg := h.a.offload.jobSettings()
		require.Empty(t, msg)
		o := s
		require.Equal(t, []string{d1, d3}, o.Dests)
		require.Equal(t, []string{d2}, o.Then)
		require.Equal(t, 2, o.ThenParallel)
		require.Equal(t, []string{cards[0].Path}, o.Cards)
		require.True(t, h.a.offload.cascadeL.Visible())
		require.Contains(t, h.a.offload.cascadeL.Text, "second run copies the first copy on "+d1+" to "+d2)
	})
	// Every destination in the second run: refused, and said so.
	h.locked(func() {
		destRun(h, 0, destThenText)
		destRun(h, 2, destThenText)
		_, msg := h.a.offload.jobSettings()
		require.Equal(t, noFirstCopy, msg)
		require.Equal(t, noFirstCopy, h.a.offload.cascadeL.Text)
		require.Equal(t, widget.DangerImportance, h.a.offload.cascadeL.Importance)
		h.a.offload.start()
		require.Equal(t, noFirstCopy, h.a.offload.status.Text)
		require.True(t, h.a.offload.status.Visible())
		require.False(t, h.a.offload.busy)
		require.Nil(t, h.a.running.run, "nothing started")
		require.Contains(t, texts(h.a.offload.content), "needs at least one first-run destination")
	})
	// Back to a first copy: accepted again.
	h.locked(func() {
		destRun(h, 2, destFirstText)
		s, msg := h.a.offload.jobSettings()
		require.Empty(t, msg)
		require.Equal(t, []string{d3}, s.Dests)
		require.Equal(t, []string{d1, d2}, s.Then)
	})
}

// secondGateFS holds every open of a file under dir (a card's first
// copy, which only its second run reads) until gate is closed; the first
// such open closes opening.
type secondGateFS struct {
	fsys.FS
	dir     string
	gate    chan struct{}
	opening chan struct{}
	once    *sync.Once
}

func (f secondGateFS) Open(name string) (fsys.File, error) {
	if strings.HasPrefix(name, f.dir+string(filepath.Separator)) {
		f.once.Do(func() { close(f.opening) })
		<-f.gate
	}
	return f.FS.Open(name)
}

// A real cascade on folders: the first run copies the cards to d1, each
// card then reads "Card free - eject" (not safe to format) while its
// second run, on its own row, copies the first copy to d2; both end safe
// to format only with the summary; History shows both times and the
// second run's destinations and TB/hour.
func TestCascadeJobShowsCardFreeThenSafeToFormat(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	// The second run of A001 reads its first copy (d1/cascade/A001) only
	// once the test has seen the card free.
	gfs := secondGateFS{FS: fsys.OS{}, dir: filepath.Join(d1, "cascade", "A001"), gate: make(chan struct{}), opening: make(chan struct{}), once: &sync.Once{}}
	var release sync.Once
	open := func() { release.Do(func() { close(gfs.gate) }) }
	h := newHarness(t, func(c *Config) { c.FS = gfs })
	t.Cleanup(open)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "cascade", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1}, Then: []string{d2},
			ThenParallel: 1, Start: true})
	})
	await(t, "A001's second run to read its first copy", gfs.opening)
	h.eventually("A001 free in the running view", func() bool {
		return len(h.a.running.panels) == 2 && h.a.running.panels[0].state.Text == stateFree
	})
	v := h.view()
	a := v.Cards[0]
	require.True(t, a.Free)
	require.False(t, a.Safe)
	require.False(t, a.HaveSummary)
	require.Equal(t, cards[0].Path, a.Path)
	require.Equal(t, []string{d1}, v.Dests)
	require.Equal(t, []string{d2}, v.Then)
	h.locked(func() {
		p := h.a.running.panels[0]
		require.Equal(t, widget.HighImportance, p.state.Importance, "card free reads apart from safe to format")
		require.True(t, p.freeRow.Visible())
		require.True(t, p.second.box.Visible(), "the second run has its own row")
		require.Equal(t, "2nd run: from the first copy on "+d1+" to "+d2, p.second.title.Text)
		require.Equal(t, runDone, p.run1St.Text)
		require.Contains(t, p.free.Text, "It may leave the reader: do NOT format it")
		require.Equal(t, 1.0, p.bar.Value, "the first run's bar is full")
		require.Less(t, p.second.bar.Value, 1.0, "the second run is held")
		// (A002, not held, may be safe to format by now: A001 is not.)
		require.NotContains(t, texts(p.box), stateSafe)
		test.Tap(p.eject)
		require.Contains(t, h.a.running.ejectMsg, "It may be removed from the reader:\n"+cards[0].Path)
		require.Contains(t, h.a.running.ejectMsg, "Do NOT format it: its second run (to "+d2+") is not verified yet.")
	})
	open()
	h.waitJob()
	require.Equal(t, []string{stateSafe, stateSafe}, h.panelStates())
	v = h.view()
	for _, c := range v.Cards {
		require.True(t, c.Free, c.Label)
		require.True(t, c.Safe, c.Label)
		require.NotNil(t, c.Then, c.Label)
		require.True(t, c.Then.Done, c.Label)
		require.Equal(t, 1.0, c.Then.Fraction(), c.Label)
	}
	sum := v.Summary
	require.Equal(t, []string{d2}, sum.Then)
	for _, c := range sum.Cards {
		require.True(t, c.SafeToFormat && c.CardFree, c.Label)
		require.False(t, c.SafeAt.Before(c.FreeAt), c.Label)
		require.NotNil(t, c.Then)
		_, err := os.Stat(filepath.Join(d2, "cascade", c.Label))
		require.NoError(t, err, "the second copy of %s", c.Label)
	}
	var runText string
	h.locked(func() { runText = texts(h.a.running.content) })
	require.Contains(t, runText, "2 of 2 cards safe to format")
	require.Contains(t, runText, "Cascade: 2 of 2 cards free")

	// History: both times, the second run's destinations and TB/hour.
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() {
		_, tot := h.a.history.rows[0].text()
		require.Contains(t, tot, "2 of 2 cards safe to format (cascade: 2 free)")
		h.a.history.list.Select(0)
	})
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		d := texts(h.a.history.detail)
		require.Contains(t, d, "Cascade: first run to "+d1+"; second run (from the first copy on "+d1+") to "+d2)
		require.Contains(t, d, "Card free at ")
		require.Contains(t, d, "; safe to format at ")
		require.Contains(t, d, "2nd run (verified): ")
		require.Contains(t, d, "from the first copy "+filepath.Join(d1, "cascade", "A001"))
		require.Contains(t, d, filepath.Join(d2, "cascade", "A001")+": ")
		require.Contains(t, d, "TB/hour")
		require.Len(t, buttonsIn(h.a.history.detail, "MHL folder"), 4, "a folder per card on each run's destination")
	})
}
