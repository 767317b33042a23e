package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
)

// simScale runs the simulations at 4% of the field rates: 0.3 GB/s becomes
// 12 MB/s, which a 2-core CI machine keeps up with while it hashes and
// reads back; achieved rates are compared with the plan divided back.
const simScale = 0.04

// copyRate is the card's achieved copy rate (bytes/s) between from and to,
// from the catalog's per-second samples of its reads.
func copyRate(t *testing.T, samples []catalog.Sample, card int64, from, to time.Time) float64 {
	t.Helper()
	var a, b *catalog.Sample
	for i := range samples {
		s := &samples[i]
		if s.CardID != card || s.DestID != 0 || s.Phase != "copy" {
			continue
		}
		if a == nil && !s.T.Before(from) {
			a = s
		}
		if !s.T.After(to) {
			b = s
		}
	}
	require.NotNil(t, a, "no sample after %s", from)
	require.NotNil(t, b)
	if b.T.Sub(a.T) < 1500*time.Millisecond {
		for _, s := range samples {
			if s.CardID == card && s.DestID == 0 {
				t.Logf("sample %s %s %d", s.T.Format("15:04:05.000"), s.Phase, s.Bytes)
			}
		}
		t.Fatalf("window %s..%s too short to measure", from.Format("15:04:05.000"), to.Format("15:04:05.000"))
	}
	return float64(b.Bytes-a.Bytes) / b.T.Sub(a.T).Seconds()
}

// copyWindow is the card's first copy sample (a second after its start)
// and its last rising one (its last byte read).
func copyWindow(samples []catalog.Sample, card int64) (first, last time.Time) {
	var top int64 = -1
	for _, s := range samples {
		if s.CardID != card || s.DestID != 0 || s.Phase != "copy" {
			continue
		}
		if first.IsZero() {
			first = s.T
		}
		if s.Bytes > top {
			top, last = s.Bytes, s.T
		}
	}
	return first, last
}

type simJob struct {
	cat     *catalog.Catalog
	job     int64
	cards   map[string]int64 // label -> catalog id
	plans   []catalog.Plan
	samples []catalog.Sample
}

func loadSim(t *testing.T, db string) simJob {
	t.Helper()
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	jobs, err := cat.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	sj := simJob{cat: cat, job: jobs[0].ID, cards: map[string]int64{}}
	ks, err := cat.Cards(sj.job)
	require.NoError(t, err)
	for _, k := range ks {
		sj.cards[k.Label] = k.ID
	}
	sj.plans, err = cat.Plans(sj.job)
	require.NoError(t, err)
	sj.samples, err = cat.Samples(sj.job)
	require.NoError(t, err)
	return sj
}

func planned(p catalog.Plan, label string) catalog.PlanCard {
	for _, c := range p.Cards {
		if c.Name == label {
			return c
		}
	}
	return catalog.PlanCard{}
}

func TestSimulateAXSSharingAUSB3Bus(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "3", "--size", "50MB", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), `
buses:
  - {name: usb-shared, kind: usb3.0}
  - {name: usb-alone, kind: usb3.0}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: axs, bus: usb-shared}
  - {name: A002, media: axs, bus: usb-shared}
  - {name: A003, media: axs, bus: usb-alone}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
`)
	start := time.Now()
	r = e2e.Dit(t, db, "offload", "--topology", topo, "--simulate", "--simulate-scale", "0.04", "--hash", "xxh64", "--block-size", "256KiB",
		"-d", raid, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"), filepath.Join(cards, "A003"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	t.Logf("simulated job took %s", time.Since(start).Round(time.Millisecond))
	require.Contains(t, r.Stdout, "Plan: 3 cards -> 1 destination")
	require.Contains(t, r.Stdout, "Bottleneck: none: every card runs at the full speed of its medium")

	sj := loadSim(t, db)
	require.NotEmpty(t, sj.plans)
	p := sj.plans[0]
	require.Equal(t, "start", p.Reason)
	require.True(t, p.Simulated)
	require.Equal(t, simScale, p.Scale)
	for _, label := range []string{"A001", "A002", "A003"} {
		pc := planned(p, label)
		require.Equal(t, "media", pc.LimitedBy, "two AXS readers fit one 5 Gbit/s bus")
		require.InDelta(t, 0.235e9, pc.Rate, 1)
		first, last := copyWindow(sj.samples, sj.cards[label])
		got := copyRate(t, sj.samples, sj.cards[label], first, last.Add(-500*time.Millisecond)) / simScale
		t.Logf("%s: planned %.3f GB/s, achieved %.3f GB/s", label, pc.Rate/1e9, got/1e9)
		require.InEpsilon(t, pc.Rate, got, 0.10, "%s achieved %.3f GB/s, planned %.3f", label, got/1e9, pc.Rate/1e9)
	}
}

func TestSimulateLimitAndReplanWhenASmallCardFinishes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "200MB", "--seed", "4")
	require.Equal(t, 0, r.Code, r.Stderr)
	small := filepath.Join(dir, "small")
	r = e2e.Dit(t, db, "testdata", "cards", "--out", small, "--cards", "1", "--size", "100MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, os.Rename(filepath.Join(small, "A001"), filepath.Join(cards, "A003")))
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2}
  - {name: usb-c, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-b}
  - {name: A003, media: cfast2, bus: usb-c}
destinations:
  - {name: raid, path: `+raid+`, bus: tb-1, kind: nvme-tb}
`)
	start := time.Now()
	r = e2e.Dit(t, db, "offload", "--json", "--topology", topo, "--simulate", "--simulate-scale", "0.04", "--limit", "0.9GB/s",
		"--hash", "xxh64", "--block-size", "256KiB", "-d", raid,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002"), filepath.Join(cards, "A003"))
	require.Equal(t, 0, r.Code, r.Stderr)
	t.Logf("simulated job took %s", time.Since(start).Round(time.Millisecond))

	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	var sum struct {
		Plans []catalog.Plan `json:"plans"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.GreaterOrEqual(t, len(sum.Plans), 2, "the summary shows the plan and the re-plan")

	sj := loadSim(t, db)
	require.GreaterOrEqual(t, len(sj.plans), 2)
	p0, p1 := sj.plans[0], sj.plans[1]
	for _, label := range []string{"A001", "A002", "A003"} {
		pc := planned(p0, label)
		require.Equal(t, "dest:raid", pc.LimitedBy)
		require.InDelta(t, 0.3e9, pc.Rate, 1, "0.9 GB/s shared by three cards")
	}
	require.Equal(t, "A003 copied", p1.Reason, "the small card finishes first")
	require.Len(t, p1.Cards, 2)
	for _, label := range []string{"A001", "A002"} {
		require.InDelta(t, 0.45e9, planned(p1, label).Rate, 1, "its budget goes to the other two")
	}

	// Phase 1: all three at ~0.3 GB/s until A003 is copied.
	first, end3 := copyWindow(sj.samples, sj.cards["A003"])
	for _, label := range []string{"A001", "A002", "A003"} {
		got := copyRate(t, sj.samples, sj.cards[label], first.Add(time.Second), end3.Add(-time.Second)) / simScale
		t.Logf("%s before the re-plan: planned 0.300 GB/s, achieved %.3f GB/s", label, got/1e9)
		require.InEpsilon(t, 0.3e9, got, 0.10, label)
	}
	// Phase 2: A001 and A002 at ~0.45 GB/s from the re-plan to their end.
	for _, label := range []string{"A001", "A002"} {
		_, end := copyWindow(sj.samples, sj.cards[label])
		got := copyRate(t, sj.samples, sj.cards[label], p1.T.Add(500*time.Millisecond), end.Add(-500*time.Millisecond)) / simScale
		t.Logf("%s after the re-plan: planned %.3f GB/s, achieved %.3f GB/s", label, planned(p1, label).Rate/1e9, got/1e9)
		require.InEpsilon(t, planned(p1, label).Rate, got, 0.10, label)
	}
}

func TestPlanCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-ctrl-0, kind: tb3}
  - {name: tb-1, kind: tb3, parent: tb-ctrl-0}
sources:
  - {name: A023, media: cfast2, bus: usb-a, size: 128GB}
  - {name: A024, media: cfast2, bus: usb-a, size: 128GB}
  - {name: A025, media: cfast2, bus: usb-a, size: 64GB}
destinations:
  - {name: raid, bus: tb-1, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
cpu: {cores: 8, hash_rates: {md5: 0.7GB/s, xxh64: 8GB/s}}
`)
	r := e2e.Dit(t, db, "plan", "--topology", topo, "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res struct {
		Cards []struct {
			Name      string   `json:"name"`
			Rate      float64  `json:"rate_bytes_per_s"`
			LimitedBy string   `json:"limited_by"`
			ETA       *float64 `json:"eta_s"`
		} `json:"cards"`
		Buses []struct {
			Name     string  `json:"name"`
			Load     float64 `json:"load_bytes_per_s"`
			Capacity float64 `json:"capacity_bytes_per_s"`
		} `json:"buses"`
		Destinations []struct {
			Name     string  `json:"name"`
			Load     float64 `json:"load_bytes_per_s"`
			Capacity float64 `json:"capacity_bytes_per_s"`
		} `json:"destinations"`
		Total     float64 `json:"total_bytes_per_s"`
		TBPerHour float64 `json:"tb_per_hour"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Len(t, res.Cards, 3)
	for _, c := range res.Cards {
		require.Equal(t, "bus:usb-a", c.LimitedBy, "three CFast readers do not fit one 10 Gbit/s bus")
		require.InDelta(t, 1.15e9/3, c.Rate, 1)
		require.NotNil(t, c.ETA)
	}
	require.InDelta(t, 64e9/(1.15e9/3), *res.Cards[2].ETA, 1e-6)
	require.Equal(t, "usb-a", res.Buses[0].Name)
	require.InDelta(t, 1.15e9, res.Buses[0].Load, 1)
	require.InDelta(t, 1.15e9, res.Buses[0].Capacity, 1)
	require.InDelta(t, 2.8e9, res.Buses[1].Capacity, 1)
	require.Equal(t, "raid", res.Destinations[0].Name)
	require.InDelta(t, 2.2e9, res.Destinations[0].Capacity, 1)
	require.InDelta(t, 1.15e9, res.Total, 1)
	require.InDelta(t, 1.15*3.6, res.TBPerHour, 1e-9)

	r = e2e.Dit(t, db, "plan", "--topology", topo)
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, want := range []string{"CARD", "LIMITED BY", "bus usb-a (USB 3.2 Gen 2 (10 Gbit/s), 1.150 GB/s usable) carrying reads, shared with A024, A025",
		"Total:      1.150 GB/s = 4.140 TB/hour", "Bottleneck: bus usb-a holds back 3 of 3 cards",
		"0 more cfast2 at full speed on bus usb-a", "  tb-1 "} {
		require.Contains(t, r.Stdout, want)
	}

	bad := e2e.WriteFile(t, filepath.Join(dir, "bad.yaml"), "buses:\n  - {name: a, kind: usb3.2-gen2}\nsources:\n  - {name: A, media: cfast2, bus: b}\n")
	r = e2e.Dit(t, db, "plan", "--topology", bad)
	require.Equal(t, e2e.ExitUsage, r.Code) // a bad --topology value, as for dit offload
	require.Contains(t, r.Stderr, `bad.yaml line 4: source "A" is on bus "b", which is not defined`)
	r = e2e.Dit(t, db, "plan")
	require.Equal(t, 2, r.Code)
	r = e2e.Dit(t, db, "plan", "--topology", topo, "--limit", "nope=1GB/s")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `no destination "nope"`)
	r = e2e.Dit(t, db, "offload", "--simulate-scale", "0.5", "-d", dir, filepath.Join(dir, "x"))
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "--simulate-scale needs --simulate")
}

func TestDevicesCommand(t *testing.T) {
	if _, err := os.Stat("/proc/self/mountinfo"); err != nil {
		t.Skip("no /proc/self/mountinfo here: discovery is tested on the fake trees in internal/devices")
	}
	r := e2e.Dit(t, filepath.Join(t.TempDir(), "c.db"), "devices", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var vols []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &vols))
	for _, v := range vols {
		require.Contains(t, v, "mount")
		require.Contains(t, v, "filesystem")
	}
	r = e2e.Dit(t, filepath.Join(t.TempDir(), "c.db"), "devices")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "MOUNT")
}

// jsonPlan is what the tests read of dit plan --json.
type jsonPlan struct {
	Cards []struct {
		Name      string   `json:"name"`
		Rate      float64  `json:"rate_bytes_per_s"`
		LimitedBy string   `json:"limited_by"`
		ETA       *float64 `json:"eta_s"`
	} `json:"cards"`
	CPU *struct {
		PerStream   float64 `json:"per_stream_bytes_per_s"`
		SlowestHash string  `json:"slowest_hash"`
	} `json:"cpu"`
	Total     float64  `json:"total_bytes_per_s"`
	ETA       *float64 `json:"eta_s"`
	Simulated bool     `json:"simulated"`
	Scale     float64  `json:"scale"`
}

func planJSON(t *testing.T, db string, args ...string) jsonPlan {
	t.Helper()
	r := e2e.Dit(t, db, append([]string{"plan", "--json"}, args...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	var p jsonPlan
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &p), r.Stdout)
	return p
}

// cardLine is the line of the plan's card table for label.
func cardLine(t *testing.T, out, label string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, label+" ") {
			return l
		}
	}
	t.Fatalf("no line for card %s in\n%s", label, out)
	return ""
}

// TestPlanSimulateScaleIsThePlanThatRuns: dit plan --simulate
// --simulate-scale F plans the simulated run (rates F times, times 1/F
// times the field plan's, this machine's hashing as it is); dit offload with
// the same flags shows that plan and runs as long as it says.
func TestPlanSimulateScaleIsThePlanThatRuns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	set := `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a, size: 64GB}
  - {name: A002, media: cfast2, bus: usb-a, size: 128GB}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
cpu: {cores: 4, hash_rates: {md5: 0.75GB/s, xxh64: 9GB/s}}
`
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), set)

	// The plan at a tenth: every ETA 10 times, every rate a tenth.
	field := planJSON(t, db, "--topology", topo, "--hash", "xxh64,md5")
	sim := planJSON(t, db, "--topology", topo, "--hash", "xxh64,md5", "--simulate", "--simulate-scale", "0.1")
	require.False(t, field.Simulated)
	require.True(t, sim.Simulated)
	require.Equal(t, 0.1, sim.Scale)
	require.Len(t, sim.Cards, 2)
	for i, c := range field.Cards {
		s := sim.Cards[i]
		require.Equal(t, c.LimitedBy, s.LimitedBy, c.Name)
		require.InEpsilon(t, c.Rate/10, s.Rate, 1e-9, c.Name)
		require.NotNil(t, s.ETA)
		require.InEpsilon(t, *c.ETA*10, *s.ETA, 1e-9, c.Name)
	}
	require.InEpsilon(t, *field.ETA*10, *sim.ETA, 1e-9)
	// The hashing runs on this CPU at its speed whatever the scale, bound
	// by the slowest hash chosen: MD5.
	for _, p := range []jsonPlan{field, sim} {
		require.Equal(t, "md5", p.CPU.SlowestHash)
		require.InEpsilon(t, 0.75e9, p.CPU.PerStream, 1e-9)
	}
	r := e2e.Dit(t, db, "plan", "--topology", topo, "--hash", "xxh64,md5", "--simulate", "--simulate-scale", "0.1")
	require.Equal(t, 0, r.Code, r.Stderr)
	for i, label := range []string{"A001", "A002"} {
		line := cardLine(t, r.Stdout, label)
		require.Contains(t, line, units.FormatRate(sim.Cards[i].Rate), line)
		require.Contains(t, line, " "+eta(sim.Cards[i].ETA)+" ", line)
		require.NotContains(t, line, eta(field.Cards[i].ETA), line)
	}
	require.Contains(t, r.Stdout, "every card copied in "+eta(sim.ETA)+"\n")
	require.Contains(t, r.Stdout, "one card hashes at most 0.750 GB/s (md5 on one core)")
	require.Contains(t, r.Stdout, "Simulated:  at 0.1 x the field rates")
	r = e2e.Dit(t, db, "plan", "--topology", topo, "--simulate-scale", "0.1")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "needs --simulate")
	r = e2e.Dit(t, db, "plan", "--topology", topo, "--simulate", "--simulate-scale", "0")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "invalid --simulate-scale")

	// A short simulated offload: dit plan of its cards and destination,
	// what dit offload shows and records, and how long it takes.
	const scale = 0.04 // cfast2 at 22 MB/s
	cards := filepath.Join(dir, "cards")
	r = e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "60MB", "--seed", "11")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	// The same set with the cards' sizes left to their folders.
	topo = e2e.WriteFile(t, filepath.Join(dir, "set-job.yaml"), strings.NewReplacer(", size: 64GB", "", ", size: 128GB", "").Replace(set))
	job := []string{"--topology", topo, "--hash", "xxh64,md5", "--simulate", "--simulate-scale", strconv.FormatFloat(scale, 'g', -1, 64),
		"-d", raid, filepath.Join(cards, "A001"), filepath.Join(cards, "A002")}
	before := planJSON(t, db, job...)
	r = e2e.Dit(t, db, append([]string{"plan"}, job...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	planText := r.Stdout
	r = e2e.Dit(t, db, append([]string{"offload", "--block-size", "256KiB"}, job...)...)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sj := loadSim(t, db)
	require.NotEmpty(t, sj.plans)
	rec := sj.plans[0]
	require.Equal(t, "start", rec.Reason)
	require.Equal(t, scale, rec.Scale)
	for i, label := range []string{"A001", "A002"} {
		want := before.Cards[i]
		require.Equal(t, label, want.Name)
		// The offload shows the plan dit plan printed: the same rate, and
		// the ETA of the plan it records (in field units, with its scale,
		// and in the units of the run: the cards' files cost this
		// machine's seconds at any scale).
		pc := planned(rec, label)
		require.Equal(t, want.LimitedBy, pc.LimitedBy)
		require.InEpsilon(t, want.Rate, pc.Rate*scale, 1e-9, label)
		require.NotNil(t, pc.ETASeconds)
		var run jsonPlan
		require.NoError(t, json.Unmarshal([]byte(rec.RunDetail), &run), "the plan in the run's units is recorded")
		require.NotNil(t, run.Cards[i].ETA)
		runETA := *run.Cards[i].ETA
		require.GreaterOrEqual(t, *pc.ETASeconds, runETA*scale-1e-9, "%s: in field units its bytes' part is scale times the run's, its files' the same", label)
		require.InEpsilon(t, *want.ETA, runETA, 0.01, "%s: dit plan said %.2fs, the offload planned %.2fs", label, *want.ETA, runETA)
		offLine := cardLine(t, r.Stdout, label)
		require.Contains(t, offLine, units.FormatRate(want.Rate), offLine)
		require.Contains(t, cardLine(t, planText, label), units.FormatRate(want.Rate))
		require.Contains(t, offLine, " "+eta(&runETA)+" ", offLine)

		// It takes no less than planned: the card's first file started to
		// its last copied, against the planned time (the simulation cannot
		// beat its buckets). How close it lands is make bench's
		// (ditplanbench): a busy machine lags by any amount.
		files, err := sj.cat.Files(sj.cards[label])
		require.NoError(t, err)
		var from, to time.Time
		for _, f := range files {
			if !f.CopyStarted.IsZero() && (from.IsZero() || f.CopyStarted.Before(from)) {
				from = f.CopyStarted
			}
			if f.CopyFinished.After(to) {
				to = f.CopyFinished
			}
		}
		took := to.Sub(from).Seconds()
		ratio := took / runETA
		t.Logf("%s: planned %.2fs at %s, copied in %.2fs (x %.2f)", label, runETA, units.FormatRate(want.Rate), took, ratio)
		require.GreaterOrEqual(t, ratio, 0.75, "%s copied faster than its plan", label)
	}
	require.Contains(t, r.Stdout, "one card hashes at most 0.750 GB/s (md5 on one core)")
	require.Contains(t, r.Stdout, "Simulated:  at 0.04 x the field rates")
	require.Contains(t, r.Stdout, "simulated at 0.04 x the field rates: A001 "+units.FormatRate(before.Cards[0].Rate))
}

// eta is an ETA in seconds as dit plan and dit offload print it
// (units.FormatDuration; "-" when there is none).
func eta(s *float64) string {
	if s == nil {
		return "-"
	}
	return units.FormatDuration(time.Duration(*s * float64(time.Second)))
}

// A cascade whose second run uploads: dit plan says when the upload
// finishes, on the uplink the topology gives (two 11 GB cards free at
// 20 s, uploaded one after the other at 100 MB/s: done at 4m0s).
func TestPlanSaysWhenTheUploadFinishes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	topo := e2e.WriteFile(t, filepath.Join(dir, "cart.yaml"), `
upload_rate: 100MB/s
sources:
  - {name: A001, media: cfast2, size: 11GB}
  - {name: A002, media: cfast2, size: 11GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: b2, path: "rclone:b2:show/day1", run: 2}
cpu: {cores: 8, hash_rates: {md5: 0.7GB/s, xxh64: 8GB/s}}
`)
	r := e2e.Dit(t, db, "plan", "--topology", topo, "--then-parallel", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, want := range []string{"Upload:     to b2 finishes in 4m00s (uplink 0.100 GB/s)",
		"A002  20s        4m00s           0.100 GB/s    the uplink", "the cloud's checksum"} {
		require.Contains(t, r.Stdout, want)
	}

	r = e2e.Dit(t, db, "plan", "--topology", topo, "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res struct {
		Uploads []struct {
			Destination string   `json:"destination"`
			Finish      *float64 `json:"finish_s"`
		} `json:"uploads"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Len(t, res.Uploads, 1)
	require.Equal(t, "b2", res.Uploads[0].Destination)
	require.NotNil(t, res.Uploads[0].Finish)

	// Without the uplink no time is made up; --upload-rate gives it.
	bare := e2e.WriteFile(t, filepath.Join(dir, "bare.yaml"), strings.Replace(readFile(t, topo), "upload_rate: 100MB/s\n", "", 1))
	r = e2e.Dit(t, db, "plan", "--topology", bare, "--then-parallel", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "Upload:     to b2: the uplink is unknown: give --upload-rate")
	require.NotContains(t, r.Stdout, "safe to format in")
	r = e2e.Dit(t, db, "plan", "--topology", bare, "--then-parallel", "1", "--upload-rate", "0.1GB/s")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "Upload:     to b2 finishes in 4m00s (uplink 0.100 GB/s)")
	r = e2e.Dit(t, db, "plan", "--topology", bare, "--upload-rate", "fast")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `--upload-rate "fast"`)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}
