package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/speedtest"
)

// Plan against run: jobs run as dit runs them, with a bus budget, so
// each records its plan; `dit job show --json` sets the plan against
// what the job did (plan_vs_run: each card's and the job's time to
// copied, card free and safe to format, planned and as it ran, in the
// run's units). Each job runs in rounds in one catalog: the first
// plans with the destinations' default costs, the next with the costs
// the rounds before taught it (dit offload learns them at its end).

// referenceTopology is `make demo`'s set: two CFast readers on one
// 10 Gbit/s bus, the 4-blade RAID 4 array on Thunderbolt 3, a shuttle on
// a 20 Gbit/s bus. %s: the array's first blade and the shuttle.
const referenceTopology = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
  - {name: usb-b, kind: usb3.2-gen2x2}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-a}
destinations:
  - {name: blade1, path: %s, bus: tb-1, kind: nvme-raid4-tb3}
  - {name: shuttle, path: %s, bus: usb-b, kind: ssd-usb-20g}
`

// smallTopology: a card of thousands of small files read at 20 MB/s (the
// issue a bytes-only plan misses most) to two folders.
const smallTopology = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: S001, read_rate: 20MB/s, bus: usb-a}
destinations:
  - {name: d1, path: %s, bus: tb-1, write_rate: 1GB/s, read_rate: 1GB/s}
  - {name: d2, path: %s, bus: tb-1, write_rate: 1GB/s, read_rate: 1GB/s}
`

// cloudTopology: a card read at 100 MB/s to a folder, then uploaded to a
// local S3 server through rclone at 20 MB/s (--cloud-bwlimit, the
// topology's upload_rate).
const cloudTopology = `
upload_rate: 20MB/s
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, read_rate: 100MB/s, bus: usb-a}
destinations:
  - {name: raid, path: %s, bus: tb-1, write_rate: 1GB/s, read_rate: 1GB/s}
  - {name: s3, path: "rclone:bench:shots/dit", run: 2}
`

// pvr is one time, planned and as it ran.
type pvr struct {
	Planned *float64 `json:"planned_s"`
	Ran     *float64 `json:"ran_s"`
	Ratio   *float64 `json:"ratio"`
}

// planRun is dit job show's plan_vs_run.
type planRun struct {
	Scale float64 `json:"scale"`
	Cards []struct {
		Card   string `json:"card"`
		Copied pvr    `json:"copied"`
		Free   *pvr   `json:"card_free"`
		Safe   pvr    `json:"safe_to_format"`
	} `json:"cards"`
	Copied pvr `json:"copied"`
	Safe   pvr `json:"safe_to_format"`
}

// showPlanRun is job's plan against its run, from dit job show --json.
func showPlanRun(env []string, dit, db string, job int) (*planRun, error) {
	out, err := command(env, dit, "job", "show", "--db", db, fmt.Sprint(job), "--json")
	if err != nil {
		return nil, err
	}
	var j struct {
		PlanVsRun *planRun `json:"plan_vs_run"`
	}
	if err := json.Unmarshal(out, &j); err != nil || j.PlanVsRun == nil {
		return nil, fmt.Errorf("dit job show %d: no plan against run (%v)", job, err)
	}
	return j.PlanVsRun, nil
}

func command(env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, tail(string(ee.Stderr)))
	}
	return out, err
}

// cell is a time as the table prints it: planned, ran, ratio.
func cell(p pvr) string {
	if p.Planned == nil || p.Ran == nil || p.Ratio == nil {
		return fmt.Sprintf("%-26s", "-")
	}
	return fmt.Sprintf("%7.1f s %7.1f s %5.2f  ", *p.Planned, *p.Ran, *p.Ratio)
}

// printPlanRun prints a round's plan against its run, a line per card
// and the job's, and returns the job's safe-to-format ratio (0: none).
func printPlanRun(round string, pr *planRun) float64 {
	free := false
	for _, c := range pr.Cards {
		free = free || c.Free != nil
	}
	head := fmt.Sprintf("  %-8s %-5s %-26s", "ROUND", "CARD", "COPIED: PLAN, RAN, RATIO")
	if free {
		head += fmt.Sprintf("%-26s", "CARD FREE")
	}
	fmt.Println(head + "SAFE TO FORMAT")
	row := func(name string, cp pvr, fr *pvr, sf pvr) {
		line := fmt.Sprintf("  %-8s %-5s %s", round, name, cell(cp))
		if free {
			f := pvr{}
			if fr != nil {
				f = *fr
			}
			line += cell(f)
		}
		fmt.Println(line + cell(sf))
	}
	for _, c := range pr.Cards {
		row(c.Card, c.Copied, c.Free, c.Safe)
	}
	row("job", pr.Copied, nil, pr.Safe)
	if pr.Safe.Ratio == nil {
		return 0
	}
	return *pr.Safe.Ratio
}

// verdictLine says whether the rounds that planned with learned costs
// (all but the first) met the target: the job safe to format within 10 %
// of its plan.
func verdictLine(what string, ratios []float64) {
	if len(ratios) == 0 {
		return
	}
	first := ratios[0]
	fmt.Printf("%s: job safe to format ran/plan %.2f with default costs", what, first)
	if len(ratios) > 1 {
		var later []float64
		ok := true
		for _, r := range ratios[1:] {
			later = append(later, r)
			ok = ok && abs(r-1) <= 0.10
		}
		fmt.Printf(", %s with learned costs; target within 10 %%: %s", fmtRatios(later), check(ok))
	} else {
		fmt.Printf("; target within 10 %%: %s", check(abs(first-1) <= 0.10))
	}
	fmt.Println()
}

func fmtRatios(v []float64) string {
	var s []string
	for _, r := range v {
		s = append(s, fmt.Sprintf("%.2f", r))
	}
	return strings.Join(s, ", ")
}

// referenceBench runs `make demo`'s job (two cards of size to the array
// and the shuttle, simulated at scale) rounds times in one catalog.
func referenceBench(dit, base string, scale float64, size string, rounds int) error {
	dir, err := os.MkdirTemp(base, "ditplanref-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cards := filepath.Join(dir, "cards")
	if out, err := exec.Command(dit, "testdata", "cards", "--out", cards, "--cards", "2", "--size", size, "--seed", "1").CombinedOutput(); err != nil {
		return fmt.Errorf("generating cards: %v: %s", err, out)
	}
	var blades []string
	for b := 1; b <= 4; b++ {
		blades = append(blades, filepath.Join(dir, fmt.Sprintf("blade%d", b)))
		if err := os.MkdirAll(blades[b-1], 0o755); err != nil {
			return err
		}
	}
	shuttle := filepath.Join(dir, "shuttle")
	os.MkdirAll(shuttle, 0o755)
	db := filepath.Join(dir, "catalog.db")
	if out, err := exec.Command(dit, append([]string{"array", "create", "--level", "4", "--label", "demo-raid"}, blades...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("array create: %v: %s", err, out)
	}
	topo := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(topo, []byte(fmt.Sprintf(referenceTopology, blades[0], shuttle)), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nPlan against run: the reference job (make demo: two %s cards, cfast2 on one 10 Gbit/s bus, to a 4-blade dit RAID 4 and a shuttle; xxh64,md5; simulated at %g x field rates), %d rounds\n", size, scale, rounds)
	args := []string{"--topology", topo, "--simulate", "--simulate-scale", fmt.Sprint(scale), "--hash", "xxh64,md5",
		"-d", blades[0], "-d", shuttle, filepath.Join(cards, "A001"), filepath.Join(cards, "A002")}
	return rounds1(dit, db, args, rounds, "reference job", nil, blades[0], shuttle)
}

// rounds1 runs dit offload with args rounds times in catalog db (job
// names round1, round2, ...), prints each round's plan against run, the
// costs the last round taught dit of each of dests (folders, a blade,
// rclone:REMOTE:PATH) and the verdict.
func rounds1(dit, db string, args []string, rounds int, what string, env []string, dests ...string) error {
	var ratios []float64
	for i := 1; i <= rounds; i++ {
		a := append([]string{"offload", "--db", db, "--json", "--again", "--name", fmt.Sprintf("round%d", i)}, args...)
		if _, err := command(env, dit, a...); err != nil {
			return err
		}
		pr, err := showPlanRun(env, dit, db, i)
		if err != nil {
			return err
		}
		ratios = append(ratios, printPlanRun(fmt.Sprintf("round %d", i), pr))
	}
	if err := printLearned(db, dests); err != nil {
		return err
	}
	verdictLine(what, ratios)
	return nil
}

// printLearned prints what the last job taught dit of each destination
// (its row of the catalog's costs).
func printLearned(db string, dests []string) error {
	cat, err := catalog.Open(db)
	if err != nil {
		return err
	}
	defer cat.Close()
	opt := func(v *float64, scale float64, unit string) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f %s", *v*scale, unit)
	}
	for _, d := range dests {
		vol := speedtest.PathVolume(d)
		if rest, ok := strings.CutPrefix(d, "rclone:"); ok {
			remote, _, _ := strings.Cut(rest, ":")
			vol = "rclone:" + remote
		}
		rows, err := cat.RecentCosts(vol, 1)
		if err != nil || len(rows) == 0 {
			continue
		}
		r := rows[0]
		fmt.Printf("  learned (%s, %s, %d files): %s a file copied, %s read back; %s before the card, %s after it; %s\n", r.Kind,
			filepath.Base(d), r.Files, opt(r.PerFile, 1000, "ms"), opt(r.VerifyPerFile, 1000, "ms"), opt(r.Start, 1, "s"), opt(r.Fixed, 1, "s"), r.Detail)
	}
	return nil
}

// smallBench runs one card of 3,000 files of 4 kB and four clips of
// 40 MB, read at 20 MB/s (simulated), to two folders.
func smallBench(dit, base string, rounds int) error {
	dir, err := os.MkdirTemp(base, "ditplansmall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	card := filepath.Join(dir, "cards", "S001")
	if err := smallCard(card); err != nil {
		return err
	}
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	os.MkdirAll(d1, 0o755)
	os.MkdirAll(d2, 0o755)
	topo := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(topo, []byte(fmt.Sprintf(smallTopology, d1, d2)), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nPlan against run: one card of 3,000 files of 4 kB and four clips of 40 MB, read at 20 MB/s (simulated), to two folders, %d rounds\n", rounds)
	args := []string{"--topology", topo, "--simulate", "--hash", "xxh64", "-d", d1, "-d", d2, card}
	return rounds1(dit, filepath.Join(dir, "catalog.db"), args, rounds, "small files", nil, d1)
}

// smallCard writes the small-files card: deterministic bytes.
func smallCard(card string) error {
	for _, sub := range []string{"FRAMES", "CLIPS"} {
		if err := os.MkdirAll(filepath.Join(card, sub), 0o755); err != nil {
			return err
		}
	}
	block := func(seed string, n int) []byte {
		b := make([]byte, 0, n)
		for h := sha256.Sum256([]byte(seed)); len(b) < n; h = sha256.Sum256(h[:]) {
			b = append(b, h[:]...)
		}
		return b[:n]
	}
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(card, "FRAMES", fmt.Sprintf("F%05d.dng", i)), block(fmt.Sprint("f", i), 4000), 0o644); err != nil {
			return err
		}
	}
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(card, "CLIPS", fmt.Sprintf("C%03d.mov", i)), block(fmt.Sprint("c", i), 40_000_000), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// cloudBench runs a 145 MB card to a folder, then uploaded to a local S3
// server (moto, internal/cloud/s3test) at 20 MB/s: the card free, then
// safe once its upload is verified and its history is up.
func cloudBench(dit, base string, rounds int, small bool) error {
	if _, err := exec.LookPath("rclone"); err != nil {
		fmt.Println("\nPlan against run, upload to S3: skipped: rclone is not installed (Debian: apt-get install rclone)")
		return nil
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	bin, err := s3test.Install(root, func(f string, a ...any) { fmt.Printf(f+"\n", a...) })
	if err != nil {
		fmt.Println("\nPlan against run, upload to S3: skipped:", err)
		return nil
	}
	dir, err := os.MkdirTemp(base, "ditplancloud-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := s3test.StartServer(bin, dir, "bench", "shots")
	if err != nil {
		return err
	}
	defer s.Stop()
	env := append(os.Environ(), s.Env...)
	cards := filepath.Join(dir, "cards")
	what := "a 145 MB card"
	if small {
		what = "a card of 3,000 files of 4 kB and four clips of 40 MB"
		if err := smallCard(filepath.Join(cards, "A001")); err != nil {
			return err
		}
	} else if out, err := exec.Command(dit, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "145MB", "--seed", "7").CombinedOutput(); err != nil {
		return fmt.Errorf("generating the card: %v: %s", err, out)
	}
	raid := filepath.Join(dir, "raid")
	os.MkdirAll(raid, 0o755)
	topo := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(topo, []byte(fmt.Sprintf(cloudTopology, raid)), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nPlan against run: %s read at 100 MB/s (simulated) to a folder, then uploaded to a local S3 server (moto) through rclone at 20 MB/s (--cloud-bwlimit, upload_rate), %d rounds\n", what, rounds)
	args := []string{"--topology", topo, "--simulate", "--hash", "xxh64", "--cloud-bwlimit", "20MB/s",
		"-d", raid, "--then", "rclone:bench:shots/dit", filepath.Join(cards, "A001")}
	return rounds1(dit, filepath.Join(dir, "catalog.db"), args, rounds, "upload to S3", env, raid, "rclone:bench:shots/dit")
}
