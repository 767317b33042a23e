package live

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)

// priorOf is the plan's figures of runs, off from the truth as a plan
// is: its rates (the media's and destinations' profiles or speed tests)
// by the factor off, its costs per file and per card (measured on other
// jobs) by 0.85.
func priorOf(off float64, runs ...*simRun) func(string, int) Prior {
	secs := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	return func(label string, hop int) Prior {
		for _, r := range runs {
			if r.label == label && r.hop == max(hop, 1) {
				return Prior{Rate: r.rate * off, PerFile: secs(r.perFile * 0.85), VerifyRate: r.vrate * off,
					VerifyPerFile: secs(r.vPer * 0.85), Fixed: secs(r.fixed * 0.85)}
			}
		}
		return Prior{}
	}
}

func mixed(small, large int) []int64 {
	return append(sizes(small, 10_000), sizes(large, 40_000_000)...)
}

func TestETAsSmallFilesThenClips(t *testing.T) {
	a := newSim("A001", 1, mixed(3000, 4), 20e6, 0.003, 200e6, 0.001, 2, 0.5)
	b := newSim("A002", 1, append(sizes(4, 40_000_000), sizes(3000, 10_000)...), 20e6, 0.003, 200e6, 0.001, 2, 0.5)
	m := NewModel(Config{Verify: true, Prior: priorOf(0.9, a, b)}, t0)
	j := &simJob{runs: []*simRun{a, b}, slots: 1}
	ticks, safe, end := j.play(t, m, t0)
	checkETAs(t, ticks, safe, end)
}

func TestETAsWithoutAPlan(t *testing.T) {
	// Nothing planned: the first seconds measure; then the estimates hold
	// (a card of one kind of file: nothing unseen is left to learn).
	a := newSim("A001", 1, sizes(30, 12_000_000), 30e6, 0.002, 300e6, 0.0005, 2, 0.3)
	m := NewModel(Config{Verify: true}, t0)
	ticks, safe, end := (&simJob{runs: []*simRun{a}, slots: 1}).play(t, m, t0)
	if ticks[0].p.Cards[0].Rate <= 0 {
		t.Errorf("no rate after the first second: %+v", ticks[0].p.Cards[0])
	}
	checkETAs(t, ticks, safe, end)
}

func TestETAsCascade(t *testing.T) {
	a := newSim("A001", 1, sizes(12, 50_000_000), 40e6, 0.002, 400e6, 0.001, 2, 0.5)
	b := newSim("A002", 1, sizes(10, 50_000_000), 40e6, 0.002, 400e6, 0.001, 2, 0.5)
	a2 := newSim("A001", 2, sizes(12, 50_000_000), 60e6, 0.002, 300e6, 0.001, 1, 0.5)
	b2 := newSim("A002", 2, sizes(10, 50_000_000), 60e6, 0.002, 300e6, 0.001, 1, 0.5)
	m := NewModel(Config{Verify: true, Cascade: true, ThenDests: 1, ThenSlots: 1, Prior: priorOf(0.9, a, b, a2, b2)}, t0)
	j := &simJob{runs: []*simRun{a, b}, seconds: map[string]*simRun{"A001": a2, "A002": b2}, slots: 1}
	ticks, safe, end := j.play(t, m, t0)
	checkETAs(t, ticks, safe, end)
	// Card free comes before safe to format, for each card.
	for _, tk := range ticks[len(ticks)/10:] {
		for _, c := range tk.p.Cards {
			if c.Hop != 2 && c.ETA.CardFree.Known && c.ETA.Safe.Known && c.ETA.CardFree.Seconds > c.ETA.Safe.Seconds {
				t.Fatalf("t=%.0f %s: free in %v after safe in %v", tk.t, c.Label, c.ETA.CardFree, c.ETA.Safe)
			}
		}
	}
}

func TestETAsUploadStall(t *testing.T) {
	// An upload (the storage checks the copy: read-back is quick) with
	// the server gone for 30 s, and a history upload of 6 s at the end.
	u := newSim("A001", 1, sizes(20, 40_000_000), 40e6, 0.05, 4e9, 0.01, 1, 6)
	u.stallFrom, u.stallTo, u.stallCause = 8, 38, "s3: connection refused"
	m := NewModel(Config{Verify: true, Prior: priorOf(0.9, u)}, t0)
	ticks, safe, end := (&simJob{runs: []*simRun{u}, slots: 1}).play(t, m, t0)
	var said bool
	var during []tick
	var after []tick
	for _, tk := range ticks {
		c := tk.p.Cards[0]
		if c.Stall != nil {
			said = true
			if c.Stall.Cause != "s3: connection refused" || c.Stall.Retry == 0 || c.Stall.Where != "d1" {
				t.Fatalf("stall %+v", c.Stall)
			}
			if c.ETA.Safe.Known || tk.p.Job.ETA.Safe.Known {
				t.Fatalf("t=%.0f: ETA %v while stalled", tk.t, c.ETA.Safe)
			}
		}
		// Before the stall the time left holds a stall nobody can know
		// of; after it, the estimates must hold again.
		if tk.t >= u.stallFrom && tk.t < u.stallTo {
			during = append(during, tk)
		} else if tk.t >= u.stallTo {
			after = append(after, tk)
		}
	}
	if !said {
		t.Fatal("a 30 s stall was never said")
	}
	// Declared once StallAfter passed, until it moves again.
	for _, tk := range during {
		stalled := tk.p.Cards[0].Stall != nil
		if want := tk.t-u.stallFrom >= StallAfter.Seconds()+1; want && !stalled {
			t.Errorf("t=%.0f: not said stalled %.0fs into the stall", tk.t, tk.t-u.stallFrom)
		}
	}
	checkETAs(t, after, safe, end)
}

// A read-back held below the copy's pace while the card is read (the
// bus budget gives the copy its share first; the copy's writes share
// the destination) runs at its own rate once the copy is over. From the
// copy's end on, the card's "safe in" is the read-back's true tail (the
// backlog at its own rate, 4 s here), not the backlog at the rate it
// was held to (40 s): the fit weighs the fast seconds by their bytes.
func TestETAsReadBackFasterOnceCopied(t *testing.T) {
	a := newSim("A001", 1, sizes(40, 50_000_000), 50e6, 0.002, 250e6, 0.001, 2, 0.3)
	a.vrateCopying = 25e6
	m := NewModel(Config{Verify: true, Prior: priorOf(0.9, a)}, t0)
	ticks, real, end := (&simJob{runs: []*simRun{a}, slots: 1}).play(t, m, t0)
	r := real["A001"]
	seen := 0
	for _, tk := range ticks {
		if tk.t <= r.copied || tk.t >= end {
			continue
		}
		seen++
		c := tk.p.Cards[0]
		if left := r.safe - tk.t; !c.ETA.Safe.Known || math.Abs(c.ETA.Safe.Seconds-left) > max(0.15*left, 1) {
			t.Errorf("t=%.0f (copied at %.1f): safe in %v, really %.1fs", tk.t, r.copied, c.ETA.Safe, left)
		}
	}
	if seen < 3 {
		t.Fatalf("%d ticks after the copy ended, want a few (copied at %.1f, safe at %.1f)", seen, r.copied, r.safe)
	}
}

// Two cards of a cascade about to be free at about the same time (the
// same bytes, clips of two sizes in another order: their estimates cross
// back and forth): the second runs' queue keeps its order from tick to
// tick, so neither card's "safe in" jumps by a whole second run and
// back each second. It may change once, when a card is really free.
func TestETAsCascadeOrderDoesNotFlap(t *testing.T) {
	var fa, fb []int64
	for i := range 10 {
		if i%2 == 0 {
			fa, fb = append(fa, 30e6, 70e6), append(fb, 70e6, 30e6)
		} else {
			fa, fb = append(fa, 70e6, 30e6), append(fb, 30e6, 70e6)
		}
	}
	a := newSim("A001", 1, fa, 40e6, 0.02, 400e6, 0.001, 1, 0.5)
	b := newSim("A002", 1, fb, 40e6, 0.02, 400e6, 0.001, 1, 0.5)
	a2 := newSim("A001", 2, fa, 60e6, 0.002, 300e6, 0.001, 1, 0.5)
	b2 := newSim("A002", 2, fb, 60e6, 0.002, 300e6, 0.001, 1, 0.5)
	m := NewModel(Config{Verify: true, Cascade: true, ThenDests: 1, ThenSlots: 1, Prior: priorOf(0.9, a, b, a2, b2)}, t0)
	j := &simJob{runs: []*simRun{a, b}, seconds: map[string]*simRun{"A001": a2, "A002": b2}, slots: 1}
	ticks, _, _ := j.play(t, m, t0)
	last := map[string]Estimate{}
	jumps := map[string]int{}
	for _, tk := range ticks {
		for _, c := range tk.p.Cards {
			if c.Hop == 2 {
				continue
			}
			if p, ok := last[c.Label]; ok && p.Known && c.ETA.Safe.Known && c.ETA.Safe.Seconds > p.Seconds+2 {
				jumps[c.Label]++
				t.Logf("t=%.0f %s: safe in %v after %v", tk.t, c.Label, c.ETA.Safe, p)
			}
			last[c.Label] = c.ETA.Safe
		}
	}
	for label, n := range jumps {
		if n > 1 {
			t.Errorf("%s: safe in went up by more than 2 s %d times, want once at most", label, n)
		}
	}
}
