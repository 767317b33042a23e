package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

const GB = 1e9

func parse(t *testing.T, doc string) *Topology {
	t.Helper()
	top, err := ParseTopology("test.yaml", []byte(doc))
	require.NoError(t, err)
	return top
}

// cards adds n sources of medium, on bus (or each on a reader bus of its
// own when bus is "").
func cards(top *Topology, n int, medium, bus string) {
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s%d", strings.ToUpper(medium[:1]), len(top.Sources)+1)
		b := bus
		if b == "" {
			b = "reader-" + name
			top.Buses = append(top.Buses, Bus{Name: b, Kind: top.Profiles.Media[medium].Reader})
		}
		top.Sources = append(top.Sources, Source{Name: name, Media: medium, Bus: b})
	}
}

func near(t *testing.T, want, got float64, msg ...any) {
	t.Helper()
	require.InDelta(t, want, got, want*1e-6+1, msg...)
}

const array28 = `
buses:
  - {name: tb-1, kind: tb3}
  - {name: usb-1, kind: usb3.0}
  - {name: usb-a, kind: usb3.2-gen2}
destinations:
  - {name: array, bus: tb-1, write_rate: 2.8GB/s, read_rate: 2.8GB/s}
`

func TestFieldFiguresAXS(t *testing.T) {
	top := parse(t, array28)
	// Eleven AXS cards fit a 2.8 GB/s array by bandwidth (11 x 0.235 = 2.585)...
	f, err := FitMore(top, Options{}, "axs", "")
	require.NoError(t, err)
	require.Equal(t, 11, f.More)
	require.Equal(t, "dest:array", f.StoppedBy)
	// ...but only two per 5 Gbit/s reader bus.
	f, err = FitMore(top, Options{}, "axs", "usb-1")
	require.NoError(t, err)
	require.Equal(t, 2, f.More)
	require.Equal(t, "bus:usb-1", f.StoppedBy)

	eleven := top.Clone()
	cards(eleven, 11, "axs", "")
	r, err := Plan(eleven, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, LimitMedia, c.LimitedBy, c.Name)
		near(t, 0.235*GB, c.Rate)
	}
	near(t, 11*0.235*GB, r.Total)
	near(t, 11*0.235*3.6, r.TBPerHour)

	twelve := top.Clone()
	cards(twelve, 12, "axs", "")
	r, err = Plan(twelve, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "dest:array", c.LimitedBy)
		near(t, 2.8*GB/12, c.Rate)
	}
	require.True(t, r.Destinations[0].Full)
	require.Contains(t, r.Bottleneck, "destination array holds back 12 of 12 cards: destination array writes 2.800 GB/s")

	three := top.Clone()
	cards(three, 3, "axs", "usb-1")
	r, err = Plan(three, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "bus:usb-1", c.LimitedBy)
		near(t, 0.5*GB/3, c.Rate)
	}
	bus := r.Buses[1]
	require.Equal(t, "usb-1", bus.Name)
	near(t, 0.5*GB, bus.Load)
	near(t, 0.5*GB, bus.Capacity)
	require.True(t, bus.Full)
}

func TestFieldFiguresCFastArrays(t *testing.T) {
	for _, tc := range []struct {
		write string
		fit   int
	}{{"2.8GB/s", 5}, {"2.2GB/s", 4}} {
		top := parse(t, strings.Replace(array28, "2.8GB/s, read_rate", tc.write+", read_rate", 1))
		f, err := FitMore(top, Options{}, "cfast2", "")
		require.NoError(t, err)
		require.Equal(t, tc.fit, f.More, "CFast cards on their own readers into a %s array", tc.write)
		require.Equal(t, "dest:array", f.StoppedBy)

		full := top.Clone()
		cards(full, tc.fit, "cfast2", "")
		r, err := Plan(full, Options{})
		require.NoError(t, err)
		for _, c := range r.Cards {
			require.Equal(t, LimitMedia, c.LimitedBy)
		}
		over := top.Clone()
		cards(over, tc.fit+1, "cfast2", "")
		r, err = Plan(over, Options{})
		require.NoError(t, err)
		for _, c := range r.Cards {
			require.Equal(t, "dest:array", c.LimitedBy)
			require.Less(t, c.Rate, 0.55*GB)
		}
	}
}

func TestFieldFiguresCFastShareTenGbitBus(t *testing.T) {
	top := parse(t, array28)
	two := top.Clone()
	cards(two, 2, "cfast2", "usb-a")
	r, err := Plan(two, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, LimitMedia, c.LimitedBy, "two CFast readers share one 10 Gbit/s bus at full speed")
		near(t, 0.55*GB, c.Rate)
	}
	require.Equal(t, "none: every card runs at the full speed of its medium", r.Bottleneck)

	three := top.Clone()
	cards(three, 3, "cfast2", "usb-a")
	r, err = Plan(three, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "bus:usb-a", c.LimitedBy, "three do not")
		near(t, 1.15*GB/3, c.Rate)
		require.Contains(t, c.Why, "USB 3.2 Gen 2")
	}
	f, err := FitMore(top, Options{}, "cfast2", "usb-a")
	require.NoError(t, err)
	require.Equal(t, 2, f.More)
}

func TestFieldFiguresLongPassiveTB3CableHalvesTheBudget(t *testing.T) {
	plan := func(kind string) *Result {
		top := parse(t, strings.Replace(array28, "{name: tb-1, kind: tb3}", "{name: tb-1, kind: "+kind+"}", 1))
		cards(top, 5, "cfast2", "")
		r, err := Plan(top, Options{})
		require.NoError(t, err)
		return r
	}
	short, long := plan("tb3"), plan("tb3-20g")
	near(t, 2.8*GB, short.Buses[0].Capacity)
	near(t, 1.4*GB, long.Buses[0].Capacity)
	near(t, 0.5, long.Buses[0].Capacity/short.Buses[0].Capacity)
	near(t, 5*0.55*GB, short.Total)
	near(t, 1.4*GB, long.Total)
	for _, c := range long.Cards {
		require.Equal(t, "bus:tb-1", c.LimitedBy)
		near(t, 0.28*GB, c.Rate)
	}
}

func TestFieldFiguresSharedControllerSharesItsBudget(t *testing.T) {
	const shared = `
buses:
  - {name: tb-ctrl-0, kind: tb3}
  - {name: tb-1, kind: tb3, parent: tb-ctrl-0}
  - {name: tb-2, kind: tb3, parent: tb-ctrl-0}
sources:
  - {name: C001, media: codex-dock, bus: tb-1}
  - {name: C002, media: codex-dock, bus: tb-2}
destinations:
  - {name: raid, write_rate: 8GB/s}
`
	r, err := Plan(parse(t, shared), Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "bus:tb-ctrl-0", c.LimitedBy, "two ports on one controller share its 2.8 GB/s")
		near(t, 1.4*GB, c.Rate)
	}
	near(t, 2.8*GB, r.Buses[0].Load)
	near(t, 1.4*GB, r.Buses[1].Load)
	require.False(t, r.Buses[1].Full)

	// Apple silicon: each port is its own controller.
	r, err = Plan(parse(t, strings.ReplaceAll(shared, ", parent: tb-ctrl-0", "")), Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, LimitMedia, c.LimitedBy)
		near(t, 2.5*GB, c.Rate)
	}

	// Two destinations on two ports of one controller: every byte is written
	// twice through it.
	const dests = `
buses:
  - {name: tb-ctrl-0, kind: tb3}
  - {name: tb-1, kind: tb3, parent: tb-ctrl-0}
  - {name: tb-2, kind: tb3, parent: tb-ctrl-0}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
  - {name: raid2, bus: tb-2, kind: nvme-raid-tb3}
`
	top := parse(t, dests)
	cards(top, 4, "cfast2", "")
	r, err = Plan(top, Options{})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "bus:tb-ctrl-0", c.LimitedBy)
		near(t, 0.35*GB, c.Rate)
	}
	near(t, 2.8*GB, r.Buses[0].Writes)
}

func TestRAIDAmplificationBladesAndLimit(t *testing.T) {
	top := parse(t, `
buses:
  - {name: tb-1, kind: tb3}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid4-tb3}
`)
	cards(top, 4, "cfast2", "")
	r, err := Plan(top, Options{})
	require.NoError(t, err)
	// RAID 4 of 3+1 blades: 4/3 bytes per byte, 2.2 GB/s of blade writes.
	for _, c := range r.Cards {
		require.Equal(t, "dest:raid", c.LimitedBy)
		near(t, 2.2*GB*3/4/4, c.Rate)
		require.Contains(t, c.Why, "RAID 4 over 4 blades: 1.33 bytes per byte")
	}
	d := r.Destinations[0]
	near(t, 4.0/3, d.Amplification)
	near(t, 1.65*GB, d.Capacity)
	near(t, 2.2*GB, r.Buses[0].Writes, "the bus carries the parity too")

	// Blade caps: 4 blades of RAID 0 at 0.4 GB/s each take 1.6 GB/s.
	top.Destinations[0].BladeRate = 0.4 * GB
	top.SetRAID(0, 0)
	r, err = Plan(top, Options{})
	require.NoError(t, err)
	near(t, 1.6*GB, r.Total)
	require.Contains(t, r.Cards[0].Why, "blades writes at most")

	// --limit caps the destination.
	top.Destinations[0].Limit = 0.9 * GB
	r, err = Plan(top, Options{})
	require.NoError(t, err)
	near(t, 0.9*GB, r.Total)
	near(t, 0.9*GB, r.Destinations[0].Capacity)
	require.Contains(t, r.Cards[0].Why, "--limit")
}

func TestVerifyReadsCountAgainstDestinationReadRateAndBuses(t *testing.T) {
	top := parse(t, `
buses:
  - {name: dock, kind: tb3}
  - {name: tb-1, kind: tb3, parent: dock}
  - {name: usb-a, kind: usb3.2-gen2, parent: dock}
  - {name: usb-b, kind: usb3.2-gen2, parent: dock}
  - {name: usb-c, kind: usb3.2-gen2, parent: dock}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-b}
  - {name: A003, media: cfast2, bus: usb-c}
destinations:
  - {name: raid, bus: tb-1, write_rate: 2.2GB/s, read_rate: 1.2GB/s}
`)
	r, err := Plan(top, Options{})
	require.NoError(t, err)
	near(t, 3*0.55*GB, r.Total, "without read-back the cards run at full speed")

	r, err = Plan(top, Options{Verify: true})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "dest:raid", c.LimitedBy)
		near(t, 0.4*GB, c.Rate)
		require.Contains(t, c.Why, "reads back")
	}
	near(t, 1.2*GB, r.Destinations[0].ReadLoad)

	// The read-back flows up the dock with the card reads: 2 x total <= 2.8.
	top.Destinations[0].Read = 5 * GB
	r, err = Plan(top, Options{Verify: true})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "bus:dock", c.LimitedBy)
		near(t, 1.4*GB/3, c.Rate)
	}
	near(t, 2.8*GB, r.Buses[0].Reads)
}

func TestCPUPerStreamAndCores(t *testing.T) {
	top := parse(t, `
sources:
  - {name: C001, media: codex-dock}
  - {name: A001, media: cfast2}
destinations:
  - {name: raid, write_rate: 8GB/s}
`)
	cpu := &CPU{Cores: 8, PerCore: map[hashing.Algo]float64{hashing.MD5: 0.7 * GB, hashing.XXH64: 8 * GB}}
	r, err := Plan(top, Options{Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}, CPU: cpu})
	require.NoError(t, err)
	require.Equal(t, LimitCPU, r.Card("C001").LimitedBy, "MD5 is single-threaded per stream")
	near(t, 0.7*GB, r.Card("C001").Rate)
	require.Contains(t, r.Card("C001").Why, "md5 runs on one core per card")
	require.Equal(t, LimitMedia, r.Card("A001").LimitedBy)
	near(t, 0.7*GB, r.CPU.PerStream)
	require.Equal(t, "md5", r.CPU.SlowestHash)
	require.Equal(t, "md5 on one core", r.CPU.PerStreamWhy)

	// One core for both streams of MD5 + xxh64 (and read-back xxh64 of one
	// destination): 1 core / (1/0.7 + 1/8 + 1/8) GB/s.
	cpu.Cores = 1
	r, err = Plan(top, Options{Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}, CPU: cpu, Verify: true,
		VerifyHashes: []hashing.Algo{hashing.XXH64}})
	require.NoError(t, err)
	per := 1 / (1/0.7 + 1/8.0 + 1/8.0) * GB
	for _, c := range r.Cards {
		require.Equal(t, LimitCPU, c.LimitedBy)
		near(t, per/2, c.Rate)
	}
	near(t, 1, r.CPU.CoresUsed)
	near(t, per, r.CPU.PerStream, "one card alone has the one core for all its hashes")
	require.Equal(t, "xxh64,md5 together on 1 core with read-back", r.CPU.PerStreamWhy)

	// Unknown hash speed is an error that says what to do.
	_, err = Plan(top, Options{Hashes: []hashing.Algo{hashing.C4}, CPU: &CPU{Cores: 1}})
	require.NoError(t, err, "c4 has a default speed")
}

// TestCPUPerStreamIsTheSlowestChosenHash: one card hashes at most as fast
// as the slowest of the hashes chosen runs on a core, whatever the others.
func TestCPUPerStreamIsTheSlowestChosenHash(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, media: cfast2, size: 10GB}
destinations:
  - {name: raid, write_rate: 8GB/s, read_rate: 8GB/s}
`)
	cpu := &CPU{Cores: 16, PerCore: map[hashing.Algo]float64{hashing.MD5: 0.75 * GB, hashing.XXH64: 12 * GB,
		hashing.XXH3: 20 * GB, hashing.SHA1: 1.1 * GB}}
	for _, tc := range []struct {
		hashes string
		want   float64
		slow   string
	}{
		{"xxh64", 12 * GB, "xxh64"},
		{"xxh64,md5", 0.75 * GB, "md5"},
		{"md5,xxh64", 0.75 * GB, "md5"},
		{"xxh3,sha1", 1.1 * GB, "sha1"},
		{"sha1,md5,xxh3", 0.75 * GB, "md5"},
	} {
		algos, err := hashing.ParseList(tc.hashes)
		require.NoError(t, err)
		r, err := Plan(top, Options{Hashes: algos, CPU: cpu, Verify: true, VerifyHashes: []hashing.Algo{hashing.Fastest(algos)}})
		require.NoError(t, err)
		near(t, tc.want, r.CPU.PerStream, tc.hashes)
		require.Equal(t, tc.slow, r.CPU.SlowestHash, tc.hashes)
		require.Equal(t, tc.slow+" on one core", r.CPU.PerStreamWhy, tc.hashes)
	}
	// The hashes in a simulation run on the real CPU: a scaled topology
	// leaves them as they are.
	algos := []hashing.Algo{hashing.XXH64, hashing.MD5}
	r, err := Plan(top.Scaled(0.1), Options{Hashes: algos, CPU: cpu})
	require.NoError(t, err)
	near(t, 0.75*GB, r.CPU.PerStream)
	near(t, 0.055*GB, r.Cards[0].Rate, "cfast2 at a tenth")
}

// TestScaledTopologyScalesThePlan: at f x every hardware rate the plan is
// the same with every rate f times and every ETA 1/f times the field's.
func TestScaledTopologyScalesThePlan(t *testing.T) {
	top := parse(t, `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.0, usable_rate: 0.3GB/s}
  - {name: tb-ctrl, kind: tb3}
  - {name: tb-1, kind: tb3, parent: tb-ctrl}
sources:
  - {name: A001, media: cfast2, bus: usb-a, size: 100GB}
  - {name: A002, media: cfast2, bus: usb-a, size: 50GB}
  - {name: A003, media: axs, bus: usb-b, size: 80GB}
  - {name: A004, bus: usb-b, read_rate: 0.2GB/s, size: 10GB}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid4-tb3}
  - {name: shuttle, bus: tb-1, write_rate: 1GB/s, read_rate: 1.2GB/s, limit: 0.8GB/s}
`)
	o := Options{Verify: true}
	field, err := Plan(top, o)
	require.NoError(t, err)
	const f = 0.1
	sim, err := Plan(top.Scaled(f), o)
	require.NoError(t, err)
	require.Len(t, sim.Cards, len(field.Cards))
	for i, c := range field.Cards {
		s := sim.Cards[i]
		require.Equal(t, c.LimitedBy, s.LimitedBy, c.Name)
		near(t, c.Rate*f, s.Rate, c.Name)
		require.NotNil(t, s.ETASeconds)
		near(t, *c.ETASeconds/f, *s.ETASeconds, c.Name)
	}
	near(t, field.Total*f, sim.Total)
	near(t, *field.ETASeconds/f, *sim.ETASeconds)
	for i, b := range field.Buses {
		near(t, b.Capacity*f, sim.Buses[i].Capacity, b.Name)
		near(t, b.Load*f, sim.Buses[i].Load, b.Name)
	}
	for i, d := range field.Destinations {
		near(t, d.Capacity*f, sim.Destinations[i].Capacity, d.Name)
		near(t, d.ReadCapacity*f, sim.Destinations[i].ReadCapacity, d.Name)
	}
	require.Equal(t, len(field.Fits), len(sim.Fits))
	for i := range field.Fits {
		require.Equal(t, field.Fits[i].More, sim.Fits[i].More)
	}
	// The topology itself is left as it was.
	again, err := Plan(top, o)
	require.NoError(t, err)
	near(t, field.Total, again.Total)
}

func TestETAsReplanAsCardsFinish(t *testing.T) {
	top := parse(t, `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2}
  - {name: usb-c, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a, size: 100GB}
  - {name: A002, media: cfast2, bus: usb-b, size: 100GB}
  - {name: A003, media: cfast2, bus: usb-c, size: 50GB}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-tb, limit: 0.9GB/s}
`)
	r, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, "dest:raid", c.LimitedBy)
		near(t, 0.3*GB, c.Rate)
	}
	small := 50e9 / 0.3e9
	require.InDelta(t, small, *r.Card("A003").ETASeconds, 1e-6)
	// After A003, A001 and A002 share 0.9 GB/s: 0.45 each for their last 50 GB.
	require.InDelta(t, small+50e9/0.45e9, *r.Card("A001").ETASeconds, 1e-6)
	require.InDelta(t, small+50e9/0.45e9, *r.ETASeconds, 1e-6)

	top.Sources[0].Size = 0
	r, err = Plan(top, Options{Verify: true})
	require.NoError(t, err)
	require.Nil(t, r.Card("A001").ETASeconds, "no ETA without a size")
	require.Nil(t, r.ETASeconds)
	require.NotNil(t, r.Card("A003").ETASeconds)
}

func TestHalfDuplexUSB2AndDeviceCap(t *testing.T) {
	top := parse(t, `
buses:
  - {name: old-hub, kind: usb2}
  - {name: usb-5g, kind: usb3.0}
sources:
  - {name: S001, media: sd-uhs2, bus: old-hub}
  - {name: A001, media: cfast2, bus: usb-5g}
destinations:
  - {name: stick, bus: old-hub, write_rate: 1GB/s}
`)
	r, err := Plan(top, Options{})
	require.NoError(t, err)
	// USB 2.0 is half duplex: S001's reads and both cards' writes to the
	// stick share 42 MB/s (S001 crosses the hub twice): 3 x 14 MB/s.
	require.Equal(t, "bus:old-hub", r.Card("S001").LimitedBy)
	require.Equal(t, "bus:old-hub", r.Card("A001").LimitedBy)
	near(t, 0.014*GB, r.Card("S001").Rate)
	near(t, 0.014*GB, r.Card("A001").Rate)
	near(t, 0.042*GB, r.Buses[0].Load)

	// A CFast reader on a 5 Gbit/s port drags: 0.35 GB/s per device.
	top.Destinations[0].Bus = ""
	r, err = Plan(top, Options{})
	require.NoError(t, err)
	require.Equal(t, "bus:usb-5g", r.Card("A001").LimitedBy)
	near(t, 0.35*GB, r.Card("A001").Rate)
	require.Contains(t, r.Card("A001").Why, "one device gets at most 0.350 GB/s")
}

func TestUnknownRatesAndEmpty(t *testing.T) {
	top := parse(t, `
sources:
  - {name: X001}
destinations:
  - {name: folder}
`)
	r, err := Plan(top, Options{})
	require.NoError(t, err)
	require.Equal(t, LimitUnknown, r.Cards[0].LimitedBy)
	require.Zero(t, r.Cards[0].Rate)
	require.False(t, math.IsNaN(r.Total))

	r, err = Plan(parse(t, "buses: []\n"), Options{})
	require.NoError(t, err)
	require.Empty(t, r.Cards)
	require.Equal(t, "no cards", r.Bottleneck)
}

func TestMaxMinFairnessGivesFreedBudgetToTheOthers(t *testing.T) {
	// Two slow AXS cards and two CFast cards on one 10 Gbit/s bus: the AXS
	// cards run at full speed, the CFast cards share what is left.
	top := parse(t, `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
sources:
  - {name: X1, media: axs, bus: usb-a}
  - {name: X2, media: axs, bus: usb-a}
  - {name: C1, media: cfast2, bus: usb-a}
  - {name: C2, media: cfast2, bus: usb-a}
destinations:
  - {name: raid, write_rate: 5GB/s}
`)
	r, err := Plan(top, Options{})
	require.NoError(t, err)
	near(t, 0.235*GB, r.Card("X1").Rate)
	require.Equal(t, LimitMedia, r.Card("X1").LimitedBy)
	near(t, (1.15-0.47)/2*GB, r.Card("C1").Rate)
	require.Equal(t, "bus:usb-a", r.Card("C2").LimitedBy)
	require.Contains(t, r.Card("C2").Why, "shared with X1, X2, C1")
	near(t, 1.15*GB, r.Total)
}

// MD5's rate measured with as many streams as the job has cards is the
// one planned: four cards plan with the 4-stream rate, two with the
// 2-stream one, and the cores count the lanes' bytes per core-second.
func TestCPUMD5ByStreamCount(t *testing.T) {
	src := "sources:\n"
	for i := range 4 {
		src += fmt.Sprintf("  - {name: C%d, media: codex-dock}\n", i)
	}
	top := parse(t, src+"destinations:\n  - {name: raid, write_rate: 20GB/s}\n")
	cpu := &CPU{Cores: 1, PerCore: map[hashing.Algo]float64{hashing.MD5: 0.8 * GB},
		MD5: map[int]StreamRate{1: {Stream: 0.8 * GB, PerCore: 0.8 * GB}, 2: {Stream: 0.75 * GB, PerCore: 0.8 * GB},
			4: {Stream: 0.6 * GB, PerCore: 2.4 * GB}}}
	r, err := Plan(top, Options{Hashes: []hashing.Algo{hashing.MD5}, CPU: cpu})
	require.NoError(t, err)
	for _, c := range r.Cards {
		require.Equal(t, LimitCPU, c.LimitedBy, c.Name)
		// 4 streams in lanes: 0.6 GB/s each, 2.4 GB/s on the one core.
		near(t, 0.6*GB, c.Rate)
	}
	near(t, 0.6*GB, r.CPU.PerStream)

	// Without the lanes' figures: one core at 0.8 GB/s for all four.
	r, err = Plan(top, Options{Hashes: []hashing.Algo{hashing.MD5}, CPU: &CPU{Cores: 1, PerCore: cpu.PerCore}})
	require.NoError(t, err)
	near(t, 0.2*GB, r.Card("C0").Rate)

	// Three cards plan with the 2-stream figure (the most streams not above 3).
	top.Sources = top.Sources[:3]
	r, err = Plan(top, Options{Hashes: []hashing.Algo{hashing.MD5}, CPU: cpu})
	require.NoError(t, err)
	near(t, 0.8*GB/3, r.Card("C0").Rate)
	got, ok := cpu.MD5At(3)
	require.True(t, ok)
	require.Equal(t, 0.75*GB, got.Stream)
	_, ok = cpu.MD5At(0)
	require.False(t, ok)
}
