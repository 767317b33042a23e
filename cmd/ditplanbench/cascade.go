package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The reference job as a cascade: two CFast 2.0 cards on readers of their
// own into a 2.2 GB/s array (a real 4-blade dit RAID 4), then from the
// array to two 0.5 GB/s shuttles; against the same job without a cascade
// (card to array and both shuttles at once), and against the plan.
const cascadeTopology = `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-b}
destinations:
  - {name: raid, path: %s, bus: tb-1, write_rate: 2.2GB/s, read_rate: 2.6GB/s, blades: 4, raid: 4}
  - {name: s1, path: %s, write_rate: 0.5GB/s, read_rate: 0.5GB/s}
  - {name: s2, path: %s, write_rate: 0.5GB/s, read_rate: 0.5GB/s}
`

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func cascadeBench(dit string, scale float64, size string, runs int) error {
	dir, err := os.MkdirTemp(tempBase(), "ditcascade-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cards := filepath.Join(dir, "cards")
	if out, err := exec.Command(dit, "testdata", "cards", "--out", cards, "--cards", "2", "--size", size, "--style", "mixed", "--seed", "12").CombinedOutput(); err != nil {
		return fmt.Errorf("generating cards: %v: %s", err, out)
	}
	fmt.Printf("\nCascade: two %s cfast2 cards to a 2.2 GB/s 4-blade RAID 4, then two 0.5 GB/s shuttles; simulated at %g x field rates (seconds as run: the field times of %g x larger cards), medians of %d runs\n", size, scale, 1/scale, runs)
	var planFree, planSafe float64
	var casFree, casSafe, flatDone []float64
	for i := 0; i < runs; i++ {
		for _, cascade := range []bool{true, false} {
			work := filepath.Join(dir, fmt.Sprintf("run%d-%v", i, cascade))
			var blades []string
			for b := 1; b <= 4; b++ {
				bl := filepath.Join(work, fmt.Sprintf("blade%d", b))
				if err := os.MkdirAll(bl, 0o755); err != nil {
					return err
				}
				blades = append(blades, bl)
			}
			s1, s2 := filepath.Join(work, "s1"), filepath.Join(work, "s2")
			os.MkdirAll(s1, 0o755)
			os.MkdirAll(s2, 0o755)
			db := filepath.Join(work, "cat.db")
			if out, err := exec.Command(dit, append([]string{"array", "create", "--level", "4"}, blades...)...).CombinedOutput(); err != nil {
				return fmt.Errorf("array create: %v: %s", err, out)
			}
			topo := filepath.Join(work, "set.yaml")
			if err := os.WriteFile(topo, []byte(fmt.Sprintf(cascadeTopology, blades[0], s1, s2)), 0o644); err != nil {
				return err
			}
			args := []string{"--db", db, "--json", "--topology", topo, "--simulate", "--simulate-scale", fmt.Sprint(scale), "-d", blades[0]}
			if cascade {
				args = append(args, "--then", s1, "--then", s2)
			} else {
				args = append(args, "-d", s1, "-d", s2)
			}
			args = append(args, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
			if cascade && i == 0 {
				out, err := exec.Command(dit, append([]string{"plan"}, args...)...).Output()
				if err != nil {
					return fmt.Errorf("plan: %v", err)
				}
				var p struct {
					Cascade struct {
						LastFree   *float64 `json:"last_card_free_s"`
						LastSafe   *float64 `json:"last_safe_to_format_s"`
						Bottleneck string   `json:"bottleneck"`
					} `json:"cascade"`
				}
				if err := json.Unmarshal(out, &p); err != nil || p.Cascade.LastFree == nil {
					return fmt.Errorf("plan: no cascade times (%v)", err)
				}
				planFree, planSafe = *p.Cascade.LastFree, *p.Cascade.LastSafe
				fmt.Printf("plan: both cards free after %.1f s, safe to format after %.1f s; %s\n", planFree, planSafe, p.Cascade.Bottleneck)
			}
			out, err := exec.Command(dit, append([]string{"offload"}, args...)...).Output()
			if err != nil {
				return fmt.Errorf("offload (cascade %v): %v: %s", cascade, err, tail(string(out)))
			}
			if cascade {
				// The job's own plan against what it did (dit job show).
				pr, err := showPlanRun(nil, dit, db, 1)
				if err != nil {
					return err
				}
				printPlanRun(fmt.Sprintf("run %d", i+1), pr)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			var s struct {
				Cards []struct {
					Started  time.Time `json:"copy_started"`
					FreeAt   time.Time `json:"card_free_at"`
					SafeAt   time.Time `json:"safe_to_format_at"`
					Verified time.Time `json:"verify_finished"`
				} `json:"cards"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
				return err
			}
			start := s.Cards[0].Started
			for _, c := range s.Cards {
				if c.Started.Before(start) {
					start = c.Started
				}
			}
			var lastFree, lastSafe float64
			for _, c := range s.Cards {
				lastFree = max(lastFree, c.FreeAt.Sub(start).Seconds())
				lastSafe = max(lastSafe, c.SafeAt.Sub(start).Seconds())
			}
			if cascade {
				casFree, casSafe = append(casFree, lastFree), append(casSafe, lastSafe)
				fmt.Printf("run %d cascade: both cards free after %.1f s, safe to format after %.1f s\n", i+1, lastFree, lastSafe)
			} else {
				flatDone = append(flatDone, lastSafe)
				fmt.Printf("run %d one run to all three: both cards free (and safe) after %.1f s\n", i+1, lastSafe)
			}
			os.RemoveAll(work)
		}
	}
	f, sf, flat := median(casFree), median(casSafe), median(flatDone)
	fmt.Printf("Cascade: both cards free after %.1f s (plan %.1f s, ran/plan %.2f), safe to format after %.1f s (plan %.1f s, ran/plan %.2f); target within 10 %% of the plan: %s\n",
		f, planFree, f/planFree, sf, planSafe, sf/planSafe, check(abs(f/planFree-1) <= 0.10 && abs(sf/planSafe-1) <= 0.10))
	fmt.Printf("Without a cascade the cards stay in the readers %.1f s: the cascade frees them %.1fx sooner (%.0f%% of the time), and every copy is done %.1f s %s\n",
		flat, flat/f, 100*f/flat, abs(sf-flat), map[bool]string{true: "later", false: "sooner"}[sf > flat])
	return nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func check(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
