// Command ditplanbench measures the planner's accuracy for `make bench`:
// it runs a simulated 4-card job with dit (three CFast 2.0 cards sharing
// one 10 Gbit/s bus, an AXS card on a 5 Gbit/s bus of its own, into a
// Thunderbolt 3 NVMe array), reads the plan, every re-plan and the
// per-second throughput samples from the job's catalog, and compares each
// card's achieved copy rate with its planned rate, plan segment by plan
// segment (from a plan to the next re-plan). It prints every comparison
// and the worst ratio.
//
// It runs the job twice: "enforced" (dit offload --simulate: the
// scheduler holds each card to its planned share) and "physics only"
// (--simulate-physics-only: media and buses are throttled, but the cards
// share buses however the token buckets let them), which tells whether
// max-min fairness predicts what shared hardware does.
//
// Then a cascade (cascade.go), and plan against run (planrun.go): the
// reference job of make demo, a card of 3,000 small files, and an upload
// to a local S3 server, each in rounds in one catalog (the first planned
// with the destinations' default per-file and fixed costs, the next with
// those the rounds before taught dit), each round's plan set against what
// it did by dit job show (per card and for the job: copied, card free,
// safe to format; planned, ran, ratio), with a target of the job safe to
// format within 10 % of its plan.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
)

const topology = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.0}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-a}
  - {name: A003, media: cfast2, bus: usb-a}
  - {name: A004, media: axs, bus: usb-b}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
`

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	scale := flag.Float64("scale", 0.05, "simulation scale (fraction of the field rates)")
	size := flag.String("size", "120MB", "footage per card")
	keep := flag.Bool("keep", false, "keep the work folder")
	cascadeOnly := flag.Bool("cascade-only", false, "only the cascade benchmark")
	cascadeSize := flag.String("cascade-size", "250MB", "footage per card in the cascade benchmark")
	runs := flag.Int("runs", 3, "runs of the cascade benchmark (medians)")
	planRunOnly := flag.Bool("plan-run-only", false, "only the plan-against-run benchmarks")
	refSize := flag.String("ref-size", "2GB", "footage per card of the reference job (make demo's DEMO_SIZE)")
	only := flag.String("only", "", "with -plan-run-only: only this job (reference, small, cloud)")
	rounds := flag.Int("rounds", 2, "rounds of each plan-against-run job (the first with default costs, the next with learned ones)")
	cloud := flag.Bool("cloud", true, "plan against run of an upload to a local S3 server (needs rclone; installs moto once into .cache)")
	cloudFiles := flag.Bool("cloud-files", false, "the upload of a card of 3,000 small files too")
	flag.Parse()
	fail := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "ditplanbench: %s: %v\n", what, err)
		os.Exit(1)
	}
	if !*cascadeOnly && !*planRunOnly {
		if err := run(*dit, *scale, *size, *keep); err != nil {
			fail("rates", err)
		}
	}
	if !*planRunOnly {
		if err := cascadeBench(*dit, 0.1, *cascadeSize, *runs); err != nil {
			fail("cascade", err)
		}
	}
	if *cascadeOnly {
		return
	}
	// The reference job's array and shuttle are larger than /dev/shm
	// may hold: on disk.
	want := func(name string) bool { return *only == "" || *only == name }
	if want("reference") {
		if err := referenceBench(*dit, "", 0.1, *refSize, *rounds); err != nil {
			fail("reference job", err)
		}
	}
	if want("small") {
		if err := smallBench(*dit, tempBase(), *rounds); err != nil {
			fail("small files", err)
		}
	}
	if *cloud && want("cloud") {
		if err := cloudBench(*dit, tempBase(), *rounds, false); err != nil {
			fail("upload to S3", err)
		}
		if *cloudFiles {
			if err := cloudBench(*dit, tempBase(), *rounds, true); err != nil {
				fail("upload of small files to S3", err)
			}
		}
	}
}

func tempBase() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return ""
}

func run(dit string, scale float64, size string, keep bool) error {
	dir, err := os.MkdirTemp(tempBase(), "ditplanbench-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	cards := filepath.Join(dir, "cards")
	if out, err := exec.Command(dit, "testdata", "cards", "--out", cards, "--cards", "4", "--size", size, "--seed", "11").CombinedOutput(); err != nil {
		return fmt.Errorf("generating cards: %v: %s", err, out)
	}
	topo := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(topo, []byte(topology), 0o644); err != nil {
		return err
	}
	fmt.Printf("Planner accuracy: simulated 4-card job at %g x field rates, %s per card (3 x cfast2 on one usb3.2-gen2 bus, 1 x axs on usb3.0, into an nvme-raid-tb3 on tb3)\n", scale, size)
	worst := 1.0
	for _, mode := range []string{"enforced", "physics only"} {
		w, err := runMode(dit, dir, cards, topo, scale, mode)
		if err != nil {
			return err
		}
		if math.Abs(w-1) > math.Abs(worst-1) {
			worst = w
		}
	}
	fmt.Printf("\nWorst achieved/planned ratio: %.3f\n", worst)
	return nil
}

func runMode(dit, dir, cards, topo string, scale float64, mode string) (float64, error) {
	tag := strings.ReplaceAll(mode, " ", "-")
	dest := filepath.Join(dir, tag, "raid")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return 0, err
	}
	db := filepath.Join(dir, tag+".db")
	args := []string{"offload", "--db", db, "--json", "--topology", topo, "--simulate", "--simulate-scale", fmt.Sprint(scale),
		"--hash", "xxh64", "--block-size", "256KiB", "--mhl", "none", "-d", dest}
	if mode == "physics only" {
		args = append(args, "--simulate-physics-only")
	}
	for _, c := range []string{"A001", "A002", "A003", "A004"} {
		args = append(args, filepath.Join(cards, c))
	}
	start := time.Now()
	out, err := exec.Command(dit, args...).CombinedOutput()
	if err != nil && strings.Contains(string(out), "unknown flag: --mhl") {
		// A dit without ASC MHL writing: the same job without the flag.
		for i, a := range args {
			if a == "--mhl" {
				args = append(args[:i], args[i+2:]...)
				break
			}
		}
		start = time.Now()
		out, err = exec.Command(dit, args...).CombinedOutput()
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %v: %s", mode, err, tail(string(out)))
	}
	took := time.Since(start)
	cat, err := catalog.Open(db)
	if err != nil {
		return 0, err
	}
	defer cat.Close()
	jobs, err := cat.Jobs()
	if err != nil || len(jobs) != 1 {
		return 0, fmt.Errorf("%s: expected one job in %s (%v)", mode, db, err)
	}
	job := jobs[0].ID
	plans, err := cat.Plans(job)
	if err != nil {
		return 0, err
	}
	samples, err := cat.Samples(job)
	if err != nil {
		return 0, err
	}
	ks, err := cat.Cards(job)
	if err != nil {
		return 0, err
	}
	ids := map[string]int64{}
	for _, k := range ks {
		ids[k.Label] = k.ID
	}
	fmt.Printf("\n%s (%s, %d plans):\n", mode, took.Round(100*time.Millisecond), len(plans))
	fmt.Printf("  %-5s %-22s %-14s %-12s %-12s %s\n", "CARD", "PLAN", "LIMITED BY", "PLANNED", "ACHIEVED", "RATIO")
	worst := 1.0
	for pi, p := range plans {
		for _, c := range p.Cards {
			from := p.T.Add(500 * time.Millisecond)
			end := lastRise(samples, ids[c.Name])
			to := end.Add(-500 * time.Millisecond)
			if pi+1 < len(plans) && plans[pi+1].T.Before(to) {
				to = plans[pi+1].T.Add(-500 * time.Millisecond)
			}
			got, ok := achieved(samples, ids[c.Name], from, to)
			if !ok {
				continue // too short a segment to measure
			}
			got /= scale
			ratio := got / c.Rate
			if math.Abs(ratio-1) > math.Abs(worst-1) {
				worst = ratio
			}
			fmt.Printf("  %-5s #%d %-19s %-14s %-12s %-12s %.3f\n", c.Name, p.Seq, trim(p.Reason, 19), c.LimitedBy,
				fmt.Sprintf("%.3f GB/s", c.Rate/1e9), fmt.Sprintf("%.3f GB/s", got/1e9), ratio)
		}
	}
	fmt.Printf("  worst ratio %.3f\n", worst)
	return worst, nil
}

// lastRise is when the card's read-side byte count last grew.
func lastRise(samples []catalog.Sample, card int64) time.Time {
	var top int64 = -1
	var t time.Time
	for _, s := range samples {
		if s.CardID == card && s.DestID == 0 && s.Phase == "copy" && s.Bytes > top {
			top, t = s.Bytes, s.T
		}
	}
	return t
}

// achieved is the card's copy rate between the first sample at or after
// from and the last at or before to (at least 1.5 s apart).
func achieved(samples []catalog.Sample, card int64, from, to time.Time) (float64, bool) {
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
	if a == nil || b == nil || b.T.Sub(a.T) < 1500*time.Millisecond {
		return 0, false
	}
	return float64(b.Bytes-a.Bytes) / b.T.Sub(a.T).Seconds(), true
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n")
}
