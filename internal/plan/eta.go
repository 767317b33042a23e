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
	for i, s := range t.Sources {
		left[i] = work{bytes: float64(s.Size), over: overhead(s, cardCosts(t, o, 1))}
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
				if !cascaded {
					safe := v + tail(t, o, s, 1) + fixedAfter(t, o, s, 1)
					res.Cards[i].SafeSeconds = &safe
				}
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
