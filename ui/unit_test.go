package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// countLimiter counts the calls that reach it.
type countLimiter struct{ reads, writes, verifies atomic.Int64 }

func (c *countLimiter) WaitRead(ctx context.Context, card, n int) error {
	c.reads.Add(1)
	return nil
}

func (c *countLimiter) WaitWrite(ctx context.Context, card, dest, n int) error {
	c.writes.Add(1)
	return nil
}

func (c *countLimiter) WaitVerify(ctx context.Context, card, dest, n int) error {
	c.verifies.Add(1)
	return nil
}

func TestPauserHoldsUntilResumeAndDefersToTheInnerLimiter(t *testing.T) {
	inner := &countLimiter{}
	p := newPauser(inner)
	require.NoError(t, p.WaitRead(t.Context(), 0, 10))
	require.NoError(t, p.WaitWrite(t.Context(), 0, 1, 10))
	require.NoError(t, p.WaitVerify(t.Context(), 0, 1, 10))
	require.Equal(t, int64(1), inner.reads.Load())
	require.Equal(t, int64(1), inner.writes.Load())
	require.Equal(t, int64(1), inner.verifies.Load())

	p.Pause()
	p.Pause() // twice is once
	require.True(t, p.Paused())
	got := make(chan error, 3)
	go func() { got <- p.WaitRead(context.Background(), 0, 10) }()
	go func() { got <- p.WaitWrite(context.Background(), 1, 0, 10) }()
	go func() { got <- p.WaitVerify(context.Background(), 1, 0, 10) }()
	select {
	case <-got:
		t.Fatal("a wait returned while paused")
	case <-time.After(200 * time.Millisecond):
	}
	p.Resume()
	for range 3 {
		require.NoError(t, await(t, "resume to release the waits", got))
	}
	require.Equal(t, int64(2), inner.reads.Load())
	require.Equal(t, int64(2), inner.writes.Load())
	require.Equal(t, int64(2), inner.verifies.Load())
	p.Resume() // twice is once
	require.False(t, p.Paused())
}

func TestPausedWaitEndsWithTheContext(t *testing.T) {
	p := newPauser(nil)
	p.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.WaitRead(ctx, 0, 1) }()
	cancel()
	err := await(t, "a paused wait to end with its context", done)
	require.True(t, errors.Is(err, context.Canceled))
}

func TestCardStateIsSafeOnlyFromTheSummary(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001", Bytes: 100, ReadBack: live.ReadBack{VerifyTotal: 200}}}}, nil)
	c := func() cardView { return m.view().Cards[0] }
	require.Equal(t, stateWaiting, c().State())
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying", Bytes: 100, BytesCopied: 50, Rate: 50, ETA: live.Times{Safe: live.In(1)}, ETASeconds: live.In(1), ReadBack: live.ReadBack{VerifyTotal: 200}}}}})
	require.Equal(t, stateCopying, c().State())
	require.InDelta(t, 50.0/300, c().Fraction(), 1e-9)
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(2 * time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "verifying", Bytes: 100, BytesCopied: 100, ReadBack: live.ReadBack{VerifyTotal: 200, BytesVerified: 200}}}}})
	require.Equal(t, stateVerifying, c().State())
	require.Equal(t, 1.0, c().Fraction())

	// The engine says verified: not yet "safe to format".
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateVerified})
	require.Equal(t, stateFinishing, c().State())
	// A summary read while another card still runs is taken for a card
	// that is done; one saying not safe is shown as such.
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, Verdict: "Incomplete (unreadable entries on the card): NOT safe to format"}, State: "verified", FirstRun: verdict.Failed}}}, false)
	require.Equal(t, stateFailed, c().State())
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true, Verdict: "Verified: safe to format"}, State: "verified", FirstRun: verdict.Verified}}}, true)
	require.Equal(t, stateSafe, c().State())
	require.True(t, m.view().Finished)
}

func TestFailedFileNamesTheDestinationAndFailsTheCard(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}, {Label: "A002"}}}, nil)
	m.apply(offload.Event{Type: offload.EvFile, Card: "A001", Path: "CLIPS/C002.mov", State: offload.StateFailed,
		Copies: []offload.CopyState{{Dest: "/d1", State: offload.StateVerified}, {Dest: "/d2", State: offload.StateFailed, Error: "verify: xxh64 mismatch"}}})
	m.apply(offload.Event{Type: offload.EvFile, Card: "A001", Path: "CLIPS/C003.mov", State: offload.StateVerified})
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateFailed, Message: "1 file(s) failed"})
	v := m.view()
	require.Equal(t, []failure{{Path: "CLIPS/C002.mov", Why: "on /d2: verify: xxh64 mismatch"}}, v.Cards[0].Failures)
	require.Equal(t, stateFailed, v.Cards[0].State())
	// The summary's copy of the same failure is not listed twice.
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, Verdict: "FAILED: NOT safe to format"}, State: "failed", FirstRun: verdict.Failed, Failures: []offload.Failure{{Path: "CLIPS/C002.mov", Error: "verify: xxh64 mismatch"}}}}}, true)
	v = m.view()
	require.Len(t, v.Cards[0].Failures, 1)
	require.Equal(t, "on /d2: verify: xxh64 mismatch", v.Cards[0].Failures[0].Why, "the event's words, naming the destination")
	require.Equal(t, stateFailed, v.Cards[0].State())
	require.Equal(t, stateWaiting, v.Cards[1].State(), "a card never started is not reported done")
}

// Once the summary is read it is the run's failures and their count: a
// file the events said failed that the summary does not (copied again)
// is gone; what failed beside the files (the hash lists) is listed, not
// counted as a file; before the summary the live model's count is it.
func TestSummaryGivesTheFailuresAndTheirCount(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}}}, nil)
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying", Files: 3, FilesFailed: 2}}}})
	for _, p := range []string{"CLIPS/C001.mov", "CLIPS/C002.mov"} {
		m.apply(offload.Event{Type: offload.EvFile, Card: "A001", Path: p, State: offload.StateFailed,
			Copies: []offload.CopyState{{Dest: "/d2", State: offload.StateFailed, Error: "write: no space left on device"}}})
	}
	require.Equal(t, 2, m.view().Cards[0].failedFiles(), "the live model's count")
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateFailed})
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, Failed: 1,
		Verdict: "FAILED, and hash lists not written: NOT safe to format"}, State: "sealing", FirstRun: verdict.Failed,
		Failures: []offload.Failure{{Path: "CLIPS/C002.mov", Error: "write: no space left on device"},
			{Path: "(hash lists)", Error: "hash lists not written in /d2/j/A001: no space left on device"}}}}}, true)
	c := m.view().Cards[0]
	require.Equal(t, 1, c.failedFiles())
	require.Equal(t, []failure{{Path: "CLIPS/C002.mov", Why: "on /d2: write: no space left on device"},
		{Path: "(hash lists)", Why: "hash lists not written in /d2/j/A001: no space left on device"}}, c.Failures)
	require.Equal(t, "1 file failed: CLIPS/C002.mov (Details: why)", failureLine(c.Failures, c.failedFiles(), false, ""))
	require.Equal(t, "1 file failed:\nCLIPS/C002.mov: on /d2: write: no space left on device\n(hash lists): hash lists not written in /d2/j/A001: no space left on device",
		failureText(c.Failures, c.FailuresMore, c.failedFiles(), false, ""))
	// Only the hash lists: no file counted, what failed said.
	only := []failure{c.Failures[1]}
	require.Equal(t, "(hash lists): hash lists not written in /d2/j/A001: no space left on device", failureLine(only, 0, false, ""))
	require.Equal(t, "Failed:\n(hash lists): hash lists not written in /d2/j/A001: no space left on device", failureText(only, 0, 0, false, ""))
}

// A card of a million frames whose destination went away: every file's
// failure event is taken in constant time each; the card holds the first
// failuresHeld to list and counts the rest, and its panel says them all
// (the engine's count) with the first twenty named; the summary's list,
// read at the end (its first hundred failed files, the others counted,
// then its hash lists not written), is held as it is, with its count.
func TestAllFramesFailedHoldsAHundred(t *testing.T) {
	const n = 200_000
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}}}, nil)
	var sum []offload.Failure
	for i := range n {
		p := fmt.Sprintf("F/%07d.ari", i)
		m.apply(offload.Event{Type: offload.EvFile, Card: "A001", Path: p, State: offload.StateFailed,
			Copies: []offload.CopyState{{Dest: "/d2", State: offload.StateFailed, Error: "write: no such device"}}})
		if i < 100 {
			sum = append(sum, offload.Failure{Path: p, Error: "write: no such device"})
		}
	}
	sum = append(sum, offload.Failure{Path: "(hash lists)", Error: "hash lists not written in /d2/j/A001: no such device"})
	m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
		{Label: "A001", Phase: "copying", Files: n, FilesFailed: n}}}})
	c := m.view().Cards[0]
	require.Len(t, c.Failures, failuresHeld)
	require.Equal(t, n-failuresHeld, c.FailuresMore)
	require.True(t, strings.HasSuffix(c.runState.runText(), " (200000 files failed)"), c.runState.runText())
	text := failureText(c.Failures, c.FailuresMore, c.failedFiles(), false, "")
	require.True(t, strings.HasPrefix(text, "200000 files failed:\nF/0000000.ari: on /d2: write: no such device\n"), text)
	require.True(t, strings.HasSuffix(text, "\nF/0000019.ari: on /d2: write: no such device\n... and 199980 more (see History)"), text)
	m.apply(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateFailed})
	m.applySummary(&offload.Summary{Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Failed, Failed: n,
		Verdict: "FAILED: NOT safe to format"}, State: "failed", FirstRun: verdict.Failed, Failures: sum, FailuresMore: n - 100}}}, true)
	c = m.view().Cards[0]
	require.Len(t, c.Failures, 101)
	require.Equal(t, n-100, c.FailuresMore, "the summary's count")
	require.Equal(t, "on /d2: write: no such device", c.Failures[99].Why, "the event's words")
	require.Equal(t, "(hash lists)", c.Failures[100].Path, "what failed beside the files, listed")
	text = failureText(c.Failures, c.FailuresMore, c.failedFiles(), false, "")
	require.True(t, strings.HasPrefix(text, "200000 files failed:\n"), text)
	require.True(t, strings.HasSuffix(text, "\n... and 199981 more (see History)"), text)
}

func TestThroughputHistoryKeepsTheWindow(t *testing.T) {
	m := newRunModel(1, "j", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}}}, nil)
	for s := 1; s <= 600; s++ {
		m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Duration(s) * time.Second), Progress: &offload.Progress{Cards: []offload.CardProgress{
			{Label: "A001", Phase: "copying", Rate: float64(s)}}}})
	}
	ser := m.view().Cards[0].Series
	require.Less(t, len(ser), 320, "about five minutes are kept")
	require.Greater(t, len(ser), 299)
	require.Equal(t, t0.Add(600*time.Second), ser[len(ser)-1].T)
	require.Equal(t, 600.0, ser[len(ser)-1].Rate, "the model's rate, as it gave it")
}

func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		peak float64
		step float64
		dec  int
	}{
		{1.1e9 * 1.1, 0.5e9, 1},
		{0.04e9, 0.01e9, 2},
		{2.5e9, 1e9, 0},
		{0.002e9, 0.0005e9, 4},
		{0, 0.1e9, 1},
	} {
		step, dec := niceStep(tc.peak, 4)
		require.InDelta(t, tc.step, step, 1, "peak %g", tc.peak)
		require.Equal(t, tc.dec, dec, "peak %g", tc.peak)
	}
	require.Equal(t, "0.55 GB/s", gbps(0.55e9, 2))
	require.Equal(t, "-", rateText(0))
	require.Equal(t, "0.550 GB/s", rateText(0.55e9))
	require.Equal(t, "-", etaText(0))
	require.Equal(t, "1m05s", etaText(65))
	require.Equal(t, "99%", pct(999, 1000))
	require.Equal(t, "100%", pct(1000, 1000))
	require.Equal(t, "1 file", plural(1, "file"))
	require.Equal(t, "2 files", plural(2, "file"))
	require.Equal(t, "1m30s", shortDur(90*time.Second))
	require.Equal(t, "2m", shortDur(2*time.Minute))
}

func TestThemesLightAndDark(t *testing.T) {
	renderOnly(t)
	h := newHarness(t, nil)
	h.locked(func() { h.a.SetTheme(ThemeDark) })
	th := h.a.fa.Settings().Theme()
	require.Equal(t, theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark), th.Color(theme.ColorNameBackground, theme.VariantLight))
	require.Equal(t, ThemeDark, h.a.fa.Preferences().String("theme"))
	require.Equal(t, ThemeDark, h.a.themeSel.Selected)
	h.locked(func() { h.a.SetTheme(ThemeLight) })
	th = h.a.fa.Settings().Theme()
	require.Equal(t, theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight), th.Color(theme.ColorNameBackground, theme.VariantDark))
	require.Greater(t, th.Size(theme.SizeNameText), theme.DefaultTheme().Size(theme.SizeNameText), "larger text than Fyne's default")
}

// Every state colour (safe, warning, failed) and the hints' grey read at
// 4.5:1 or more on the theme's background, in light and in dark; Fyne's
// own light green does not (the reason they are dit's).
func TestStateColoursContrast(t *testing.T) {
	renderOnly(t)
	for _, mode := range []string{ThemeLight, ThemeDark} {
		th := NewTheme(mode)
		bg := th.Color(theme.ColorNameBackground, theme.VariantLight)
		for _, n := range []fyne.ThemeColorName{theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNameError,
			theme.ColorNamePlaceHolder, theme.ColorNameDisabled, theme.ColorNameForeground, theme.ColorNamePrimary} {
			c := th.Color(n, theme.VariantLight)
			require.GreaterOrEqual(t, contrast(c, bg), 4.5, "%s %s on its background: %.2f:1", mode, n, contrast(c, bg))
		}
	}
	white := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight)
	require.Less(t, contrast(theme.DefaultTheme().Color(theme.ColorNameSuccess, theme.VariantLight), white), 4.5, "Fyne's green on white")
	require.InDelta(t, 21.0, contrast(color.Black, color.White), 1e-9)
}

// After a theme switch the big figures and the bars are drawn in the new
// theme's colours: no widget keeps a colour of the theme it was made in.
func TestThemeSwitchRecolours(t *testing.T) {
	renderOnly(t)
	h := newHarness(t, nil)
	h.locked(func() { h.a.running.bind(goldenRun()) })
	for _, mode := range []string{ThemeDark, ThemeLight, ThemeDark} {
		h.locked(func() {
			h.a.SetTheme(mode)
			th := h.a.fa.Settings().Theme()
			v := fyne.CurrentApp().Settings().ThemeVariant()
			bg := th.Color(theme.ColorNameBackground, v)
			for _, txt := range []*canvas.Text{h.a.running.rateBig, h.a.running.etaBig} {
				require.Equal(t, th.Color(theme.ColorNameForeground, v), txt.Color, "%s: %q in the new theme's colour", mode, txt.Text)
				require.GreaterOrEqual(t, contrast(txt.Color, bg), 4.5, "%s: %q readable", mode, txt.Text)
			}
		})
	}
}

// The History of a card whose summary lists its first hundred failed
// files and counts the others: the engine's count of failed files heads
// the list, and the line after the fifty shown says how many more
// failed (those listed but not shown and those the summary counts).
func TestHistorySaysTheFailuresNotListed(t *testing.T) {
	var fs []offload.Failure
	for i := range 100 {
		fs = append(fs, offload.Failure{Path: fmt.Sprintf("F/%07d.ari", i), Error: "write: no such device"})
	}
	fs = append(fs, offload.Failure{Path: "(hash lists)", Error: "hash lists not written in /d2/j/A001: no such device"})
	text := historyFailures(fs, 999_900, 1_000_000, "")
	require.True(t, strings.HasPrefix(text, "1000000 files failed:\nF/0000000.ari: write: no such device\n"), text)
	require.True(t, strings.HasSuffix(text, "\nF/0000049.ari: write: no such device\n... and 999951 more (Files lists them all)"), text)
	require.Equal(t, "Failed:\n(hash lists): why", historyFailures([]offload.Failure{{Path: "(hash lists)", Error: "why"}}, 0, 0, ""))
}
