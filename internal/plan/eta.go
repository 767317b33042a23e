package plan

import "math"

// etas plays the plan forward: when a card finishes, the others are
// re-planned with the freed budget. A card's run is its bytes at its
// rate and the costs it pays beyond them (its start and its files, when
// its file count is known), paid along the bytes; it is safe to format
// when its last file is read back and its fixed costs paid (a cascade's
// cards are timed by cascade).
func etas(t *Topology, o Options, res *Result) {
	n := len(t.Sources)
	cascaded := isCascade(t)
	left := make([]work, n)
	active := make([]bool, n)
	known := true
	c := cardCosts(t, o, 1)
	for i, s := range t.Sources {
		left[i] = work{bytes: float64(s.Size), over: overhead(s, c, res.Cards[i].Rate, cardWrite(t, res, i))}
		active[i] = true
		if s.Size <= 0 {
			known = false
		}
	}
	rates := make([]float64, n)
	for i, c := range res.Cards {
		rates[i] = c.Rate
	}
	now := 0.0
	for step := 0; step <= n; step++ {
		dt := math.Inf(1)
		for i := 0; i < n; i++ {
			if active[i] && t.Sources[i].Size > 0 {
				dt = min(dt, left[i].left(rates[i]))
			}
		}
		if math.IsInf(dt, 1) {
			break
		}
		now += dt
		for i := 0; i < n; i++ {
			if !active[i] {
				continue
			}
			left[i] = left[i].advance(rates[i], dt)
			if s := t.Sources[i]; s.Size > 0 && left[i].done(float64(s.Size)) {
				active[i] = false
				v := now
				res.Cards[i].ETASeconds = &v
			}
		}
		// Re-plan the cards still copying.
		sub := t.Clone()
		sub.Sources = nil
		var idx []int
		for i := 0; i < n; i++ {
			if active[i] {
				sub.Sources = append(sub.Sources, t.Sources[i])
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			break
		}
		cons, err := build(sub, o, len(idx))
		if err != nil {
			break
		}
		r, _ := fill(cons, len(idx))
		for k, i := range idx {
			rates[i] = r[k]
		}
	}
	if !cascaded {
		safeTimes(t, o, res)
	}
	if known && n > 0 {
		var last float64
		for _, c := range res.Cards {
			if c.ETASeconds == nil {
				return
			}
			last = max(last, *c.ETASeconds)
		}
		res.ETASeconds = &last
	}
}

// lastSafe sets Result.SafeSeconds: when the last card is safe to
// format (nil when a card's time is unknown).
func lastSafe(res *Result) {
	if len(res.Cards) == 0 {
		return
	}
	var last float64
	for _, c := range res.Cards {
		if c.SafeSeconds == nil {
			return
		}
		last = max(last, *c.SafeSeconds)
	}
	res.SafeSeconds = &last
}

// isCascade reports whether t has a cascade's second run: destinations
// of run 2 beside one of run 1.
func isCascade(t *Topology) bool {
	one, two := false, false
	for _, d := range t.Destinations {
		if d.Run == 2 {
			two = true
		} else {
			one = true
		}
	}
	return one && two
}

// safeTimes sets when each copied card is safe to format: what is left
// to read back when its copy ends, at its share of each destination's
// read rate (what the cards still copying leave of it, with their own
// read-back, shared by the cards whose read-back ends then too), then
// its fixed costs.
func safeTimes(t *Topology, o Options, res *Result) {
	alone := make([]float64, len(res.Cards))
	for i := range res.Cards {
		alone[i] = tail(t, o, t.Sources[i], 1, fullRead)
	}
	for i, c := range res.Cards {
		if c.ETASeconds == nil {
			continue
		}
		eta := *c.ETASeconds
		readOf := func(_ int, d Destination) float64 {
			avail, k := d.Read, 0
			for j, other := range res.Cards {
				switch e := other.ETASeconds; {
				case e == nil:
				case *e > eta+alone[i]:
					avail -= other.Rate // still copying: its read-back goes on
				case *e >= eta-alone[j]:
					k++ // its read-back ends about then too
				}
			}
			return max(avail, d.Read/10) / float64(max(k, 1))
		}
		s := t.Sources[i]
		safe := eta + tail(t, o, s, 1, readOf) + fixedAfter(t, o, s, 1)
		res.Cards[i].SafeSeconds = &safe
	}
}

// cardWrite is the write rate card i gets of its run-1 destinations:
// the least, over those whose capacity is known, of its share of it (as
// its rate is of what the destination is given); 0 when none is known.
func cardWrite(t *Topology, res *Result, i int) float64 {
	w := math.Inf(1)
	for di, d := range t.Destinations {
		if d.Run == 2 || di >= len(res.Destinations) {
			continue
		}
		dl := res.Destinations[di]
		if dl.Capacity > 0 && dl.Load > 0 {
			w = min(w, dl.Capacity*res.Cards[i].Rate/dl.Load)
		}
	}
	if math.IsInf(w, 1) {
		return 0
	}
	return w
}

// runCapacity is the least capacity of a run's destinations (0: none
// known).
func runCapacity(t *Topology, run int) float64 {
	w := math.Inf(1)
	for di := range t.Destinations {
		if d := t.Dest(di); (d.Run == 2) == (run == 2) {
			w = min(w, capacityOf(t, d))
		}
	}
	if math.IsInf(w, 1) {
		return 0
	}
	return w
}
