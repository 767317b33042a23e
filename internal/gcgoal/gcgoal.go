package gcgoal

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
)

// MinPercent is the least percentage gcgoal sets: with nearly all the
// live heap held, the collector still runs no more often than when a
// quarter of it grows.
const MinPercent = 25

// Held is bytes held for a run, counted until released.
type Held struct {
	n    int64
	done atomic.Bool
	c    *controller
}

// HoldFor counts n bytes held by owner until Release is called or owner
// is collected, whichever comes first.
func HoldFor[T any](owner *T, n int64) *Held {
	return std.holdFor(n, func(h *Held) { runtime.AddCleanup(owner, func(h *Held) { h.Release() }, h) })
}

// Release stops counting h's bytes (once; later calls do nothing).
func (h *Held) Release() {
	if h == nil || !h.done.CompareAndSwap(false, true) {
		return
	}
	h.c.release(h.n)
}

// Percent is the collector's percentage gcgoal set last (its base when
// nothing is held); -1 when GOGC=off.
func Percent() int { return std.percent() }

// HeldBytes is what is held now.
func HeldBytes() int64 { return std.held.Load() }

var std = newController(os.Getenv("GOGC"), debug.SetGCPercent, liveHeap, afterNextGC, gcCycles)

// controller is gcgoal's state: the base percentage (the environment's
// GOGC, 100 without), what is held and the percentage set.
type controller struct {
	base  int // -1: GOGC=off, gcgoal does nothing
	held  atomic.Int64
	mu    sync.Mutex
	cur   int
	armed bool
	set   func(int) int   // debug.SetGCPercent
	live  func() int64    // liveHeap
	arm   func(fn func()) // afterNextGC; nil: never again on its own
	gcs   func() uint64   // gcCycles
	// released is the collections run when bytes were last released:
	// until the next, the live heap measured still counts them, and the
	// percentage is not raised (it would let the heap grow to twice
	// what is no longer live).
	released uint64
}

func newController(env string, set func(int) int, live func() int64, arm func(func()), gcs func() uint64) *controller {
	base := 100
	switch v, err := strconv.Atoi(env); {
	case env == "off":
		base = -1
	case err == nil && v >= 0:
		base = v
	}
	return &controller{base: base, cur: base, set: set, live: live, arm: arm, gcs: gcs}
}

func (c *controller) holdFor(n int64, attach func(*Held)) *Held {
	h := &Held{n: max(n, 0), c: c}
	c.held.Add(h.n)
	attach(h)
	c.update()
	return h
}

func (c *controller) release(n int64) {
	c.mu.Lock()
	c.released = c.gcs()
	c.mu.Unlock()
	c.held.Add(-n)
	c.update()
}

func (c *controller) percent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// update sets the percentage for what is held now and, while anything
// is (or a raise waits for the next collection), arms itself to run
// again after the next collection.
func (c *controller) update() {
	if c.base < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.goal(c.held.Load())
	wait := p > c.cur && c.gcs() == c.released
	if wait {
		p = c.cur
	}
	if p != c.cur {
		c.set(p)
		c.cur = p
	}
	if (c.held.Load() > 0 || wait) && !c.armed && c.arm != nil {
		c.armed = true
		c.arm(func() {
			c.mu.Lock()
			c.armed = false
			c.mu.Unlock()
			c.update()
		})
	}
}

// goal is the percentage for held bytes held: the base scaled by the
// share of the live heap that is not held, MinPercent at least (or the
// base, when lower).
func (c *controller) goal(held int64) int {
	if held <= 0 {
		return c.base
	}
	live := c.live()
	if live <= 0 {
		return c.base
	}
	p := int(int64(c.base) * max(live-held, 0) / live)
	return min(max(p, MinPercent), c.base)
}

// sentinel is an object made to be collected: its cleanup says a
// collection ran. It is larger than the tiny allocator's blocks so that
// nothing else keeps it.
type sentinel struct {
	_ [32]byte
	_ *int
}

// afterNextGC calls fn once, after the next collection.
func afterNextGC(fn func()) {
	s := &sentinel{}
	runtime.AddCleanup(s, func(fn func()) { fn() }, fn)
}

// gcCycles is how many collections have run.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// liveHeap is the heap live after the last collection.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
