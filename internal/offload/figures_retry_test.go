package offload

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// A card pulled in the middle of its copy and taken up again in the
// running job (dit watch: CardRemoved, then RetryCard) keeps true
// figures: no per-second sample goes negative (the second attempt's
// counts start at zero), and the card's bytes copied are the bytes read
// from it in both attempts.
func TestFiguresCardRetriedInTheRunningJob(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for i := 0; i < 4; i++ {
		files[fmt.Sprintf("CLIPS/A%d.mov", i)] = bigContent(2<<20, byte(i))
	}
	a := testCard(t, e.dir, "A001", files)
	b := testCard(t, e.dir, "B001", map[string]string{"CLIPS/B.mov": bigContent(4<<20, 9)})
	f := fsys.NewFaulty(fsys.OS{})
	// A001 stops in its second file until it is pulled; B001 holds the
	// job open until A001's second attempt is over.
	// Each attempt of A001 waits in a file until a per-second sample was
	// taken, so the samples see both attempts' counts.
	aMid, aGo := holdRead(f, "A1.mov")
	a3Mid, a3Go := holdRead(f, "A3.mov")
	_, bGo := holdRead(f, "B.mov")
	o := e.opts([]string{a, b}, []string{e.dest("d1")})
	o.FS = f
	events := make(chan Event, 1024)
	o.OnEvent = func(ev Event) {
		if ev.Type == EvCardDone || ev.Type == EvCardRetried || ev.Type == EvProgress {
			events <- ev
		}
	}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	done := runAsync(j)
	waitFor := func(typ EventType, card string) {
		t.Helper()
		for ev := range events {
			if ev.Type == typ && ev.Card == card {
				return
			}
		}
	}
	<-aMid
	waitFor(EvProgress, "")
	require.True(t, j.CardRemoved(a, "insert it again"))
	close(aGo)
	waitFor(EvCardDone, "A001")
	run := func() *cardRun {
		for _, c := range j.cardList() {
			if c.scan.Root == a {
				return c
			}
		}
		return nil
	}
	first := run().bytesCopied.Load()
	require.Greater(t, first, int64(2<<20), "the first attempt read A0 and part of A1")
	require.Less(t, first, int64(8<<20), "the first attempt stopped before the end of the card")
	require.NoError(t, j.RetryCard(a))
	waitFor(EvCardRetried, "A001")
	<-a3Mid
	waitFor(EvProgress, "")
	close(a3Go)
	waitFor(EvCardDone, "A001")
	second := run().bytesCopied.Load()
	close(bGo)
	r := <-done
	require.NoError(t, r.err)

	samples, err := e.cat.Samples(r.s.JobID)
	require.NoError(t, err)
	for _, sm := range samples {
		require.GreaterOrEqual(t, sm.Rate, 0.0, "sample of card %d dest %d %s at %s", sm.CardID, sm.DestID, sm.Phase, sm.T)
	}
	var cardA *CardSummary
	for i := range r.s.Cards {
		if r.s.Cards[i].Label == "A001" {
			cardA = &r.s.Cards[i]
		}
	}
	require.NotNil(t, cardA)
	require.True(t, cardA.SafeToFormat)
	// Each sample's bytes are its rate x its interval, rounded: a byte
	// each at most.
	require.InDelta(t, first+second, cardA.BytesCopied, float64(len(samples)), "bytes read from A001 in both attempts (first %d, second %d)", first, second)
}

// A card that ends within the sampler's second is charged only its part
// of that second: its active time (what its TB/hour is over) lies between
// its copy start and its verified time, and its card_done event; not a
// whole second more.
func TestFiguresShortCardChargedItsOwnTime(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, e.dir, "A001", map[string]string{"CLIPS/A.mov": bigContent(1<<20, 1)})
	b := testCard(t, e.dir, "B001", map[string]string{"CLIPS/B.mov": bigContent(2<<20, 2)})
	f := fsys.NewFaulty(fsys.OS{})
	// B001 holds the job open until a second has been sampled after
	// A001 ended.
	_, bGo := holdRead(f, "B.mov")
	o := e.opts([]string{a, b}, []string{e.dest("d1")})
	o.FS = f
	events := make(chan Event, 1024)
	o.OnEvent = func(ev Event) {
		if ev.Type == EvCardDone || ev.Type == EvProgress {
			events <- ev
		}
	}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	done := runAsync(j)
	var doneEv Event
	for ev := range events {
		if ev.Type == EvCardDone && ev.Card == "A001" {
			doneEv = ev
			break
		}
	}
	for ev := range events {
		if ev.Type == EvProgress {
			break // a sample taken after A001 ended
		}
	}
	close(bGo)
	r := <-done
	require.NoError(t, r.err)
	s := r.s
	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	var rec *catalog.Card
	for _, k := range cards {
		if k.Label == "A001" {
			rec = k
		}
	}
	require.NotNil(t, rec)
	act, err := JobActivity(e.cat, s.JobID)
	require.NoError(t, err)
	got := act.Cards[rec.ID].ActiveTime
	require.GreaterOrEqual(t, got, rec.DoneAt.Sub(rec.CopyStarted)-time.Millisecond, "active until verified")
	require.LessOrEqual(t, got, doneEv.Time.Sub(rec.CopyStarted)+time.Millisecond, "not after its card_done event")
	// Its destination rows cover the sampler's whole second (the cards'
	// rows of a second add up to the destination's rate).
	samples, err := e.cat.Samples(s.JobID)
	require.NoError(t, err)
	for _, sm := range samples {
		if sm.CardID == rec.ID && sm.DestID != 0 {
			require.Greater(t, sm.Seconds, 0.5, "a destination row covers the whole second")
		}
	}
}

// A job interrupted while a card still copies, after some of its copies
// were read back: the card's verify start is the first read-back's time,
// recorded in that run (not the resume's).
func TestFiguresVerifyStartOfAnInterruptedRun(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, e.dir, "A001", map[string]string{
		// A0 is committed at once (a clip: not held for a batch of small
		// files), so it is read back while A2's read is held.
		"CLIPS/A0.mov": bigContent(9<<20, 1), "CLIPS/A1.mov": bigContent(1<<20, 2), "CLIPS/A2.mov": bigContent(1<<20, 3)})
	f := fsys.NewFaulty(fsys.OS{})
	_, hold := holdRead(f, "A2.mov")
	o := e.opts([]string{a}, []string{e.dest("d1")})
	o.FS = f
	verified := make(chan Event, 16)
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile && ev.State == StateVerified {
			verified <- ev
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, err := New(ctx, o)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := j.Run(ctx); done <- err }()
	first := <-verified
	cancel()
	close(hold)
	<-done
	require.NoError(t, e.cat.Flush())
	cards, err := e.cat.Cards(j.rec.ID)
	require.NoError(t, err)
	k := cards[0]
	require.NotEqual(t, StateVerified, k.State, "interrupted")
	require.False(t, k.VerifyStarted.IsZero(), "read-back began in the interrupted run")
	require.False(t, k.VerifyStarted.After(first.Time), "verify start %s, a copy verified at %s", k.VerifyStarted, first.Time)
	require.False(t, k.VerifyStarted.Before(k.CopyStarted))
}

// runResult is what Job.Run returned.
type runResult struct {
	s   *Summary
	err error
}

// runAsync runs j and sends what Run returned.
func runAsync(j *Job) <-chan runResult {
	done := make(chan runResult, 1)
	go func() { s, err := j.Run(context.Background()); done <- runResult{s, err} }()
	return done
}

// holdRead makes the first read of a file matching match wait until
// release is closed; reached is closed as it starts waiting.
func holdRead(f *fsys.Faulty, match string) (reached, release chan struct{}) {
	reached, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.Add(fsys.Fault{Match: match, OnRead: func(int64) { once.Do(func() { close(reached); <-release }) }})
	return reached, release
}
