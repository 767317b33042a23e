package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
)

// Limits a card's rate can be limited by (CardPlan.LimitedBy).
const (
	LimitMedia   = "media"   // the card itself: it runs at full speed
	LimitCPU     = "cpu"     // hashing
	LimitUnknown = "unknown" // no rate known anywhere on its path
	busPrefix    = "bus:"
	destPrefix   = "dest:"
)

// CPU is what the planner knows of the machine's processor.
type CPU struct {
	// Cores usable for hashing.
	Cores float64
	// PerCore are single-core hash speeds in bytes/s.
	PerCore map[hashing.Algo]float64
}

// Options say what the job does besides moving bytes.
type Options struct {
	// Hashes are computed on every card's stream, one goroutine per
	// algorithm (so MD5 runs on one core per card).
	Hashes []hashing.Algo
	// Verify plans the read-back of every copy: it counts against each
	// destination's read rate and its buses, and its hashing (VerifyHashes)
	// against the CPU.
	Verify       bool
	VerifyHashes []hashing.Algo
	// CPU, when set, adds the hashing constraints.
	CPU *CPU
	// FitMedia lists media for which Result.Fits says how many more cards
	// would still run at full speed (default: the media of the sources).
	FitMedia []string
	// NoFits skips the what-if counts (the scheduler's re-plans).
	NoFits bool
	// ThenParallel is how many cards a cascade's second run copies at
	// once (destinations with Run 2; default 1).
	ThenParallel int
}

// CardPlan is one card's planned rate and why.
type CardPlan struct {
	Name      string  `json:"name"`
	Media     string  `json:"media,omitempty"`
	Bus       string  `json:"bus,omitempty"`
	Rate      float64 `json:"rate_bytes_per_s"`
	MediaRate float64 `json:"media_rate_bytes_per_s,omitempty"`
	// LimitedBy is media, bus:NAME, dest:NAME, cpu or unknown.
	LimitedBy string `json:"limited_by"`
	// Why says it in words.
	Why   string `json:"why"`
	Bytes int64  `json:"bytes,omitempty"`
	// ETASeconds is the time to copy the card at the planned rates,
	// re-planned as other cards finish; nil when the size is unknown.
	ETASeconds *float64 `json:"eta_s"`
	// A cascade (Result.Cascade): when the card is free (its first run
	// copied) and safe to format (its second run copied), in seconds from
	// the start; SecondRate is its second run's rate when it starts and
	// SecondLimitedBy what bounds it.
	FreeSeconds     *float64 `json:"card_free_s,omitempty"`
	SafeSeconds     *float64 `json:"safe_to_format_s,omitempty"`
	SecondRate      float64  `json:"second_run_rate_bytes_per_s,omitempty"`
	SecondLimitedBy string   `json:"second_run_limited_by,omitempty"`
}

// LinkLoad is one bus's planned load.
type LinkLoad struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Parent string `json:"parent,omitempty"`
	// Load is the busier direction (reads from devices or writes to them;
	// both together on a half-duplex bus).
	Load     float64  `json:"load_bytes_per_s"`
	Capacity float64  `json:"capacity_bytes_per_s"`
	Headroom float64  `json:"headroom_bytes_per_s"`
	Reads    float64  `json:"read_bytes_per_s"`
	Writes   float64  `json:"write_bytes_per_s"`
	Cards    []string `json:"cards,omitempty"`
	Dests    []string `json:"destinations,omitempty"`
	Full     bool     `json:"full"`
}

// DestLoad is one destination's planned load, in bytes of data.
type DestLoad struct {
	Name string `json:"name"`
	Bus  string `json:"bus,omitempty"`
	// Load is the data written per second; Capacity what the destination
	// takes (write rate over the RAID's write amplification, blade caps,
	// --limit); 0 when unknown.
	Load         float64 `json:"load_bytes_per_s"`
	Capacity     float64 `json:"capacity_bytes_per_s"`
	Headroom     float64 `json:"headroom_bytes_per_s"`
	ReadLoad     float64 `json:"read_load_bytes_per_s"`
	ReadCapacity float64 `json:"read_capacity_bytes_per_s"`
	// Amplification is the bytes the blades write per byte of data.
	Amplification float64 `json:"write_amplification"`
	// Run: 1, or 2 for a cascade's second-run destination.
	Run  int  `json:"run"`
	Full bool `json:"full"`
}

// CPULoad is the planned hashing load.
type CPULoad struct {
	Cores     float64 `json:"cores"`
	CoresUsed float64 `json:"cores_used"`
	// PerStream is the fastest one card's hashing can go, alone on the
	// machine: the speed of the slowest of the job's hashes on one core
	// (each hash runs on a core of its own), or less when all the cores
	// are needed for its hashes and read-back. 0: no hashes.
	PerStream float64 `json:"per_stream_bytes_per_s"`
	// SlowestHash is the slowest of the job's hashes; PerStreamWhy says
	// in words what bounds PerStream ("md5 on one core").
	SlowestHash  string `json:"slowest_hash,omitempty"`
	PerStreamWhy string `json:"per_stream_why,omitempty"`
}

// Fit says how many more cards of a medium would still run at full speed
// on a bus (or each on a new bus of its reader's kind, Bus ""), without
// slowing any card already planned.
type Fit struct {
	Media string `json:"media"`
	Bus   string `json:"bus,omitempty"`
	More  int    `json:"more"`
	// AtLeast is set when the count stopped at the search limit.
	AtLeast bool `json:"at_least,omitempty"`
	// StoppedBy is what would limit one card more.
	StoppedBy string `json:"stopped_by,omitempty"`
}

// Result is a plan.
type Result struct {
	Cards        []CardPlan `json:"cards"`
	Buses        []LinkLoad `json:"buses"`
	Destinations []DestLoad `json:"destinations"`
	CPU          *CPULoad   `json:"cpu,omitempty"`
	Total        float64    `json:"total_bytes_per_s"`
	TBPerHour    float64    `json:"tb_per_hour"`
	// ETASeconds is when the last card is copied (nil: a size is unknown).
	ETASeconds *float64 `json:"eta_s"`
	// Bottleneck names, in words, what holds the job back most.
	Bottleneck string `json:"bottleneck"`
	Fits       []Fit  `json:"fits,omitempty"`
	// Cascade is the plan of a cascade's two runs (nil without one).
	Cascade *Cascade `json:"cascade,omitempty"`
}

// Card returns the plan of the card called name, or nil.
func (r *Result) Card(name string) *CardPlan {
	for i := range r.Cards {
		if r.Cards[i].Name == name {
			return &r.Cards[i]
		}
	}
	return nil
}

// constraint is a linear budget: sum(coef[i] * rate[i]) <= cap.
type constraint struct {
	id   string // media | bus:NAME | dest:NAME | cpu
	prio int    // which one is named when several bind at once
	coef []float64
	cap  float64
	why  string // the budget in words
}

// When several budgets fill at once, the card is said to be limited by the
// first of: its medium, its port's per-device cap, a destination (the
// device a DIT thinks of when an array and its own link fill together), a
// bus (nearest the device first), the CPU.
const (
	prioMedia  = 0
	prioDevice = 1
	prioDest   = 2
	prioBus    = 10 // + up to 10 for the bus depth
	prioCPU    = 200
)

// Plan allocates each source's rate by max-min fairness (progressive
// filling): every card's rate rises together until a budget on its path
// is full (its medium, the per-device cap of its port, each bus up the
// tree in each direction, each destination's write rate, blade caps,
// limit and read-back rate, the CPU); the cards held by that budget stop
// there and the others keep rising. Every card is copied to every
// destination. Plan is pure: the same topology and options give the same
// result.
func Plan(t *Topology, o Options) (*Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	cons, err := build(t, o, len(t.Sources))
	if err != nil {
		return nil, err
	}
	rates, limits := fill(cons, len(t.Sources))
	res := describeResult(t, o, cons, rates, limits)
	etas(t, o, res)
	cascade(t, o, res)
	if !o.NoFits {
		fits(t, o, res)
	}
	return res, nil
}

// build turns the topology into constraints over the first n sources.
func build(t *Topology, o Options, n int) ([]constraint, error) {
	var cons []constraint
	one := func(i int) []float64 {
		c := make([]float64, n)
		c[i] = 1
		return c
	}
	for i := 0; i < n; i++ {
		s := t.Sources[i]
		if r := t.MediaRate(i); r > 0 {
			cons = append(cons, constraint{id: LimitMedia, prio: prioMedia, coef: one(i), cap: r,
				why: fmt.Sprintf("the card itself: %s reads at %s", mediaName(s), units.FormatRate(r))})
		}
		if b := t.BusByName(s.Bus); b != nil {
			if k := t.BusKind(b); k.Device > 0 && k.Device < k.Usable {
				cons = append(cons, constraint{id: busPrefix + b.Name, prio: prioDevice, coef: one(i), cap: k.Device,
					why: fmt.Sprintf("its port: one device gets at most %s on %s bus %s", units.FormatRate(k.Device), k.Title, b.Name)})
			}
		}
	}
	// Buses: reads from devices (cards, read-back) and writes to them.
	depth := map[string]int{}
	for _, b := range t.Buses {
		depth[b.Name] = len(t.Chain(b.Name)) - 1
	}
	for bi := range t.Buses {
		b := &t.Buses[bi]
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
		prio := prioBus + 9 - min(depth[b.Name], 9)
		if k.HalfDuplex {
			for i := range in {
				in[i] += out[i]
			}
			cons = append(cons, constraint{id: busPrefix + b.Name, prio: prio, coef: in, cap: k.Usable,
				why: fmt.Sprintf("bus %s (%s, %s usable, reads and writes together)", b.Name, k.Title, units.FormatRate(k.Usable))})
			continue
		}
		cons = append(cons,
			constraint{id: busPrefix + b.Name, prio: prio, coef: in, cap: k.Usable,
				why: fmt.Sprintf("bus %s (%s, %s usable) carrying reads", b.Name, k.Title, units.FormatRate(k.Usable))},
			constraint{id: busPrefix + b.Name, prio: prio, coef: out, cap: k.Usable,
				why: fmt.Sprintf("bus %s (%s, %s usable) carrying writes", b.Name, k.Title, units.FormatRate(k.Usable))})
	}
	for di := range t.Destinations {
		d := t.Dest(di)
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
	}
	if o.CPU != nil && len(o.Hashes) > 0 {
		stream, slow, perByte, err := hashCost(t, o)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			cons = append(cons, constraint{id: LimitCPU, prio: prioCPU, coef: one(i), cap: stream,
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
	}
	return cons, nil
}

// hashCost is what hashing costs a card: stream, the speed of its slowest
// algorithm (slow) on one core, which bounds each card since every
// algorithm runs on a core of its own; and perByte, the core-seconds one
// byte of the card costs (all its hashes, and with Verify the read-back
// hashes of every copy).
func hashCost(t *Topology, o Options) (stream float64, slow hashing.Algo, perByte float64, err error) {
	rate := func(a hashing.Algo) (float64, error) {
		if o.CPU != nil {
			if v := o.CPU.PerCore[a]; v > 0 {
				return v, nil
			}
		}
		return t.Profiles.hashRate(a)
	}
	stream = math.Inf(1)
	for _, a := range o.Hashes {
		v, err := rate(a)
		if err != nil {
			return 0, 0, 0, err
		}
		if v < stream {
			stream, slow = v, a
		}
		perByte += 1 / v
	}
	if o.Verify {
		for _, a := range o.VerifyHashes {
			v, err := rate(a)
			if err != nil {
				return 0, 0, 0, err
			}
			perByte += float64(len(t.Destinations)) / v
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

const eps = 1e-9

// fill is progressive filling: it returns each flow's rate and the index
// of the constraint that stopped it (-1: none; the rate is then 0).
func fill(cons []constraint, n int) ([]float64, []int) {
	rates := make([]float64, n)
	limits := make([]int, n)
	frozen := make([]bool, n)
	for i := range limits {
		limits[i] = -1
	}
	left := n
	for left > 0 {
		best := math.Inf(1)
		ts := make([]float64, len(cons))
		for ci, c := range cons {
			ts[ci] = math.Inf(1)
			var sum, used float64
			for i, a := range c.coef {
				if a == 0 {
					continue
				}
				if frozen[i] {
					used += a * rates[i]
				} else {
					sum += a
				}
			}
			if sum <= 0 {
				continue
			}
			ts[ci] = max((c.cap-used)/sum, 0)
			best = min(best, ts[ci])
		}
		if math.IsInf(best, 1) {
			for i := range frozen {
				if !frozen[i] {
					frozen[i] = true
					rates[i] = 0
				}
			}
			break
		}
		for i := range frozen {
			if frozen[i] {
				continue
			}
			pick := -1
			for ci, c := range cons {
				if c.coef[i] == 0 || ts[ci] > best*(1+eps)+eps {
					continue
				}
				if pick < 0 || c.prio < cons[pick].prio {
					pick = ci
				}
			}
			if pick >= 0 {
				frozen[i], rates[i], limits[i] = true, best, pick
				left--
			}
		}
		// Flows in no binding constraint keep rising with the others.
		for i := range frozen {
			if !frozen[i] {
				rates[i] = best
			}
		}
	}
	return rates, limits
}

func describeResult(t *Topology, o Options, cons []constraint, rates []float64, limits []int) *Result {
	res := &Result{}
	n := len(rates)
	for i := 0; i < n; i++ {
		s := t.Sources[i]
		cp := CardPlan{Name: s.Name, Media: s.Media, Bus: s.Bus, Rate: rates[i], MediaRate: t.MediaRate(i), Bytes: s.Size}
		if limits[i] < 0 {
			cp.LimitedBy, cp.Why = LimitUnknown, "no rate is known for its medium, bus or destinations"
		} else {
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
		}
		res.Cards = append(res.Cards, cp)
		res.Total += rates[i]
	}
	res.TBPerHour = res.Total * 3600 / 1e12
	full := func(load, capacity float64) bool { return capacity > 0 && load >= capacity*(1-1e-6) }
	// Per destination: the data written (the streams that write it) and
	// read (read-back of those, first copies read by second runs).
	written := func(d Destination) float64 {
		var v float64
		for i := 0; i < n; i++ {
			if writes(t.Sources[i], d) {
				v += rates[i]
			}
		}
		return v
	}
	read := func(d Destination) float64 {
		var v float64
		if o.Verify {
			v = written(d)
		}
		for i := 0; i < n; i++ {
			if t.Sources[i].From == d.Name {
				v += rates[i]
			}
		}
		return v
	}
	for bi := range t.Buses {
		b := &t.Buses[bi]
		k := t.BusKind(b)
		l := LinkLoad{Name: b.Name, Kind: b.Kind, Parent: b.Parent, Capacity: k.Usable}
		for i := 0; i < n; i++ {
			if under(t, t.Sources[i].Bus, b.Name) {
				l.Reads += rates[i]
				l.Cards = append(l.Cards, t.Sources[i].Name)
			}
		}
		for di := range t.Destinations {
			d := t.Dest(di)
			if !under(t, d.Bus, b.Name) {
				continue
			}
			l.Dests = append(l.Dests, d.Name)
			l.Writes += written(d) * WriteAmplification(d.Blades, d.RAID)
			if o.Verify {
				l.Reads += written(d) // read-back (first copies read by a second run count as its source reads above)
			}
		}
		l.Load = max(l.Reads, l.Writes)
		if k.HalfDuplex {
			l.Load = l.Reads + l.Writes
		}
		l.Headroom = l.Capacity - l.Load
		l.Full = full(l.Load, l.Capacity)
		res.Buses = append(res.Buses, l)
	}
	for di := range t.Destinations {
		d := t.Dest(di)
		amp := WriteAmplification(d.Blades, d.RAID)
		dl := DestLoad{Name: d.Name, Bus: d.Bus, Load: written(d), Amplification: amp, Run: max(d.Run, 1)}
		capacity := math.Inf(1)
		if d.Write > 0 {
			capacity = d.Write / amp
		}
		if d.BladeRate > 0 && d.Blades > 1 {
			capacity = min(capacity, d.BladeRate/bladeShare(d.Blades, d.RAID))
		}
		if d.Limit > 0 {
			capacity = min(capacity, d.Limit)
		}
		if !math.IsInf(capacity, 1) {
			dl.Capacity, dl.Headroom = capacity, capacity-dl.Load
		}
		if rl := read(d); rl > 0 || o.Verify {
			dl.ReadLoad, dl.ReadCapacity = rl, d.Read
		}
		dl.Full = full(dl.Load, dl.Capacity) || full(dl.ReadLoad, dl.ReadCapacity)
		res.Destinations = append(res.Destinations, dl)
	}
	if o.CPU != nil {
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
		res.CPU = cl
	}
	res.Bottleneck = bottleneck(res)
	return res
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
	}
	return limit
}

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
