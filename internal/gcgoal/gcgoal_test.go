package gcgoal

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"
)

// The percentage is the base scaled by the share of the live heap not
// held: from MinPercent (or the base, when lower) to the base; the
// environment's GOGC is the base, and GOGC=off is left alone.
func TestGoal(t *testing.T) {
	live := int64(100 << 20)
	var sets []int
	gcs := uint64(1)
	c := newController("", func(p int) int { sets = append(sets, p); return 0 }, func() int64 { return live }, nil, func() uint64 { return gcs })
	for _, tc := range []struct {
		held int64
		want int
	}{{0, 100}, {40 << 20, 60}, {90 << 20, MinPercent}, {200 << 20, MinPercent}, {1, 99}} {
		require.Equal(t, tc.want, c.goal(tc.held), "held %d of %d live", tc.held, live)
	}
	h := c.holdFor(40<<20, func(*Held) {})
	require.Equal(t, 60, c.percent())
	h2 := c.holdFor(30<<20, func(*Held) {})
	require.Equal(t, 30, c.percent())
	h.Release()
	h.Release() // once only
	require.Equal(t, int64(30<<20), c.held.Load())
	require.Equal(t, 30, c.percent(), "the live heap measured before the release still counts the bytes released: no raise")
	gcs, live = 2, 60<<20
	c.update() // after the next collection
	require.Equal(t, 50, c.percent())
	h2.Release()
	require.Equal(t, 50, c.percent())
	gcs, live = 3, 30<<20
	c.update()
	require.Equal(t, 100, c.percent())
	h3 := c.holdFor(15<<20, func(*Held) {})
	require.Equal(t, 50, c.percent(), "lowered at once")
	h3.Release()
	require.Equal(t, []int{60, 30, 50, 100, 50}, sets, "set only when it changes")

	live = 100 << 20
	for env, want := range map[string]int{"200": 120, "50": 30, "20": 20, "junk": 60} {
		c := newController(env, func(int) int { return 0 }, func() int64 { return live }, nil, func() uint64 { return 0 })
		require.Equal(t, want, c.goal(40<<20), "GOGC=%s", env)
	}
	off := newController("off", func(int) int { t.Fatal("GOGC=off is the user's"); return 0 }, func() int64 { return live }, nil, func() uint64 { return 0 })
	off.holdFor(40<<20, func(*Held) {}).Release()
	require.Equal(t, -1, off.percent())
}

// On the real heap: 64 MiB held of ~128 MiB live lowers the collector's
// percentage to ~50 and its heap goal to the live heap plus what is not
// held; released, the percentage is the base again.
func TestHoldLowersTheHeapGoal(t *testing.T) {
	if std.base != 100 {
		t.Skipf("GOGC=%d in the environment", std.base)
	}
	type run struct{ list, buffers []byte }
	r := &run{list: make([]byte, 64<<20), buffers: make([]byte, 64<<20)}
	for i := range r.list {
		r.list[i], r.buffers[i] = byte(i), byte(i)
	}
	runtime.GC()
	h := HoldFor(r, int64(len(r.list)))
	t.Cleanup(h.Release)
	live := liveHeap()
	p := Percent()
	require.Less(t, p, 60)
	require.InDelta(t, 100*float64(live-int64(len(r.list)))/float64(live), float64(p), 1.01)
	runtime.GC()
	goal := heapGoal()
	live = liveHeap()
	require.LessOrEqual(t, goal, live+(live-int64(len(r.list)))+8<<20, "the goal: the live heap and what is not held (stacks and globals beside)")
	runtime.KeepAlive(r)
	h.Release()
	require.Zero(t, HeldBytes())
	require.Equal(t, p, Percent(), "not raised before a collection measures what was let go")
	r = nil
	for i := 0; Percent() != 100; i++ {
		require.Less(t, i, 1000, "never raised after the collections")
		runtime.GC()
		runtime.Gosched()
	}
}

// What a run holds is let go when the run is collected, released or
// not.
func TestHeldLetGoWithItsOwner(t *testing.T) {
	func() {
		type run struct{ list []byte }
		r := &run{list: make([]byte, 1<<20)}
		HoldFor(r, int64(len(r.list)))
		require.Equal(t, int64(1<<20), HeldBytes())
	}()
	for i := 0; HeldBytes() != 0 || Percent() != std.base; i++ {
		require.Less(t, i, 1000, "the owner's cleanup never ran")
		runtime.GC()
		runtime.Gosched()
	}
}

func heapGoal() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
