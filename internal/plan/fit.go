package plan

import (
	"fmt"
	"strings"
)

// maxFit bounds the what-if search.
const maxFit = 100

// FitMore returns how many more cards of medium would run at full speed
// on bus (or, with bus "", each on a new bus of its reader's kind) without
// slowing any card of the plan.
func FitMore(t *Topology, o Options, medium, bus string) (Fit, error) {
	f := Fit{Media: medium, Bus: bus}
	m, ok := t.Profiles.Media[medium]
	if !ok {
		return f, fmt.Errorf("unknown media %q; known media: %s", medium, strings.Join(t.Profiles.MediaNames(), ", "))
	}
	if bus != "" && t.BusByName(bus) == nil {
		return f, fmt.Errorf("no bus %q in the topology", bus)
	}
	if bus == "" {
		if _, ok := t.Profiles.Buses[m.Reader]; m.Reader != "" && !ok {
			return f, fmt.Errorf("medium %s: its reader's bus kind %q is unknown", medium, m.Reader)
		}
	}
	o.NoFits = true
	base, err := build(t, o, len(t.Sources))
	if err != nil {
		return f, err
	}
	baseRates, _ := fill(base, len(t.Sources))
	w := t.Clone()
	for k := 1; k <= maxFit; k++ {
		name := fmt.Sprintf("+%s-%d", medium, k)
		src := Source{Name: name, Media: medium, Bus: bus}
		if bus == "" && m.Reader != "" {
			src.Bus = name + "-reader"
			w.Buses = append(w.Buses, Bus{Name: src.Bus, Kind: m.Reader})
		}
		w.Sources = append(w.Sources, src)
		cons, err := build(w, o, len(w.Sources))
		if err != nil {
			return f, err
		}
		rates, limits := fill(cons, len(w.Sources))
		for i, r := range rates {
			want := m.Read
			if i < len(baseRates) {
				want = baseRates[i]
			}
			if r < want*(1-1e-6) {
				if limits[i] >= 0 {
					f.StoppedBy = cons[limits[i]].id
				}
				return f, nil
			}
		}
		f.More = k
	}
	f.AtLeast = true
	return f, nil
}

// fits fills Result.Fits: for each medium, on each bus that has cards of
// it, and on new buses of their own.
func fits(t *Topology, o Options, res *Result) {
	media := o.FitMedia
	if len(media) == 0 {
		seen := map[string]bool{}
		for _, s := range t.Sources {
			if s.Media != "" && !seen[s.Media] {
				if _, ok := t.Profiles.Media[s.Media]; ok {
					seen[s.Media] = true
					media = append(media, s.Media)
				}
			}
		}
	}
	for _, m := range media {
		var buses []string
		seen := map[string]bool{}
		for _, s := range t.Sources {
			if s.Media == m && s.Bus != "" && !seen[s.Bus] {
				seen[s.Bus] = true
				buses = append(buses, s.Bus)
			}
		}
		for _, b := range append(buses, "") {
			if f, err := FitMore(t, o, m, b); err == nil {
				res.Fits = append(res.Fits, f)
			}
		}
	}
}
