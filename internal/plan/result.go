package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// describeResult is the plan in figures and words: each card's rate and
// what limits it, each bus's, destination's and the CPU's load against
// its capacity, and the bottleneck.
func describeResult(t *Topology, o Options, cons []constraint, rates []float64, limits []int) *Result {
	res := &Result{}
	for i := range rates {
		cp := cardPlan(t, cons, rates, limits, i)
		cardCostFields(t, o, i, &cp)
		verifyRate(t, o, &cp)
		res.Cards = append(res.Cards, cp)
		res.Total += rates[i]
	}
	res.TBPerHour = res.Total * 3600 / 1e12
	fl := flows{t: t, o: o, rates: rates}
	for bi := range t.Buses {
		res.Buses = append(res.Buses, fl.busLoad(&t.Buses[bi]))
	}
	for di := range t.Destinations {
		res.Destinations = append(res.Destinations, fl.destLoad(t.Dest(di)))
	}
	shareUplink(t, res)
	if o.CPU != nil {
		res.CPU = cpuLoad(t, o, cons, rates)
	}
	res.Bottleneck = bottleneck(res)
	return res
}

// cardPlan is card i's plan: its rate, and the budget that stopped it in
// words, with the cards that share it.
func cardPlan(t *Topology, cons []constraint, rates []float64, limits []int, i int) CardPlan {
	s := t.Sources[i]
	cp := CardPlan{Name: s.Name, Media: s.Media, Bus: s.Bus, Rate: rates[i], MediaRate: t.MediaRate(i), Bytes: s.Size}
	if limits[i] < 0 {
		cp.LimitedBy, cp.Why = LimitUnknown, "no rate is known for its medium, bus or destinations"
		return cp
	}
	c := cons[limits[i]]
	cp.LimitedBy, cp.Why = c.id, c.why
	if c.id != LimitMedia {
		var with []string
		for j, a := range c.coef {
			if a > 0 && j != i {
				with = append(with, t.Sources[j].Name)
			}
		}
		if len(with) > 0 && c.prio != prioDevice {
			cp.Why += ", shared with " + strings.Join(with, ", ")
		}
	}
	return cp
}

// full says a load fills its capacity (a capacity of 0 is unknown).
func full(load, capacity float64) bool { return capacity > 0 && load >= capacity*(1-1e-6) }

// flows are the planned rates of the cards (sources) of a topology.
type flows struct {
	t     *Topology
	o     Options
	rates []float64
}

// written is the data destination d is given: the streams that write it.
func (f flows) written(d Destination) float64 {
	var v float64
	for i := range f.rates {
		if writes(f.t.Sources[i], d) {
			v += f.rates[i]
		}
	}
	return v
}

// read is what destination d reads: read-back of what it is written,
// and the first copies second runs read from it.
func (f flows) read(d Destination) float64 {
	var v float64
	if f.o.Verify {
		v = f.written(d)
	}
	for i := range f.rates {
		if f.t.Sources[i].From == d.Name {
			v += f.rates[i]
		}
	}
	return v
}

// busLoad is what bus b carries: reads of the cards below it (and
// read-back), writes to the destinations below it.
func (f flows) busLoad(b *Bus) LinkLoad {
	t := f.t
	k := t.BusKind(b)
	l := LinkLoad{Name: b.Name, Kind: b.Kind, Parent: b.Parent, Capacity: k.Usable}
	for i := range f.rates {
		if under(t, t.Sources[i].Bus, b.Name) {
			l.Reads += f.rates[i]
			l.Cards = append(l.Cards, t.Sources[i].Name)
		}
	}
	for di := range t.Destinations {
		d := t.Dest(di)
		if !under(t, d.Bus, b.Name) {
			continue
		}
		l.Dests = append(l.Dests, d.Name)
		l.Writes += f.written(d) * WriteAmplification(d.Blades, d.RAID)
		if f.o.Verify {
			l.Reads += f.written(d) // read-back (first copies read by a second run count as its source reads above)
		}
	}
	l.Load = max(l.Reads, l.Writes)
	if k.HalfDuplex {
		l.Load = l.Reads + l.Writes
	}
	l.Headroom = l.Capacity - l.Load
	l.Full = full(l.Load, l.Capacity)
	return l
}

// destLoad is destination d's data written and read against what it
// takes (the least of its write rate in data, blade caps and --limit).
func (f flows) destLoad(d Destination) DestLoad {
	amp := WriteAmplification(d.Blades, d.RAID)
	dl := DestLoad{Name: d.Name, Bus: d.Bus, Load: f.written(d), Amplification: amp, Run: max(d.Run, 1), Cloud: IsCloud(d)}
	capacity := capacityOf(f.t, d)
	if !math.IsInf(capacity, 1) {
		dl.Capacity, dl.Headroom = capacity, capacity-dl.Load
	}
	if rl := f.read(d); rl > 0 || f.o.Verify {
		dl.ReadLoad, dl.ReadCapacity = rl, d.Read
	}
	dl.Full = full(dl.Load, dl.Capacity) || full(dl.ReadLoad, dl.ReadCapacity)
	return dl
}

// capacityOf is the data destination d takes per second (its write rate
// over its RAID's write amplification, blade caps, its limit; a cloud
// remote's, the uplink): +Inf when unknown.
func capacityOf(t *Topology, d Destination) float64 {
	capacity := math.Inf(1)
	if d.Write > 0 {
		capacity = d.Write / WriteAmplification(d.Blades, d.RAID)
	}
	if d.BladeRate > 0 && d.Blades > 1 {
		capacity = min(capacity, d.BladeRate/bladeShare(d.Blades, d.RAID))
	}
	if d.Limit > 0 {
		capacity = min(capacity, d.Limit)
	}
	if IsCloud(d) && t.Upload > 0 {
		capacity = min(capacity, t.Upload)
	}
	return capacity
}

// cpuLoad is the cores the planned rates keep busy hashing, and what one
// card alone gets.
func cpuLoad(t *Topology, o Options, cons []constraint, rates []float64) *CPULoad {
	cl := &CPULoad{Cores: o.CPU.Cores}
	for _, c := range cons {
		if c.id == LimitCPU && c.prio == prioCPU+1 {
			for i, a := range c.coef {
				cl.CoresUsed += a * rates[i]
			}
		}
	}
	// One card alone: its slowest hash on one core, or all the cores
	// when its hashes (and read-back) together need more than that.
	if stream, slow, perByte, err := hashCost(t, o); err == nil && len(o.Hashes) > 0 {
		cl.PerStream, cl.SlowestHash = stream, slow.String()
		cl.PerStreamWhy = fmt.Sprintf("%s on one core", slow)
		if o.CPU.Cores > 0 && perByte > 0 && o.CPU.Cores/perByte < stream {
			cl.PerStream = o.CPU.Cores / perByte
			cores := fmt.Sprintf("all %g cores", o.CPU.Cores)
			if o.CPU.Cores <= 1 {
				cores = fmt.Sprintf("%g core", o.CPU.Cores)
			}
			cl.PerStreamWhy = fmt.Sprintf("%s together on %s", hashing.Names(o.Hashes), cores)
			if o.Verify && len(o.VerifyHashes) > 0 {
				cl.PerStreamWhy += " with read-back"
			}
		}
	}
	return cl
}

// bottleneck names, in words, the budget that holds back the most cards.
func bottleneck(res *Result) string {
	count := map[string]int{}
	why := map[string]string{}
	var order []string
	for _, c := range res.Cards {
		if c.LimitedBy == LimitMedia {
			continue
		}
		if count[c.LimitedBy] == 0 {
			order = append(order, c.LimitedBy)
			why[c.LimitedBy] = c.Why
		}
		count[c.LimitedBy]++
	}
	if len(order) == 0 {
		if len(res.Cards) == 0 {
			return "no cards"
		}
		return "none: every card runs at the full speed of its medium"
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	b := order[0]
	w := why[b]
	if i := strings.Index(w, ", shared with"); i >= 0 {
		w = w[:i]
	}
	return fmt.Sprintf("%s holds back %d of %d cards: %s", LimitWords(b), count[b], len(res.Cards), w)
}

// LimitWords names a LimitedBy for people: "bus usb-a", "destination
// raid", "the CPU", "the card itself".
func LimitWords(limit string) string {
	switch {
	case strings.HasPrefix(limit, busPrefix):
		return "bus " + strings.TrimPrefix(limit, busPrefix)
	case strings.HasPrefix(limit, destPrefix):
		return "destination " + strings.TrimPrefix(limit, destPrefix)
	case limit == LimitCPU:
		return "the CPU"
	case limit == LimitMedia:
		return "the card itself"
	case limit == LimitUplink:
		return "the uplink"
	}
	return limit
}
