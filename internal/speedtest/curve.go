package speedtest

import (
	"math"
	"sort"
	"sync"
	"time"
)

// recorder notes the time at which each I/O of a phase completed and the
// bytes it moved. Streams report concurrently; the times are taken under
// the lock, so the events are in time order.
type recorder struct {
	mu     sync.Mutex
	start  time.Time
	now    func() time.Time
	events []event
	total  int64
}

type event struct {
	t   time.Duration // since the phase started
	cum int64         // bytes done by then, all streams
}

func newRecorder(now func() time.Time) *recorder {
	return &recorder{now: now, start: now()}
}

// add records n bytes done now and returns the phase's total.
func (r *recorder) add(n int) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(n)
	r.events = append(r.events, event{t: r.now().Sub(r.start), cum: r.total})
	return r.total
}

// timeAt is when the phase had done b bytes: interpolated between the
// completions around b (an I/O's bytes are taken to arrive evenly over
// the time since the one before it).
func timeAt(ev []event, b int64) float64 {
	i := sort.Search(len(ev), func(i int) bool { return ev[i].cum >= b })
	if i == len(ev) {
		return ev[len(ev)-1].t.Seconds()
	}
	var t0 float64
	var c0 int64
	if i > 0 {
		t0, c0 = ev[i-1].t.Seconds(), ev[i-1].cum
	}
	t1, c1 := ev[i].t.Seconds(), ev[i].cum
	if c1 == c0 {
		return t1
	}
	return t0 + (t1-t0)*float64(b-c0)/float64(c1-c0)
}

// curve cuts the phase's bytes into n equal parts and gives each part's
// rate: the curve over the test, by position (so a cache that runs out
// shows where, in bytes, it did).
func curve(ev []event, n int) []Point {
	if len(ev) == 0 || n <= 0 {
		return nil
	}
	total := ev[len(ev)-1].cum
	if int64(n) > total {
		n = int(total)
	}
	pts := make([]Point, 0, n)
	prevB, prevT := int64(0), 0.0
	for k := 1; k <= n; k++ {
		b := total * int64(k) / int64(n)
		t := timeAt(ev, b)
		p := Point{At: b, Seconds: t}
		if dt := t - prevT; dt > 0 {
			p.Rate = float64(b-prevB) / dt
		}
		pts = append(pts, p)
		prevB, prevT = b, t
	}
	// A part moved within one clock tick has no measurable time: give it
	// its neighbours' rate rather than none.
	for i := range pts {
		if pts[i].Rate == 0 {
			pts[i].Rate = neighbourRate(pts, i)
		}
	}
	return pts
}

func neighbourRate(pts []Point, i int) float64 {
	for d := 1; d < len(pts); d++ {
		for _, j := range []int{i - d, i + d} {
			if j >= 0 && j < len(pts) && pts[j].Rate > 0 {
				return pts[j].Rate
			}
		}
	}
	return 0
}

// cliff thresholds: the rate after the drop is at most dropRatio of the
// rate before it; the drop lasts: its median is at most medianRatio of
// the median before it, it runs to the end of the test over at least
// minAfter parts and minAfterShare of the curve (10 parts of 100: not one
// slow sample, nor a few), and the rest of the curve stays below: at
// most strayShare of the parts after the drop come back up to the middle
// of the two medians (load noise dips and recovers; a cache that ran out
// does not fill again while the test writes). The part before spans at
// least minBefore.
const (
	dropRatio     = 0.6
	medianRatio   = 0.7
	minBefore     = 2
	minAfter      = 5
	minAfterShare = 0.10
	strayShare    = 0.10
)

// findCliff looks for the point where the rate fell and stayed down (a
// drive's SLC or DRAM cache running out; a throttling bridge): the split
// of the curve into a faster part and a slower part that fits it best
// (least squares on the logarithm of the rates: a machine's stalls scale a
// rate down, they do not subtract from it, so a few stalled parts just
// before the cliff do not pull the split forward), kept only when the
// slower part is clearly and lastingly slower (see the thresholds above).
// Nil when the curve has no such step. A folder in memory has no cache
// to run out: its callers drop the cliff (see RunFolder).
func findCliff(pts []Point) *Cliff {
	n := len(pts)
	after := max(minAfter, int(math.Ceil(minAfterShare*float64(n))))
	if n < minBefore+after {
		return nil
	}
	best, bestErr := -1, 0.0
	for k := minBefore; k <= n-after; k++ {
		e := sse(pts[:k]) + sse(pts[k:])
		if best < 0 || e < bestErr {
			best, bestErr = k, e
		}
	}
	before, below := meanRate(pts[:best]), meanRate(pts[best:])
	if before <= 0 || below > dropRatio*before {
		return nil
	}
	mb, ma := median(pts[:best]), median(pts[best:])
	if ma > medianRatio*mb {
		return nil
	}
	mid, stray := (mb+ma)/2, 0
	for _, p := range pts[best:] {
		if p.Rate >= mid {
			stray++
		}
	}
	if float64(stray) > strayShare*float64(n-best) {
		return nil
	}
	return &Cliff{At: pts[best-1].At, Before: before, After: below}
}

// Spread of a phase: how much the rate varied between samples.
const (
	// MaxSpread is the most a phase's rate may vary between samples (the
	// coefficient of variation of its samples' rates: their standard
	// deviation over their mean, about each level when the rate fell
	// once) for its result to be kept for the planner: above it the
	// machine was busy or the medium unsteady, and the mean says little.
	MaxSpread = 0.25
	// spreadParts is the most samples the spread is judged on, and
	// minSpreadParts the fewest: each sample spans at least
	// iosPerSample I/Os (a part of a curve that spans less than one I/O
	// is interpolated, not measured); a test with fewer I/Os than
	// minSpreadParts samples of them is not judged.
	spreadParts    = DefaultParts
	minSpreadParts = 10
	iosPerSample   = 4
)

// spread is the coefficient of variation of the rates of up to
// spreadParts equal samples of a phase, each of at least iosPerSample
// I/Os, about the mean of its level (before or after the cliff, when the
// rate fell at cut bytes; 0: one level), and the number of samples it is
// judged on (0: too few I/Os to judge).
func spread(ev []event, cut int64) (float64, int) {
	n := min(spreadParts, len(ev)/iosPerSample)
	if n < minSpreadParts {
		return 0, 0
	}
	pts := curve(ev, n)
	var levels [][]Point
	if k := sort.Search(len(pts), func(i int) bool { return pts[i].At > cut }); cut > 0 && k > 1 && k < len(pts)-1 {
		levels = [][]Point{pts[:k], pts[k:]}
	} else {
		levels = [][]Point{pts}
	}
	var sum float64
	for _, l := range levels {
		sum += cv(l) * float64(len(l))
	}
	return sum / float64(len(pts)), len(pts)
}

// cv is the coefficient of variation of the parts' rates.
func cv(pts []Point) float64 {
	var m float64
	for _, p := range pts {
		m += p.Rate
	}
	m /= float64(len(pts))
	if m <= 0 {
		return 0
	}
	var v float64
	for _, p := range pts {
		v += (p.Rate - m) * (p.Rate - m)
	}
	return math.Sqrt(v/float64(len(pts))) / m
}

// meanRate is bytes over time across the parts (the parts are of equal
// bytes, so the harmonic mean of their rates), not the mean of rates.
func meanRate(pts []Point) float64 {
	var inv float64
	for _, p := range pts {
		if p.Rate <= 0 {
			return 0
		}
		inv += 1 / p.Rate
	}
	if inv == 0 {
		return 0
	}
	return float64(len(pts)) / inv
}

// sse is the squared error of the parts' log rates about their mean.
func sse(pts []Point) float64 {
	var m float64
	for _, p := range pts {
		m += logRate(p)
	}
	m /= float64(len(pts))
	var e float64
	for _, p := range pts {
		d := logRate(p) - m
		e += d * d
	}
	return e
}

func logRate(p Point) float64 { return math.Log(max(p.Rate, 1)) }

func median(pts []Point) float64 {
	r := make([]float64, len(pts))
	for i, p := range pts {
		r[i] = p.Rate
	}
	sort.Float64s(r)
	if len(r)%2 == 1 {
		return r[len(r)/2]
	}
	return (r[len(r)/2-1] + r[len(r)/2]) / 2
}
