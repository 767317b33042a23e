package plan

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/dit-org/dit/internal/units"
)

// SecondRunSuffix names a card's second run in a cascade's plan.
const SecondRunSuffix = " (2nd run)"

// Cascade is the plan of a cascading copy (destinations of run 2): each
// card is read once to the run-1 destinations; when it is copied there it
// is free (it may leave the reader), and its second run copies the first
// copy, read from FirstCopy, to the run-2 destinations, at most Parallel
// cards at once, in the order the cards became free. The card is safe to
// format when its second run is copied and read back. A run ends when its
// last file (Source.LastFile) is read back from every destination of the
// run at its read rate, after the copy. Times are seconds from the start,
// played forward with the same budgets as the plan, re-planned at every
// start and end of a run (CardPlan.FreeSeconds, SafeSeconds); the next
// second run starts when one is copied (its read-back goes on).
type Cascade struct {
	FirstCopy string   `json:"first_copy"`
	Then      []string `json:"then"`
	Parallel  int      `json:"then_parallel"`
	// LastFreeSeconds: every card is free; LastSafeSeconds: every card is
	// safe to format (nil: a card's size is unknown).
	LastFreeSeconds *float64 `json:"last_card_free_s"`
	LastSafeSeconds *float64 `json:"last_safe_to_format_s"`
	// While first and second runs go together, FirstCopy writes
	// OverlapWrite bytes/s of first copies and reads OverlapRead (second
	// runs and read-back), of WriteCapacity and ReadCapacity.
	OverlapWrite  float64 `json:"overlap_write_bytes_per_s"`
	OverlapRead   float64 `json:"overlap_read_bytes_per_s"`
	WriteCapacity float64 `json:"write_capacity_bytes_per_s"`
	ReadCapacity  float64 `json:"read_capacity_bytes_per_s"`
	// Bottleneck says in words what holds the cascade back, e.g.
	// "destination s1 limits the second run: the last card is safe to
	// format 41 min after it is free".
	Bottleneck string `json:"bottleneck"`
}

// cascade plays a cascade forward and fills the cards' free and safe
// times and res.Cascade.
func cascade(t *Topology, o Options, res *Result) {
	first := -1
	var then []string
	for i, d := range t.Destinations {
		switch {
		case d.Run == 2:
			then = append(then, d.Name)
		case first < 0:
			first = i
		}
	}
	if len(then) == 0 || first < 0 {
		return
	}
	fd := t.Dest(first)
	c := &Cascade{FirstCopy: fd.Name, Then: then, Parallel: max(o.ThenParallel, 1)}
	res.Cascade = c
	n := len(t.Sources)
	for i := 0; i < n; i++ {
		if t.Sources[i].Size <= 0 {
			c.Bottleneck = "a card's size is unknown: no times"
			return
		}
	}
	rem1, rem2 := make([]float64, n), make([]float64, n)
	done1, done2, started2 := make([]bool, n), make([]bool, n), make([]bool, n)
	free, safe := make([]float64, n), make([]float64, n)
	for i, s := range t.Sources {
		rem1[i], rem2[i] = float64(s.Size), float64(s.Size)
	}
	// tail is the read-back of a card's last file after its run's copy:
	// the slowest destination of the run reading it at its read rate.
	tail := func(i int, run int) float64 {
		var v float64
		for di := range t.Destinations {
			d := t.Dest(di)
			if (d.Run == 2) == (run == 2) && d.Read > 0 && o.Verify {
				v = max(v, float64(t.Sources[i].LastFile)/d.Read)
			}
		}
		return v
	}
	var queue []int
	pendingFree := map[int]float64{} // card -> when it will be free
	now := 0.0
	lastLimit := ""
	overlapSeen := false
	for step := 0; step < 8*n+8; step++ {
		for i, at := range pendingFree {
			if at <= now+1e-9 {
				delete(pendingFree, i)
				free[i] = at
				queue = append(queue, i)
			}
		}
		if len(queue) > 1 {
			sortByFree(queue, free)
		}
		active2 := 0
		for i := range started2 {
			if started2[i] && !done2[i] {
				active2++
			}
		}
		for len(queue) > 0 && active2 < c.Parallel {
			started2[queue[0]] = true
			queue = queue[1:]
			active2++
		}
		type stream struct {
			i      int
			second bool
		}
		sub := t.Clone()
		sub.Sources = nil
		var idx []stream
		for i := 0; i < n; i++ {
			if !done1[i] {
				sub.Sources = append(sub.Sources, t.Sources[i])
				idx = append(idx, stream{i, false})
			}
		}
		for i := 0; i < n; i++ {
			if started2[i] && !done2[i] {
				sub.Sources = append(sub.Sources, Source{Name: t.Sources[i].Name + SecondRunSuffix, Bus: fd.Bus,
					Size: t.Sources[i].Size, From: fd.Name})
				idx = append(idx, stream{i, true})
			}
		}
		if len(idx) == 0 {
			if len(pendingFree) == 0 {
				break
			}
			next := math.Inf(1)
			for _, at := range pendingFree {
				next = min(next, at)
			}
			now = next
			continue
		}
		cons, err := build(sub, o, len(idx))
		if err != nil {
			c.Bottleneck = err.Error()
			return
		}
		rates, limits := fill(cons, len(idx))
		firsts, seconds := false, false
		for k, st := range idx {
			if st.second {
				seconds = true
				if res.Cards[st.i].SecondRate == 0 {
					res.Cards[st.i].SecondRate = rates[k]
					if limits[k] >= 0 {
						res.Cards[st.i].SecondLimitedBy = cons[limits[k]].id
					}
				}
				if limits[k] >= 0 {
					lastLimit = cons[limits[k]].id
				}
			} else {
				firsts = true
			}
		}
		if firsts && seconds && !overlapSeen {
			overlapSeen = true
			for k, st := range idx {
				if st.second {
					c.OverlapRead += rates[k]
				} else {
					c.OverlapWrite += rates[k]
				}
			}
			if o.Verify {
				c.OverlapRead += c.OverlapWrite
			}
			amp := WriteAmplification(fd.Blades, fd.RAID)
			if fd.Write > 0 {
				c.WriteCapacity = fd.Write / amp
			}
			c.ReadCapacity = fd.Read
		}
		dt := math.Inf(1)
		for k, st := range idx {
			r := rem1[st.i]
			if st.second {
				r = rem2[st.i]
			}
			if rates[k] > 0 {
				dt = min(dt, r/rates[k])
			}
		}
		for _, at := range pendingFree {
			dt = min(dt, at-now)
		}
		if math.IsInf(dt, 1) {
			c.Bottleneck = "a rate is unknown on the way of a run: no times"
			return
		}
		now += dt
		for k, st := range idx {
			size := float64(t.Sources[st.i].Size)
			if st.second {
				rem2[st.i] -= rates[k] * dt
				if rem2[st.i] <= size*1e-9+1 {
					done2[st.i], safe[st.i] = true, now+tail(st.i, 2)
				}
				continue
			}
			rem1[st.i] -= rates[k] * dt
			if rem1[st.i] <= size*1e-9+1 {
				done1[st.i] = true
				pendingFree[st.i] = now + tail(st.i, 1)
			}
		}
	}
	var lastFree, lastSafe float64
	last := -1
	for i := 0; i < n; i++ {
		if !done2[i] {
			c.Bottleneck = "the cascade does not end in the plan"
			return
		}
		f, s := free[i], safe[i]
		res.Cards[i].FreeSeconds, res.Cards[i].SafeSeconds = &f, &s
		lastFree = max(lastFree, f)
		if s >= lastSafe {
			lastSafe, last = s, i
		}
	}
	c.LastFreeSeconds, c.LastSafeSeconds = &lastFree, &lastSafe
	gap := time.Duration((safe[last] - free[last]) * float64(time.Second))
	who := LimitWords(lastLimit)
	if lastLimit == LimitMedia {
		who = "reading the first copy on " + fd.Name
	}
	after := fmt.Sprintf("the last card (%s) is safe to format %s after it is free", t.Sources[last].Name, units.FormatDuration(gap))
	c.Bottleneck = fmt.Sprintf("%s limits the second run: %s", who, after)
	for _, name := range then {
		if lastLimit == destPrefix+name {
			c.Bottleneck = fmt.Sprintf("shuttles limit: %s (%s holds the second run)", after, who)
		}
	}
}

// sortByFree orders cards waiting for their second run by the time they
// became free (then by their order).
func sortByFree(q []int, free []float64) {
	sort.SliceStable(q, func(a, b int) bool {
		if free[q[a]] != free[q[b]] {
			return free[q[a]] < free[q[b]]
		}
		return q[a] < q[b]
	})
}
