package offload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A card inserted while a job runs joins it: copied and verified on every
// destination, recorded in the same job, the other card unaffected.
func TestAddCardWhileRunning(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	o := e.opts([]string{a}, []string{d1, d2})
	o.BlockSize = 16 << 10
	o.Throttle = 300_000
	added := make(chan error, 1)
	var once sync.Once
	var j *Job
	o.OnEvent = func(ev Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
		if ev.Type == EvFile && ev.Card == "A001" {
			once.Do(func() {
				go func() {
					// Not in the job yet: a retry is refused as such
					// (dit watch then adds it).
					if err := j.RetryCard(b); !errors.Is(err, ErrCardNotInJob) {
						added <- fmt.Errorf("RetryCard of a card not in the job: %v", err)
						return
					}
					_, err := j.AddCard(b)
					added <- err
				}()
			})
		}
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	// Bad additions are refused while it runs.
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.NoError(t, <-added)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.Len(t, s.Cards, 2)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat, "%s: %s", c.Label, c.Verdict)
	}
	require.Equal(t, treeHashes(t, b), treeHashes(t, filepath.Join(d2, "day01", "B001")))
	var sawAdded bool
	for _, ev := range e.events {
		sawAdded = sawAdded || (ev.Type == EvCardAdded && ev.Card == "B001")
	}
	require.True(t, sawAdded)
	_, err = j.AddCard(b)
	require.ErrorIs(t, err, ErrNotRunning, "after the job: refused")
}

func TestAddCardRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	o := e.opts([]string{a}, []string{d1})
	o.Throttle = 200_000
	o.BlockSize = 16 << 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, err := New(ctx, o)
	require.NoError(t, err)
	errs := make(chan []error, 1)
	o2 := j.opts.OnEvent
	j.opts.OnEvent = func(ev Event) {
		o2(ev)
		if ev.Type == EvCardStarted {
			go func() {
				var out []error
				_, err := j.AddCard(a)
				out = append(out, err)
				_, err = j.AddCard(filepath.Join(d1))
				out = append(out, err)
				_, err = j.AddCard(filepath.Join(e.dir, "nope"))
				out = append(out, err)
				errs <- out
				cancel()
			}()
		}
	}
	j.Run(ctx)
	got := <-errs
	require.ErrorContains(t, got[0], "given twice")
	require.Error(t, got[1])
	require.ErrorContains(t, got[2], "does not exist")
}

// A card added between New and Run (Add card pressed in the first moments
// of a job) joins the job and is copied with the others.
func TestAddCardBeforeRunStarts(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	j, err := New(context.Background(), e.opts([]string{a}, []string{d1}))
	require.NoError(t, err)
	label, err := j.AddCard(b)
	require.NoError(t, err)
	require.Equal(t, "B001", label)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.Len(t, s.Cards, 2)
	require.Equal(t, treeHashes(t, b), treeHashes(t, filepath.Join(d1, "day01", "B001")))
}
