package plan

import (
	"fmt"
	"math"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
)

// build turns the topology into constraints over the first n sources:
// each card's own budgets, then the buses', the destinations' and the
// CPU's, in that order (fill names the first of equal priority).
func build(t *Topology, o Options, n int) ([]constraint, error) {
	cons := cardBudgets(t, n)
	// Buses: reads from devices (cards, read-back) and writes to them.
	depth := map[string]int{}
	for _, b := range t.Buses {
		depth[b.Name] = len(t.Chain(b.Name)) - 1
	}
	for bi := range t.Buses {
		cons = append(cons, busBudgets(t, o, n, &t.Buses[bi], depth[t.Buses[bi].Name])...)
	}
	for di := range t.Destinations {
		cons = append(cons, destBudgets(t, o, n, t.Dest(di))...)
	}
	cons = append(cons, uplinkBudget(t, n)...)
	cpu, err := cpuBudgets(t, o, n)
	if err != nil {
		return nil, err
	}
	return append(cons, cpu...), nil
}

// unit is the coefficients of card i alone among n.
func unit(n, i int) []float64 {
	c := make([]float64, n)
	c[i] = 1
	return c
}

// cardBudgets are each card's own: its medium's read rate and the
// per-device cap of its port.
func cardBudgets(t *Topology, n int) []constraint {
	var cons []constraint
	for i := 0; i < n; i++ {
		s := t.Sources[i]
		if r := t.MediaRate(i); r > 0 {
			cons = append(cons, constraint{id: LimitMedia, prio: prioMedia, coef: unit(n, i), cap: r,
				why: fmt.Sprintf("the card itself: %s reads at %s", mediaName(s), units.FormatRate(r))})
		}
		if b := t.BusByName(s.Bus); b != nil {
			if k := t.BusKind(b); k.Device > 0 && k.Device < k.Usable {
				cons = append(cons, constraint{id: busPrefix + b.Name, prio: prioDevice, coef: unit(n, i), cap: k.Device,
					why: fmt.Sprintf("its port: one device gets at most %s on %s bus %s", units.FormatRate(k.Device), k.Title, b.Name)})
			}
		}
	}
	return cons
}

// busBudgets are bus b's (depth from the root of its tree): the
// per-device cap of each destination on its port, then what it carries
// from devices (cards, read-back) and to them (each destination's bytes
// times its write amplification), apart or, on a half-duplex bus,
// together.
func busBudgets(t *Topology, o Options, n int, b *Bus, depth int) []constraint {
	var cons []constraint
	k := t.BusKind(b)
	in, out := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		if under(t, t.Sources[i].Bus, b.Name) {
			in[i]++
		}
	}
	for di := range t.Destinations {
		d := t.Dest(di)
		if !under(t, d.Bus, b.Name) {
			continue
		}
		amp := WriteAmplification(d.Blades, d.RAID)
		dev := make([]float64, n)
		for i := range out {
			if !writes(t.Sources[i], d) {
				continue
			}
			out[i] += amp
			dev[i] = amp
			if o.Verify {
				in[i]++
			}
		}
		if k.Device > 0 && k.Device < k.Usable && d.Bus == b.Name {
			cons = append(cons, constraint{id: busPrefix + b.Name, prio: prioDevice, coef: dev, cap: k.Device,
				why: fmt.Sprintf("its port: one device gets at most %s on %s bus %s", units.FormatRate(k.Device), k.Title, b.Name)})
		}
	}
	prio := prioBus + 9 - min(depth, 9)
	if k.HalfDuplex {
		for i := range in {
			in[i] += out[i]
		}
		return append(cons, constraint{id: busPrefix + b.Name, prio: prio, coef: in, cap: k.Usable,
			why: fmt.Sprintf("bus %s (%s, %s usable, reads and writes together)", b.Name, k.Title, units.FormatRate(k.Usable))})
	}
	return append(cons,
		constraint{id: busPrefix + b.Name, prio: prio, coef: in, cap: k.Usable,
			why: fmt.Sprintf("bus %s (%s, %s usable) carrying reads", b.Name, k.Title, units.FormatRate(k.Usable))},
		constraint{id: busPrefix + b.Name, prio: prio, coef: out, cap: k.Usable,
			why: fmt.Sprintf("bus %s (%s, %s usable) carrying writes", b.Name, k.Title, units.FormatRate(k.Usable))})
}

// destBudgets are destination d's: its write rate (times its RAID write
// amplification), its blades' caps, its --limit, and what it reads.
func destBudgets(t *Topology, o Options, n int, d Destination) []constraint {
	var cons []constraint
	id := destPrefix + d.Name
	amp := WriteAmplification(d.Blades, d.RAID)
	// The streams that write d (all cards, or a cascade's run), and
	// what d reads: read-back of its copies, and the first copies a
	// cascade's second run reads from it.
	all := func(v float64) []float64 {
		c := make([]float64, n)
		for i := range c {
			if writes(t.Sources[i], d) {
				c[i] = v
			}
		}
		return c
	}
	reads := make([]float64, n)
	anyRead := false
	for i := range reads {
		if o.Verify && writes(t.Sources[i], d) {
			reads[i]++
		}
		if t.Sources[i].From == d.Name {
			reads[i]++
			anyRead = true
		}
	}
	if d.Write > 0 {
		why := fmt.Sprintf("destination %s writes %s", d.Name, units.FormatRate(d.Write))
		if amp != 1 {
			why += fmt.Sprintf(" (RAID %d over %d blades: %.2f bytes per byte, so %s of data)", d.RAID, d.Blades, amp, units.FormatRate(d.Write/amp))
		}
		cons = append(cons, constraint{id: id, prio: prioDest, coef: all(amp), cap: d.Write, why: why})
	}
	if d.BladeRate > 0 && d.Blades > 1 {
		share := bladeShare(d.Blades, d.RAID)
		cons = append(cons, constraint{id: id, prio: prioDest, coef: all(share), cap: d.BladeRate,
			why: fmt.Sprintf("destination %s: each of its %d blades writes at most %s", d.Name, d.Blades, units.FormatRate(d.BladeRate))})
	}
	if d.Limit > 0 {
		cons = append(cons, constraint{id: id, prio: prioDest, coef: all(1), cap: d.Limit,
			why: fmt.Sprintf("destination %s is capped at %s (--limit, headroom for playback)", d.Name, units.FormatRate(d.Limit))})
	}
	if (o.Verify || anyRead) && d.Read > 0 {
		why := fmt.Sprintf("destination %s reads back at most %s for verification", d.Name, units.FormatRate(d.Read))
		if anyRead {
			why = fmt.Sprintf("destination %s reads at most %s: read-back and the first copies the second run reads", d.Name, units.FormatRate(d.Read))
		}
		cons = append(cons, constraint{id: id, prio: prioDest, coef: reads, cap: d.Read, why: why})
	}
	return cons
}

// cpuBudgets are the CPU's, when it and the hashes are known: each card's
// slowest hash on one core, and all hashing together on all the cores.
func cpuBudgets(t *Topology, o Options, n int) ([]constraint, error) {
	if o.CPU == nil || len(o.Hashes) == 0 {
		return nil, nil
	}
	var cons []constraint
	stream, slow, perByte, err := hashCost(t, o)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		cons = append(cons, constraint{id: LimitCPU, prio: prioCPU, coef: unit(n, i), cap: stream,
			why: fmt.Sprintf("hashing: %s runs on one core per card at %s", slow, units.FormatRate(stream))})
	}
	if o.CPU.Cores > 0 {
		coef := make([]float64, n)
		for i := range coef {
			coef[i] = perByte
			if o.Verify && len(t.Destinations) > 0 {
				// perByte counts a read-back on every destination;
				// a stream reads back only those it writes.
				per := (perByte - hashOnly(t, o)) / float64(len(t.Destinations))
				coef[i] = hashOnly(t, o) + per*float64(destsOf(t, t.Sources[i]))
			}
		}
		cons = append(cons, constraint{id: LimitCPU, prio: prioCPU + 1, coef: coef, cap: o.CPU.Cores,
			why: fmt.Sprintf("the CPU: all %g cores busy hashing (%s)", o.CPU.Cores, hashing.Names(o.Hashes))})
	}
	return cons, nil
}

// hashCost is what hashing costs a card: stream, the speed of its slowest
// algorithm (slow) on one core, which bounds each card since every
// algorithm runs on a core of its own; and perByte, the core-seconds one
// byte of the card costs (all its hashes, and with Verify the read-back
// hashes of every copy).
func hashCost(t *Topology, o Options) (stream float64, slow hashing.Algo, perByte float64, err error) {
	// rate is a's speed for one stream, and per core of all of them:
	// MD5's as measured for the job's number of streams.
	rate := func(a hashing.Algo) (one, perCore float64, err error) {
		if o.CPU != nil {
			if r, ok := o.CPU.MD5At(len(t.Sources)); ok && a == hashing.MD5 {
				return r.Stream, r.PerCore, nil
			}
			if v := o.CPU.PerCore[a]; v > 0 {
				return v, v, nil
			}
		}
		v, err := t.Profiles.hashRate(a)
		return v, v, err
	}
	stream = math.Inf(1)
	for _, a := range o.Hashes {
		v, pc, err := rate(a)
		if err != nil {
			return 0, 0, 0, err
		}
		if v < stream {
			stream, slow = v, a
		}
		perByte += 1 / pc
	}
	if o.Verify {
		for _, a := range o.VerifyHashes {
			_, pc, err := rate(a)
			if err != nil {
				return 0, 0, 0, err
			}
			perByte += float64(len(t.Destinations)) / pc
		}
	}
	return stream, slow, perByte, nil
}

func mediaName(s Source) string {
	if s.Media == "" {
		return "the medium"
	}
	return s.Media
}

// under reports whether bus (a device's bus) is bus anc or below it.
func under(t *Topology, bus, anc string) bool {
	if bus == "" {
		return false
	}
	for _, b := range t.Chain(bus) {
		if b.Name == anc {
			return true
		}
	}
	return false
}

// writes reports whether stream s writes destination d: a card's first
// run writes the run-1 destinations, a cascade's second run (s.From set)
// the run-2 ones.
func writes(s Source, d Destination) bool { return (s.From != "") == (d.Run == 2) }

// destsOf counts the destinations stream s writes.
func destsOf(t *Topology, s Source) int {
	n := 0
	for _, d := range t.Destinations {
		if writes(s, d) {
			n++
		}
	}
	return n
}

// hashOnly is the core-seconds a byte of a stream costs in its hashes,
// read-back left out.
func hashOnly(t *Topology, o Options) float64 {
	o.Verify = false
	_, _, perByte, err := hashCost(t, o)
	if err != nil {
		return 0
	}
	return perByte
}
