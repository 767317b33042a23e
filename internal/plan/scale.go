package plan

// Scaled returns a copy of t whose hardware runs at f times its rates:
// every medium, bus, port and destination rate (profiles and the
// topology's own overrides) and every destination limit is multiplied by
// f. Sizes, the CPU (cpu section and profile hash speeds) and the
// destinations' per-file and fixed costs (seconds of this machine's
// work) are left as they are: a simulation at f x the field rates (dit
// offload --simulate --simulate-scale f) hashes and writes files on the
// real machine. Planning the scaled topology gives the plan of the
// simulated run: every rate f times the field plan's, and every time the
// costs leave out (the bytes' part) 1/f times it, when the CPU does not
// bind.
// Encode of the copy writes the profile overrides unscaled.
func (t *Topology) Scaled(f float64) *Topology {
	c := t.Clone()
	if f == 1 || f <= 0 {
		return c
	}
	p := t.Profiles
	if p == nil {
		p = DefaultProfiles()
	}
	p = p.Clone()
	for k, m := range p.Media {
		m.Read *= f
		p.Media[k] = m
	}
	for k, b := range p.Buses {
		b.Raw *= f
		b.Usable *= f
		b.Device *= f
		p.Buses[k] = b
	}
	for k, d := range p.Dests {
		d.Write *= f
		d.Read *= f
		d.BladeRate *= f
		p.Dests[k] = d
	}
	c.Profiles = p
	c.Upload *= f
	for i := range c.Buses {
		c.Buses[i].Usable *= f
	}
	scaleM := func(m *Measured) *Measured {
		if m == nil {
			return nil
		}
		s := *m
		s.Read, s.Write = s.Read*f, s.Write*f
		return &s
	}
	for i := range c.Sources {
		c.Sources[i].Read *= f
		c.Sources[i].Measured = scaleM(c.Sources[i].Measured)
	}
	for i := range c.Destinations {
		d := &c.Destinations[i]
		d.Write *= f
		d.Read *= f
		d.BladeRate *= f
		d.Limit *= f
		d.Measured = scaleM(d.Measured)
	}
	return c
}
