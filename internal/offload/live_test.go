package offload

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/verdict"
)

// The engine feeds the live model: every progress event is its snapshot,
// counts never pass their totals, the job's TB/hour is its bytes read
// over its time active, the estimates are known once the card moves (the
// throttle is the plan's rate), and the last snapshot is in the catalog
// for front ends in other processes.
func TestProgressIsTheLiveModel(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("DCIM/F%04d.JPG", i)] = bigContent(2000, byte(i))
	}
	files["A001C001.mov"] = bigContent(3_000_000, 1)
	files["A001C002.mov"] = bigContent(3_000_000, 2)
	card := testCard(t, e.dir, "A001", files)
	o := e.opts([]string{card}, []string{e.dest("d1"), e.dest("d2")})
	o.Throttle = 2e6
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)

	var progs []*Progress
	for _, ev := range e.events {
		if ev.Type == EvProgress {
			progs = append(progs, ev.Progress)
		}
	}
	require.GreaterOrEqual(t, len(progs), 2, "a throttled card of 6.6 MB takes seconds")
	known := false
	for _, p := range progs {
		require.Len(t, p.Cards, 1)
		c := p.Cards[0]
		require.LessOrEqual(t, c.BytesCopied, c.Bytes)
		require.LessOrEqual(t, c.BytesVerified, c.VerifyTotal)
		require.LessOrEqual(t, c.FilesCopied, c.Files)
		require.LessOrEqual(t, c.Percent(), 100.0)
		require.Equal(t, 0, c.Hop)
		require.Len(t, c.Dests, 2)
		known = known || c.ETA.Safe.Known
		j := p.Job
		if j.Elapsed > 0 && j.BytesRead > 0 {
			want := float64(j.BytesRead) / j.Elapsed * 3600 / 1e12
			require.InDelta(t, want, j.TBPerHour, want*1e-9, "TB/hour is bytes read over time active")
		}
	}
	require.True(t, known, "no estimate of the time to safe to format while the card was copied")

	p, _, ok, err := LiveProgress(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, ok, "the last snapshot is in the catalog")
	require.Len(t, p.Cards, 1)
	c := p.Cards[0]
	require.Equal(t, live.Done, c.Phase)
	require.Equal(t, c.Files, c.FilesCopied)
	require.Equal(t, c.Bytes, c.BytesCopied)
	require.Equal(t, c.VerifyTotal, c.BytesVerified)
	require.True(t, c.ETA.Safe.Known && c.ETA.Safe.Seconds == 0)
	require.InDelta(t, float64(c.Bytes), float64(p.Job.BytesRead), 0, "every byte read once")
	require.False(t, math.IsNaN(p.Job.TBPerHour))
}

// A destination that stops answering is said to be stalled, with where,
// once StallAfter passes: an event, the card's and the destination's
// stall in the progress, the estimates unknown; when it answers again
// the card moves on and is verified.
func TestAStalledDestinationIsSaid(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"A001C001.mov": bigContent(4_000_000, 3)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	f := fsys.NewFaulty(fsys.OS{})
	hold := make(chan struct{})
	f.Add(fsys.Fault{Match: string(filepath.Separator) + "d2" + string(filepath.Separator), Hold: hold, HoldAt: 1 << 20})
	o := e.opts([]string{card}, []string{d1, d2})
	o.FS = f
	o.StallAfter = 1500 * time.Millisecond
	evs := make(chan Event, 1024)
	o.OnEvent = func(ev Event) { evs <- ev }
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	done := runAsync(j)
	var stalled *Event
	var during *Progress
	for stalled == nil || during == nil {
		ev := <-evs
		switch {
		case ev.Type == EvStalled:
			stalled = &ev
		case ev.Type == EvProgress && stalled != nil && ev.Progress.Cards[0].Stall != nil:
			during = ev.Progress
		}
	}
	require.Equal(t, "A001", stalled.Card)
	require.Equal(t, d2, stalled.Path, "the stall names the destination that stopped")
	require.Contains(t, stalled.Message, "since")
	c := during.Cards[0]
	require.False(t, c.ETA.Safe.Known, "no estimate while stalled")
	require.False(t, during.Job.ETA.Safe.Known)
	require.Equal(t, 1, during.Job.Stalled)
	require.NotNil(t, c.Dests[1].Stall)
	require.Nil(t, c.Dests[0].Stall, "the destination that took every byte is not stalled")
	close(hold)
	moving := false
	for !moving {
		if ev := <-evs; ev.Type == EvMoving {
			moving = true
		}
	}
	go func() {
		for range evs {
		}
	}()
	r := <-done
	require.NoError(t, r.err)
	require.True(t, r.s.Cards[0].SafeToFormat)
}

// A cascade's second run that cannot start (its first copy gone) ends
// the card: its card_done says failed, NOT safe to format, so every
// front end hears the card's end.
func TestSecondRunThatCannotStartEndsTheCard(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"C001.mov": bigContent(200_000, 1), "C002.mov": bigContent(100_000, 2)})
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{card}, []string{first})
	o.Then = []string{shuttle}
	var done []Event
	o.OnEvent = func(ev Event) {
		switch {
		case ev.Type == EvRunDone && ev.Hop == 0:
			// The first copy disappears before the second run reads it.
			require.NoError(t, os.Rename(filepath.Join(first, "day01"), filepath.Join(first, "gone")))
		case ev.Type == EvCardDone:
			done = append(done, ev)
		}
	}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Len(t, done, 1, "one card_done for the card")
	require.Equal(t, verdict.Failed, done[0].State)
	require.False(t, s.Cards[0].SafeToFormat)
}

// The proxies are made once the card's run ended, most after the job's
// last progress tick (while the reports are written): each count that
// changes then is told at once, a progress event of the snapshot, and
// recorded as the job's latest, so that event readers and dit serve see
// the final count; a count that does not change tells nothing.
func TestProxiesCountedAfterTheRunAreTold(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"CLIPS/C001.mov": bigContent(20_000, 1)})
	o := e.opts([]string{card}, []string{e.dest("d1")})
	var j *Job
	var after []Event
	decided := false
	o.OnEvent = func(ev Event) {
		if ev.Type == EvDecided {
			decided = true
		} else if decided {
			after = append(after, ev)
		}
	}
	o.AfterJob = func(context.Context, *Summary, fsys.FS) error {
		j.CountProxies("A001", 0, 2)
		j.CountProxies("A001", 1, 2)
		j.CountProxies("A001", 2, 2)
		j.CountProxies("A001", 2, 2) // no change
		return nil
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, after, 3, "a progress event for each count that changed")
	for i, ev := range after {
		require.Equal(t, EvProgress, ev.Type)
		require.Equal(t, 2, ev.Progress.Cards[0].Proxies)
		require.Equal(t, i, ev.Progress.Cards[0].ProxiesMade)
	}
	p, _, ok, err := LiveProgress(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 2, p.Cards[0].ProxiesMade, "the final count recorded for dit serve")
}
