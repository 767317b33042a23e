package plan

import "math"

// etas plays the plan forward: when a card finishes, the others are
// re-planned with the freed budget.
func etas(t *Topology, o Options, res *Result) {
	n := len(t.Sources)
	remaining := make([]float64, n)
	active := make([]bool, n)
	known := true
	for i, s := range t.Sources {
		remaining[i] = float64(s.Size)
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
			if active[i] && t.Sources[i].Size > 0 && rates[i] > 0 {
				dt = min(dt, remaining[i]/rates[i])
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
			remaining[i] -= rates[i] * dt
			if t.Sources[i].Size > 0 && remaining[i] <= float64(t.Sources[i].Size)*1e-9+1 {
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
