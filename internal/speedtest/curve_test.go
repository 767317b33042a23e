package speedtest

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// events builds a phase's completions: blocks of bs bytes, each taking
// the time rate(at) says at the bytes done so far, with jitter.
func events(total, bs int64, rate func(at int64) float64, jitter float64, seed uint64) []event {
	r := rand.New(rand.NewPCG(seed, 1))
	var ev []event
	var t time.Duration
	for cum := int64(0); cum < total; {
		cum += bs
		d := float64(bs) / rate(cum) * (1 + jitter*(r.Float64()*2-1))
		t += time.Duration(d * float64(time.Second))
		ev = append(ev, event{t: t, cum: cum})
	}
	return ev
}

func TestCurveRatesAreBytesOverTime(t *testing.T) {
	ev := events(100<<20, 1<<20, func(int64) float64 { return 200e6 }, 0, 1)
	pts := curve(ev, 10)
	if len(pts) != 10 {
		t.Fatalf("%d points, want 10", len(pts))
	}
	for _, p := range pts {
		if math.Abs(p.Rate-200e6)/200e6 > 0.01 {
			t.Errorf("part ending at %d: %.0f B/s, want 200e6", p.At, p.Rate)
		}
	}
	if pts[9].At != 100<<20 {
		t.Errorf("last point at %d, want %d", pts[9].At, 100<<20)
	}
	if m := meanRate(pts); math.Abs(m-200e6)/200e6 > 0.01 {
		t.Errorf("mean %.0f, want 200e6", m)
	}
}

func TestCliffFoundWhereTheCacheRanOut(t *testing.T) {
	for _, c := range []struct {
		name       string
		at         float64 // fraction of the test
		fast, slow float64
		jitter     float64
	}{
		{"SLC cache at 40 %", 0.4, 3e9, 0.6e9, 0.15},
		{"DRAM cache at 10 %", 0.1, 2e9, 0.9e9, 0.1},
		{"late at 85 %", 0.85, 1.5e9, 0.4e9, 0.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			total := int64(1 << 30)
			cut := int64(float64(total) * c.at)
			ev := events(total, 1<<20, func(at int64) float64 {
				if at > cut {
					return c.slow
				}
				return c.fast
			}, c.jitter, 7)
			cl := findCliff(curve(ev, DefaultParts))
			if cl == nil {
				t.Fatal("no cliff found")
			}
			if d := math.Abs(float64(cl.At-cut)) / float64(cut); d > 0.1 {
				t.Errorf("cliff at %d, want %d (off by %.0f %%)", cl.At, cut, d*100)
			}
			if math.Abs(cl.After-c.slow)/c.slow > 0.15 || math.Abs(cl.Before-c.fast)/c.fast > 0.15 {
				t.Errorf("before %.2g after %.2g, want %.2g and %.2g", cl.Before, cl.After, c.fast, c.slow)
			}
		})
	}
}

func TestNoCliffOnASteadyOrRisingCurve(t *testing.T) {
	total := int64(1 << 30)
	for name, rate := range map[string]func(int64) float64{
		"steady with noise":  func(int64) float64 { return 1e9 },
		"slow first percent": func(at int64) float64 { return map[bool]float64{true: 0.2e9, false: 1e9}[at < total/100] },
		"a step up":          func(at int64) float64 { return map[bool]float64{true: 0.5e9, false: 1.5e9}[at < total/2] },
		"a brief stall": func(at int64) float64 {
			return map[bool]float64{true: 0.1e9, false: 1e9}[at > total/2 && at < total/2+total/100]
		},
	} {
		t.Run(name, func(t *testing.T) {
			ev := events(total, 1<<20, rate, 0.25, 3)
			if cl := findCliff(curve(ev, DefaultParts)); cl != nil {
				t.Errorf("cliff reported at %d (%.2g -> %.2g) on a curve without one", cl.At, cl.Before, cl.After)
			}
		})
	}
}

// stepped is a rate function over the test's bytes given by the rate of
// each of its parts (len(parts) equal parts).
func stepped(total int64, parts []float64) func(int64) float64 {
	return func(at int64) float64 {
		i := int((at - 1) * int64(len(parts)) / total)
		return parts[min(max(i, 0), len(parts)-1)]
	}
}

func fill(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// A drop is a cache running out only when it lasts: the rest of the
// curve stays below, over at least a tenth of it. One slow sample, a
// few at the end, or load that comes and goes after a fast start are
// not.
func TestCliffOnlyForALastingDrop(t *testing.T) {
	total := int64(1 << 30)
	for _, c := range []struct {
		name  string
		parts []float64
		want  bool
	}{
		{"lasting drop after 6 %", fill(100, func(i int) float64 { return map[bool]float64{true: 2e9, false: 0.7e9}[i < 6] }), true},
		{"lasting drop for the last 12 %", fill(100, func(i int) float64 { return map[bool]float64{true: 2e9, false: 0.7e9}[i < 88] }), true},
		{"one slow sample", fill(100, func(i int) float64 { return map[bool]float64{true: 0.1e9, false: 1e9}[i == 40] }), false},
		{"one slow sample last", fill(100, func(i int) float64 { return map[bool]float64{true: 0.1e9, false: 1e9}[i == 99] }), false},
		{"slow for the last 8 %", fill(100, func(i int) float64 { return map[bool]float64{true: 0.2e9, false: 1e9}[i >= 92] }), false},
		{"load after a fast start", fill(100, func(i int) float64 {
			// 6 fast parts, then load: runs of slow parts with the
			// full rate back in between (a third of the time).
			if i < 6 || (i/4)%3 == 0 {
				return 2e9
			}
			return 0.5e9
		}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := events(total, 1<<20, stepped(total, c.parts), 0.05, 5)
			cl := findCliff(curve(ev, DefaultParts))
			if got := cl != nil; got != c.want {
				t.Errorf("cliff %v (%+v), want %v", got, cl, c.want)
			}
		})
	}
}

func phaseOf(ev []event) *Phase {
	p := &Phase{Name: "write"}
	r := &recorder{events: ev}
	finish(p, r, DefaultParts)
	return p
}

// The spread is the variation between samples about each level: a
// steady curve and a clean cliff are steady, load is not; a test of too
// few I/Os is not judged.
func TestSpreadOfSamples(t *testing.T) {
	total := int64(1 << 30)
	steady := phaseOf(events(total, 1<<20, func(int64) float64 { return 1e9 }, 0.2, 9))
	if steady.SpreadSamples != DefaultParts || steady.Spread > 0.05 || steady.Noisy() {
		t.Errorf("steady: spread %.3f over %d samples", steady.Spread, steady.SpreadSamples)
	}
	cliff := phaseOf(events(total, 1<<20, func(at int64) float64 { return map[bool]float64{true: 3e9, false: 0.6e9}[at < total*4/10] }, 0.2, 9))
	if cliff.Cliff == nil || cliff.Spread > 0.05 || cliff.Noisy() {
		t.Errorf("clean cliff: %+v, spread %.3f", cliff.Cliff, cliff.Spread)
	}
	loaded := phaseOf(events(total, 1<<20, stepped(total, fill(100, func(i int) float64 {
		return []float64{1e9, 0.4e9, 0.8e9, 1.2e9, 0.3e9}[i*7%5]
	})), 0.1, 9))
	if !loaded.Noisy() || loaded.Spread < MaxSpread {
		t.Errorf("loaded: spread %.3f not noisy", loaded.Spread)
	}
	few := phaseOf(events(32<<20, 1<<20, stepped(32<<20, []float64{1e9, 0.1e9}), 0, 9))
	if few.SpreadSamples != 0 || few.Noisy() {
		t.Errorf("32 I/Os judged: spread %.3f over %d samples", few.Spread, few.SpreadSamples)
	}
}
