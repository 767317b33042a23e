package ui

// The running view renders the engine's live model (package live) and
// computes none of its figures: what it shows is the model's rate,
// TB/hour and estimates as the model gave them ("unknown" when it cannot
// say), its stalls in the model's words, and the engine's verdicts.

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

const lCloud = "rclone:s3backup:shots/day01"

// lStall is the model's stall of A001's upload to lCloud.
func lStall() *live.Stall {
	return &live.Stall{Since: t0, Seconds: 40, Where: lCloud, Cause: "s3: connection refused", Retry: 3, Retries: 10}
}

// lSnap is the model's snapshot of a job of one card, A001, copying to
// /Volumes/RAID and uploaded to lCloud, at s seconds; stalled: the
// upload has not moved for 40 s (the model's estimates are unknown).
func lSnap(s int, stalled bool) *offload.Progress {
	at := t0.Add(time.Duration(s) * time.Second)
	card := offload.CardProgress{Label: "A001", Phase: live.Copying, Files: 12, FilesCopied: 5, FilesDone: 4, Bytes: 4e9, BytesCopied: 1.6e9, Rate: 0.52e9, Current: "CLIPS/A001C005.mov", ActiveSeconds: float64(s), TBPerHour: 0.288,
		ETA: live.Times{Copied: live.In(46), CardFree: live.In(58), Safe: live.In(125)}, ETASeconds: live.In(125),
		Dests: []offload.DestProgress{
			{Dest: gRaid, State: live.DestWriting, Bytes: 4e9, BytesWritten: 1.6e9, VerifyTotal: 4e9, BytesVerified: 1.2e9, Rate: 0.52e9},
			{Dest: lCloud, State: live.DestWriting, Bytes: 4e9, BytesWritten: 0.9e9, VerifyTotal: 4e9, Rate: 0.11e9},
		}, ReadBack: live.ReadBack{VerifyTotal: 8e9, BytesVerified: 1.2e9}}
	job := live.Job{At: at, Elapsed: float64(s), Bytes: 4e9, BytesCopied: 1.6e9, BytesRead: 1.6e9, Rate: 0.52e9, TBPerHour: 0.144, Cards: 1,
		ETA: live.Times{Copied: live.In(46), CardFree: live.In(125), Safe: live.In(125)}}
	if stalled {
		card.Rate, card.Dests[1].Rate, job.Rate = 0.03e9, 0, 0.03e9
		card.ETA, card.ETASeconds, job.ETA = live.Times{}, live.Estimate{}, live.Times{}
		card.Stall, card.Dests[1].Stall = lStall(), lStall()
		card.Retries, card.Dests[1].Retries, card.Dests[1].LastError = 3, 3, "s3: connection refused"
		job.Stalled = 1
	}
	return &offload.Progress{Job: job, Cards: []offload.CardProgress{card}}
}

// lRun is a running job of A001 fed the model's snapshot at 20 s.
func lRun(stalled bool) (*jobRun, *runModel) {
	m := newRunModel(9, "day01", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001", Files: 12, Bytes: 4e9, ReadBack: live.ReadBack{VerifyTotal: 8e9}}}}, []string{"/Volumes/A001"})
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(20 * time.Second), Progress: lSnap(20, stalled)})
	run := &jobRun{cancel: func() {}, done: make(chan struct{}), pause: newPauser(nil)}
	run.setModel(m)
	return run, m
}

// A run's figures are the model's rate and estimates as it gave them:
// "safe in" its safe estimate, in a cascade's first run "free in" too,
// "unknown" in its words when the model cannot say; nothing while paused.
func TestRunFiguresAreTheModels(t *testing.T) {
	safe, free := live.In(65), live.In(20)
	r := runState{Prog: offload.CardProgress{Phase: live.Copying, Rate: 0.52e9, ETA: live.Times{CardFree: free, Safe: safe}}}
	require.Equal(t, "0.520 GB/s; safe in "+safe.String(), runFigures(r, false, false))
	require.Equal(t, "0.520 GB/s; free in "+free.String()+", safe in "+safe.String(), runFigures(r, true, false))
	require.Equal(t, "0.520 GB/s; safe in 1m05s", runFigures(r, false, false))

	r.Prog.Hop = 2 // a cascade's second run: when the card is safe
	require.Equal(t, "0.520 GB/s; safe in 1m05s", runFigures(r, true, false))

	unknown := runState{Prog: offload.CardProgress{Phase: live.Verifying, Rate: 0.3e9}}
	require.Equal(t, "0.300 GB/s; safe: "+live.Estimate{}.String()+"", runFigures(unknown, false, false))
	require.Equal(t, "0.300 GB/s; free: unknown, safe: unknown", runFigures(unknown, true, false))

	still := runState{Prog: offload.CardProgress{Phase: live.Copying}}
	require.Equal(t, "Safe: unknown", runFigures(still, false, false), "no rate: the estimates alone")
	still.Prog.ETA.Safe = live.In(120)
	require.Equal(t, "Safe in "+live.In(120).String(), runFigures(still, false, false))
	// A stalled run that read something: its TB/hour so far (the model's,
	// the time it stands still counted), no rate.
	stalled := runState{Prog: offload.CardProgress{Phase: live.Copying, TBPerHour: 0.108, Stall: lStall()}}
	require.Equal(t, "0.108 TB/hour so far; Safe: unknown", runFigures(stalled, false, false))
	require.Equal(t, "0.108 TB/hour so far; Free: unknown, safe: unknown", runFigures(stalled, true, false))
	require.Equal(t, "Paused", runFigures(stalled, false, true))

	// The model's TB/hour of the run so far, beside its rate; once done,
	// what it was.
	r.Prog.Hop, r.Prog.TBPerHour = 0, 1.8723
	require.Equal(t, "0.520 GB/s, "+units.FormatTBPerHour(1.8723)+"; free in 20s, safe in 1m05s", runFigures(r, true, false))
	require.Equal(t, "0.520 GB/s, 1.872 TB/hour; safe in 1m05s", runFigures(r, false, false))

	paused := runFigures(r, true, true)
	require.Equal(t, "Paused", paused)
	require.NotContains(t, paused, "GB/s")
	require.NotContains(t, paused, "TB/hour")
	require.Equal(t, "Done", runFigures(runState{Prog: offload.CardProgress{Phase: live.Done}, Done: true, EndState: verdict.Verified}, false, false))
	require.Equal(t, "Done, 1.872 TB/hour", runFigures(runState{Prog: offload.CardProgress{Phase: live.Done, TBPerHour: 1.8723}, Done: true, EndState: verdict.Verified}, false, false))
}

// The job's big figures are the model's: its rate, its live TB/hour
// (units.FormatTBPerHour of Job.TBPerHour) and its time until every card
// is safe to format; the card's panel says the card's.
func TestRunningViewShowsTheModelsFigures(t *testing.T) {
	h := newHarness(t, nil)
	run, m := lRun(false)
	h.locked(func() { h.a.running.bind(run) })
	j, c := m.view().Job, m.view().Cards[0].Prog
	h.locked(func() {
		v := h.a.running
		require.Equal(t, rateText(j.Rate), v.rateBig.Text)
		require.Equal(t, units.FormatTBPerHour(j.TBPerHour), v.tbBig.Text)
		require.Equal(t, "0.144 TB/hour", v.tbBig.Text)
		require.True(t, v.tbBox.Visible())
		require.Equal(t, j.ETA.Safe.String(), v.etaBig.Text)
		require.Equal(t, "2m05s", v.etaBig.Text)
		require.Equal(t, "until every card is safe to format (every card copied in "+j.ETA.Copied.String()+")", v.etaCap.Text)
		p := v.panels[0]
		require.Equal(t, rateText(c.Rate)+", "+units.FormatTBPerHour(c.TBPerHour)+"; safe in "+c.ETA.Safe.String(), p.rate.Text)
		require.Equal(t, "0.520 GB/s, 0.288 TB/hour; safe in 2m05s", p.rate.Text)
		require.Equal(t, stateCopying, p.state.Text)
		require.False(t, p.stall.Visible())
		require.False(t, v.stallL.Visible())
	})
	// Paused: no rate and no estimate per card; the header says paused.
	m.setPaused(true)
	h.locked(func() {
		v := h.a.running
		v.render()
		require.Equal(t, "Paused", v.panels[0].rate.Text)
		require.Equal(t, stateCopying+" (paused)", v.panels[0].state.Text)
		for _, r := range v.panels[0].dests.rows {
			require.Equal(t, "paused", r.rate.Text, "a paused card's destinations show no rate")
		}
		require.Equal(t, "paused", v.rateBig.Text)
		require.False(t, v.tbBox.Visible())
	})
}

// A stalled upload is said: the card reads "stalled" with the model's
// words of where and why, its destination's row reads Stalled, the header
// counts the stalled cards and the estimates read "unknown" (the model's
// word). Once it moves, the stall is gone; while paused it is not said
// (the model does not know of the pause).
func TestStallIsSaid(t *testing.T) {
	h := newHarness(t, nil)
	run, m := lRun(true)
	h.locked(func() { h.a.running.bind(run) })
	words := lStall().String()
	require.Equal(t, "s3: connection refused, retry 3 of 10, since 40s", words)
	h.locked(func() {
		v := h.a.running
		p := v.panels[0]
		require.Equal(t, stateCopying+stalledSuffix, p.state.Text)
		require.Contains(t, p.state.Text, "stalled")
		require.Equal(t, widget.WarningImportance, p.state.Importance)
		require.True(t, p.stall.Visible())
		require.Equal(t, "Stalled at "+lCloud+": "+words, p.stall.Text)
		require.Equal(t, "30.0 MB/s, 0.288 TB/hour; safe: unknown", p.rate.Text)
		raid, cloud := p.dests.rows[0], p.dests.rows[1]
		require.Equal(t, "Writing", raid.state.Text)
		require.Equal(t, "Stalled", cloud.state.Text)
		require.Equal(t, widget.WarningImportance, cloud.state.Importance)
		require.False(t, cloud.why.Visible(), "said on the card's panel already")
		require.True(t, v.stallL.Visible())
		require.Equal(t, "1 card stalled: the estimates are unknown until it moves\nA001: Stalled at "+lCloud+": "+words, v.stallL.Text)
		require.Equal(t, "unknown", v.etaBig.Text)
		require.Equal(t, live.Estimate{}.String(), v.etaBig.Text)
		require.Equal(t, "until every card is safe to format (every card copied: unknown)", v.etaCap.Text)
		require.Contains(t, texts(v.content), words)
	})

	m.setPaused(true)
	h.locked(func() {
		v := h.a.running
		v.render()
		require.Equal(t, stateCopying+" (paused)", v.panels[0].state.Text)
		require.False(t, v.panels[0].stall.Visible())
		require.False(t, v.stallL.Visible())
		require.Equal(t, "Writing", v.panels[0].dests.rows[1].state.Text)
	})
	m.setPaused(false)

	m.apply(offload.Event{Type: offload.EvMoving, Card: "A001"})
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(21 * time.Second), Progress: lSnap(21, false)})
	h.locked(func() {
		v := h.a.running
		v.render()
		require.Equal(t, stateCopying, v.panels[0].state.Text)
		require.False(t, v.panels[0].stall.Visible())
		require.False(t, v.stallL.Visible())
		require.Equal(t, "2m05s", v.etaBig.Text)
	})
}

// A destination's row says its own stall when the card's panel says
// another place's, and the retries the model counted there once it
// moves again.
func TestDestWhyIsTheModels(t *testing.T) {
	d := offload.DestProgress{Dest: lCloud, State: live.DestWriting, Stall: lStall(), Retries: 3, LastError: "s3: connection refused"}
	require.Equal(t, "Stalled: "+lStall().String(), destWhy(d, false, nil))
	require.Equal(t, "Stalled: "+lStall().String(), destWhy(d, false, &live.Stall{Where: live.StallCard}))
	require.Equal(t, "", destWhy(d, false, lStall()))
	require.Equal(t, "", destWhy(d, true, nil), "a run that ended says no stall")
	d.Stall = nil
	require.Equal(t, "Retried 3 times; the last: s3: connection refused", destWhy(d, false, nil))
	require.Equal(t, "Stalled on the card: no data from the card, since 12s", stallText(&live.Stall{Where: live.StallCard, Cause: "no data from the card", Seconds: 12}))
}

// The states shown are the engine's typed states: a run's end (run_done),
// a card's verdict (card_done, with the catalog's summary) and a retry
// (card_retried) that makes an earlier end no longer so.
func TestCardStateFollowsTheEngine(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}}}, nil)
	c := func() cardView { return m.view().Cards[0] }
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Failed})
	require.Equal(t, stateFailed, c().State())
	m.apply(offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Message: "FAILED: NOT safe to format",
		Summary: &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, Verdict: "FAILED: NOT safe to format"}, FirstRun: verdict.Failed,
			Failures: []offload.Failure{{Path: "CLIPS/C001.mov", Error: "verify: xxh64 mismatch"}}}})
	require.Equal(t, stateFailed, c().State())
	require.Len(t, c().Failures, 1)

	m.apply(offload.Event{Type: offload.EvCardRetried, Card: "A001", Path: "/Volumes/A001"})
	require.False(t, c().HaveSummary)
	require.Empty(t, c().Failures)
	require.Equal(t, stateWaiting, c().State())
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Verified})
	require.Equal(t, stateFinishing, c().State(), "a run's end is not the card's verdict")
	m.apply(offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe,
		Summary: &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format", SafeAt: t0.Add(time.Minute)}, FirstRun: verdict.Verified}})
	require.Equal(t, stateSafe, c().State())
	require.True(t, c().Safe)
	require.Equal(t, t0.Add(time.Minute), c().SafeAt)

	// Interrupted, and a verdict whose summary could not be read: the
	// engine's state and words.
	m.apply(offload.Event{Type: offload.EvCardRetried, Card: "A001"})
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Interrupted})
	require.Equal(t, stateInterrupted, c().State())
	m.apply(offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Message: "database is locked"})
	require.Equal(t, stateFailed, c().State())
	require.Equal(t, "database is locked", c().Verdict)
}

// The banner follows the verdicts: a card's failure notice is replaced by
// the card's next one, and dropped once the engine gives the card a
// verdict that is not bad (a retry, a resume); another job's card of the
// same name, and other messages, stay.
func TestBannerFollowsTheVerdict(t *testing.T) {
	h := newHarness(t, nil)
	fail := func(job int64, card, why string) {
		h.a.notified(notify.Message{Kind: notify.Failure, JobID: job, Job: "day01", Card: card,
			Text: "Card " + card + " FAILED\n" + why})
	}
	banner := func() string {
		var s string
		h.locked(func() { s = h.a.banner.text() })
		return s
	}
	// items are every message the banner holds, the newest first (it
	// shows the newest).
	items := func() string {
		var s []string
		h.locked(func() {
			for _, it := range h.a.banner.items {
				s = append([]string{it.text}, s...)
			}
		})
		return strings.Join(s, "\n")
	}
	fail(7, "A001", "verify: xxh64 mismatch")
	require.Equal(t, "job day01 (#7): card A001 FAILED: NOT safe to format: verify: xxh64 mismatch", banner())
	fail(7, "A002", "no space left on device")
	fail(8, "A001", "card removed")
	h.locked(func() { h.a.banner.add("Auto-offload stopped: the watch ended") })
	fail(7, "A001", "verify: md5 mismatch")
	require.Equal(t, 1, strings.Count(items(), "(#7): card A001 FAILED"), "the card's later failure replaces the earlier: %s", items())
	require.Contains(t, banner(), "md5 mismatch")
	require.NotContains(t, items(), "xxh64 mismatch")

	run, _ := lRun(false)
	run.model.jobID = 7
	h.a.onEvent(run, offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe})
	got := items()
	require.Equal(t, got, banner(), "every message shown")
	require.NotContains(t, got, "(#7): card A001", "a safe verdict settles the card's failure")
	require.Contains(t, got, "(#7): card A002 FAILED")
	require.Contains(t, got, "(#8): card A001 FAILED", "another job's A001 is another card")
	require.Contains(t, got, "Auto-offload stopped")

	h.a.onEvent(run, offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Failed})
	require.Contains(t, banner(), "(#7): card A002 FAILED", "a bad verdict settles nothing")

	// A card removed while it was copied, then failed: both said, until
	// its retry (the card inserted again) makes it safe.
	h.locked(func() { h.a.banner.addCard(7, "A003", noticeRemoved, "Card A003 was removed while it was copied") })
	fail(7, "A003", "card removed")
	require.Contains(t, items(), "Card A003 was removed")
	require.Contains(t, items(), "(#7): card A003 FAILED")
	h.a.onEvent(run, offload.Event{Type: offload.EvCardDone, Card: "A003", State: verdict.Safe})
	require.NotContains(t, items(), "A003")
	h.locked(func() { h.a.banner.settleJob(8) })
	require.NotContains(t, banner(), "(#8)")
}
