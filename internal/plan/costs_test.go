package plan

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sec checks a time in seconds to a millionth.
func sec(t *testing.T, want float64, got *float64, msg ...any) {
	t.Helper()
	require.NotNil(t, got, msg...)
	require.InDelta(t, want, *got, want*1e-6+1e-9, msg...)
}

// One card of 1 GB in 2,000 files to a folder, read at 0.5 GB/s: its
// copy is its start and the longer of its bytes at 0.5 GB/s and its
// files' costs with its bytes at its share of the folder's write rate
// (half of 2 GB/s: it is written side by side with B001); it is safe
// once what is left to read back is (at the folder's read rate, with
// its per-file read-back cost), the read-back has caught up what it fell
// behind per file, and it is sealed (its fixed cost and its files'
// entries). B001 ends first: its read-back shares the folder's reads
// with A001's, still copying.
func TestCostsInTheCardsTimes(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, read_rate: 0.5GB/s, size: 1GB, files: 2000}
  - {name: B001, read_rate: 0.5GB/s, size: 1GB}
destinations:
  - {name: shuttle, write_rate: 2GB/s, read_rate: 2GB/s}
`)
	top.Sources[0].LastFile, top.Sources[1].LastFile = 500e6, 500e6
	c := Costs{PerFile: 0.004, VerifyPerFile: 0.005, Start: 0.3, Fixed: 1.5, SealPerFile: 0.0001}
	top.Destinations[0].Costs = &c
	res, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	a, b := res.Cards[0], res.Cards[1]
	copyA := 0.3 + max(1/0.5, 2000*0.004+1/1.0)
	sec(t, copyA, a.ETASeconds, "A001 copied")
	sec(t, copyA+500e6/2e9+0.005+2000*(0.005-0.004)+1.5+2000*0.0001, a.SafeSeconds, "A001 safe")
	require.Equal(t, 2000, a.Files)
	require.InDelta(t, 0.004, a.PerFileSeconds, 1e-12)
	require.InDelta(t, 0.005, a.VerifyPerFileSeconds, 1e-12)
	require.InDelta(t, 0.3+1.5+2000*0.0001, a.FixedSeconds, 1e-12)
	require.InDelta(t, 2e9, a.VerifyRate, 1)

	// A card known by its size alone is planned by its bytes, as before.
	sec(t, 2, b.ETASeconds, "B001 copied")
	sec(t, 2+500e6/(2e9-0.5e9), b.SafeSeconds, "B001 safe: its last file read back beside A001's read-back")
	require.Zero(t, b.PerFileSeconds)
	require.Zero(t, b.FixedSeconds)
	sec(t, *a.ETASeconds, res.ETASeconds)
	sec(t, *a.SafeSeconds, res.SafeSeconds)

	// Without read-back: no tail, no read-back per file; the fixed
	// costs stay.
	res, err = Plan(top, Options{})
	require.NoError(t, err)
	sec(t, copyA+1.5+2000*0.0001, res.Cards[0].SafeSeconds)

	// Files that cost less than the bytes take hide behind the reads.
	c.PerFile = 0.0002
	res, err = Plan(top, Options{})
	require.NoError(t, err)
	sec(t, 0.3+1/0.5, res.Cards[0].ETASeconds, "2000 x 0.2 ms + 0.5 s of writes < 2 s of reads")
	require.Zero(t, res.Cards[0].VerifyRate)
}

// Two cards share a 1 GB/s bus: 0.5 GB/s each. A001's 1,000 files cost
// 10 s, with its bytes at its half of the array's 5 GB/s 10.4 s: 8.4 s
// beyond its 2 s of reads, paid along them; B001 (one file) is copied
// first, and A001 gets the whole bus for what it has left: that part of
// its bytes at 1 GB/s and the same part of its files' 8.4 s.
func TestFileCostsHoldTheShareLonger(t *testing.T) {
	top := parse(t, `
buses:
  - {name: usb, kind: usb3.2-gen2, usable_rate: 1GB/s}
sources:
  - {name: A001, read_rate: 2GB/s, bus: usb, size: 1GB, files: 1000}
  - {name: B001, read_rate: 2GB/s, bus: usb, size: 1GB, files: 1}
destinations:
  - {name: raid, write_rate: 5GB/s, read_rate: 5GB/s}
`)
	top.Destinations[0].Costs = &Costs{PerFile: 0.01}
	res, err := Plan(top, Options{})
	require.NoError(t, err)
	tb := 1 / 0.5
	sec(t, tb, res.Cards[1].ETASeconds, "B001: its one file hides behind its reads")
	over := 1000*0.01 + 1/2.5 - 1/0.5
	whole := 1/0.5 + over        // A001 at its share
	part := (whole - tb) / whole // what it has left when B001 is done
	sec(t, tb+part*(1/1.0+over), res.Cards[0].ETASeconds, "A001 with the whole bus after B001")
}

// A cascade pays each run's costs: the first run's destinations' before
// the card is free (its first copies sealed), the second run's (a cloud
// remote: a listing before, the history's upload after) before it is
// safe.
func TestCascadeCounts(t *testing.T) {
	top := parse(t, `
upload_rate: 40MB/s
sources:
  - {name: A001, read_rate: 0.5GB/s, size: 1GB, files: 100}
destinations:
  - {name: raid, write_rate: 2GB/s, read_rate: 2GB/s}
  - {name: b2, path: "rclone:b2:show/day1", run: 2}
`)
	top.Sources[0].LastFile = 100e6
	top.Destinations[0].Costs = &Costs{PerFile: 0.002, VerifyPerFile: 0.001, Start: 0.1, Fixed: 0.5}
	cloud := DefaultCosts[CostCloud]
	res, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	c := res.Cards[0]
	copied := 0.1 + 1/0.5 // 100 x 2 ms + 0.5 s of writes hide behind 2 s of reads
	free := copied + 100e6/2e9 + 0.001 + 0.5
	sec(t, copied, c.ETASeconds)
	sec(t, free, c.FreeSeconds)
	second := cloud.Start + 1/0.04 + 100*cloud.PerFile
	sec(t, free+second+100*max(0, cloud.VerifyPerFile-cloud.PerFile)+cloud.VerifyPerFile+cloud.Fixed+100*cloud.SealPerFile, c.SafeSeconds)
	sec(t, *c.SafeSeconds, res.Cascade.LastSafeSeconds)
	sec(t, *c.SafeSeconds, res.SafeSeconds)
}

// A card's per-file costs are its destinations' most, its start and
// sealing their sum (it is sealed on one after another); each
// destination's are its measured costs or its kind's defaults.
func TestCostKinds(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, read_rate: 0.5GB/s, size: 1GB, files: 10}
destinations:
  - {name: shuttle, write_rate: 1GB/s, read_rate: 1GB/s}
  - {name: raid, write_rate: 1GB/s, read_rate: 1GB/s}
  - {name: s3, kind: cloud}
`)
	top.Destinations[1].CostKind = CostArray
	require.Equal(t, CostFolder, CostKindOf(top.Destinations[0]))
	require.Equal(t, CostArray, CostKindOf(top.Destinations[1]))
	require.Equal(t, CostCloud, CostKindOf(top.Destinations[2]))
	require.Equal(t, DefaultCosts[CostArray], top.DestCosts(1))
	measured := Costs{PerFile: 0.5, Fixed: 0.1}
	top.Destinations[0].Costs = &measured
	require.Equal(t, measured, top.DestCosts(0))
	res, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	c := res.Cards[0]
	require.InDelta(t, 0.5, c.PerFileSeconds, 1e-12, "the measured folder's")
	cl, ar := DefaultCosts[CostCloud], DefaultCosts[CostArray]
	require.InDelta(t, cl.Start+ar.Start+cl.Fixed+ar.Fixed+0.1+10*(cl.SealPerFile+ar.SealPerFile), c.FixedSeconds, 1e-12)
	require.InDelta(t, 1e9, c.VerifyRate, 1, "read back from the folders, not the cloud")
}

// The prior the live estimate starts from is the card's plan.
func TestPrior(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, read_rate: 0.5GB/s, size: 1GB, files: 300}
destinations:
  - {name: shuttle, write_rate: 2GB/s, read_rate: 0.8GB/s}
`)
	top.Destinations[0].Costs = &Costs{PerFile: 0.002, VerifyPerFile: 0.003, Start: 0.25, Fixed: 0.75}
	res, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	p, ok := res.Prior("A001")
	require.True(t, ok)
	require.Equal(t, Prior{Rate: 0.5e9, PerFile: 2 * time.Millisecond, VerifyRate: 0.8e9, Fixed: time.Second,
		VerifyPerFile: 3 * time.Millisecond, Files: 300, Bytes: 1e9}, p)
	_, ok = res.Prior("B001")
	require.False(t, ok)
}

// files: is a source key, written back by Encode.
func TestFilesKey(t *testing.T) {
	top := parse(t, "sources:\n  - {name: A001, media: cfast2, size: 10GB, files: 3000}\n")
	require.Equal(t, 3000, top.Sources[0].Files)
	var b bytes.Buffer
	require.NoError(t, top.Encode(&b))
	again := parse(t, b.String())
	require.Equal(t, 3000, again.Sources[0].Files)
	_, err := ParseTopology("t.yaml", []byte("sources:\n  - {name: A001, files: many}\n"))
	require.ErrorContains(t, err, "files must be a whole number")
}

// Cards whose copies end together read back what they have left side by
// side: each at half the destination's read rate.
func TestTailsShareTheReads(t *testing.T) {
	top := parse(t, `
buses:
  - {name: a, kind: usb3.2-gen2}
  - {name: b, kind: usb3.2-gen2}
sources:
  - {name: A001, read_rate: 0.5GB/s, bus: a, size: 1GB}
  - {name: A002, read_rate: 0.5GB/s, bus: b, size: 1GB}
destinations:
  - {name: raid, write_rate: 2GB/s, read_rate: 1GB/s}
`)
	for i := range top.Sources {
		top.Sources[i].LastFile = 400e6
	}
	res, err := Plan(top, Options{Verify: true})
	require.NoError(t, err)
	for _, c := range res.Cards {
		sec(t, 2, c.ETASeconds, c.Name)
		sec(t, 2+400e6/0.5e9, c.SafeSeconds, c.Name)
	}
}
