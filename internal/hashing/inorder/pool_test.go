package inorder

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// What follows each work runs in the order the works were handed in,
// whatever order they end in: eight works under way at once (each waits
// until all have started), ended last first.
func TestThensRunInOrderHandedIn(t *testing.T) {
	const n = 8
	p := New(1, n, 64)
	started := make(chan int, n)
	gates := make([]chan struct{}, n)
	var order []int
	for i := range n {
		gates[i] = make(chan struct{})
		require.NoError(t, p.Go(0, func(int) { started <- i; <-gates[i] }, func() error { order = append(order, i); return nil }))
	}
	for range n {
		<-started
	}
	require.Empty(t, order, "nothing ends before its work")
	for i := n - 1; i >= 0; i-- {
		close(gates[i])
	}
	require.NoError(t, p.Later(func() error { order = append(order, 100); return nil }))
	require.NoError(t, p.Finish())
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 100}, order)
}

// A group runs at most its workers' count of works at once, each in a
// slot of its own, and another group's works do not take its slots: two
// groups of 3, 10 works each, held until the test lets one end.
func TestAGroupRunsAtMostItsWorkers(t *testing.T) {
	const workers, each = 3, 10
	p := New(2, workers, 256)
	var running, high [2]atomic.Int32
	var slots [2][workers]atomic.Int32
	started := make(chan int, 2*each)
	release := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	done := make(chan error, 1)
	ended := 0
	go func() {
		for i := range 2 * each {
			g := i % 2
			err := p.Go(g, func(slot int) {
				if slots[g][slot].Add(1) != 1 {
					panic("a slot given to two works at once")
				}
				r := running[g].Add(1)
				for h := high[g].Load(); r > h && !high[g].CompareAndSwap(h, r); h = high[g].Load() {
				}
				started <- g
				<-release[g]
				running[g].Add(-1)
				slots[g][slot].Add(-1)
			}, func() error { ended++; return nil })
			if err != nil {
				done <- err
				return
			}
		}
		done <- p.Finish()
	}()
	// Both groups fill their slots; then each release lets one more
	// start, until every work has started.
	n := [2]int{}
	for range 2 * workers {
		n[<-started]++
	}
	require.Equal(t, [2]int{workers, workers}, n)
	// (The works are handed in group 0, 1, 0, 1...: the caller waits
	// for a slot of the group of the next one.)
	for range each - workers {
		for g := range 2 {
			release[g] <- struct{}{}
			require.Equal(t, g, <-started)
		}
	}
	close(release[0])
	close(release[1])
	require.NoError(t, <-done)
	require.Equal(t, 2*each, ended)
	require.Equal(t, int32(workers), high[0].Load())
	require.Equal(t, int32(workers), high[1].Load())
}

// A step's error stops the pool: it is returned, nothing queued after it
// runs, and no work is still running when it returns.
func TestAnErrorStopsThePool(t *testing.T) {
	p := New(1, 4, 64)
	var running atomic.Int32
	var ran []int
	bad := errors.New("stop here")
	var err error
	for i := range 20 {
		err = p.Go(0, func(int) { running.Add(1); running.Add(-1) }, func() error {
			ran = append(ran, i)
			if i == 5 {
				return bad
			}
			return nil
		})
		if err != nil {
			break
		}
	}
	if err == nil {
		err = p.Finish()
	}
	require.ErrorIs(t, err, bad)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5}, ran)
	require.Zero(t, running.Load())
}

// A long work at the front does not make the pool hold every one after
// it: the caller waits once the pool holds its most steps.
func TestThePoolHoldsAtMostItsSteps(t *testing.T) {
	p := New(1, 4, 10)
	first := make(chan struct{})
	var once sync.Once
	full := 0
	p.OnFull = func() { full++; once.Do(func() { close(first) }) }
	ran := 0
	require.NoError(t, p.Go(0, func(int) { <-first }, func() error { ran++; return nil }))
	for range 100 {
		require.NoError(t, p.Go(0, func(int) {}, func() error { ran++; return nil }))
	}
	require.NoError(t, p.Finish())
	require.Equal(t, 101, ran)
	require.Positive(t, full)
	require.LessOrEqual(t, p.High(), 10)
}

// A work's Wake runs OnWake on the goroutine waiting in the pool: a work
// that waits for it ends.
func TestWakeRunsOnWakeWhileTheCallerWaits(t *testing.T) {
	p := New(1, 1, 4)
	woke := make(chan struct{})
	calls := 0
	p.OnWake = func() {
		calls++
		if calls == 1 {
			close(woke)
		}
	}
	require.NoError(t, p.Go(0, func(int) { p.Wake(); <-woke }, func() error { return nil }))
	require.NoError(t, p.Finish())
	require.Positive(t, calls)
}

// Stop waits for the works under way and runs nothing queued: a caller
// that stops on an error of its own returns with no work still running.
func TestStopWaitsAndRunsNothing(t *testing.T) {
	p := New(1, 3, 16)
	var running atomic.Int32
	gate := make(chan struct{})
	ran := 0
	for range 3 {
		require.NoError(t, p.Go(0, func(int) { running.Add(1); <-gate; running.Add(-1) }, func() error { ran++; return nil }))
	}
	require.NoError(t, p.Later(func() error { ran++; return nil }))
	close(gate)
	p.Stop()
	require.Zero(t, running.Load())
	require.Zero(t, ran)
}
