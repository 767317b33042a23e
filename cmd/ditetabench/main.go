// Command ditetabench measures the live model's estimates for `make
// bench`: it runs dit offload --json at a fixed --throttle on generated
// cards (small files then clips; clips then small files; two cards at
// once; a cascade), reads every progress event's estimate of the time to
// safe to format (the job's, progress.job.eta.safe_s) and compares it with
// the time that was really left when the event came. It prints the
// error curve: the median and worst absolute error, in percent of the
// time left, in each tenth of the job.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type scenario struct {
	name  string
	cards [][]int64 // each card's file sizes, in order
	then  bool
}

func mixed(small, large int, smallFirst bool) []int64 {
	var s, l []int64
	for range small {
		s = append(s, 10_000)
	}
	for range large {
		l = append(l, 40_000_000)
	}
	if smallFirst {
		return append(s, l...)
	}
	return append(l, s...)
}

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	throttle := flag.String("throttle", "20MB/s", "each card's read rate")
	keep := flag.Bool("keep", false, "keep the work folder")
	flag.Parse()
	scenarios := []scenario{
		{name: "3,000 small files, then 4 clips", cards: [][]int64{mixed(3000, 4, true)}},
		{name: "4 clips, then 3,000 small files", cards: [][]int64{mixed(3000, 4, false)}},
		{name: "two cards at once", cards: [][]int64{mixed(1500, 3, true), mixed(1500, 3, false)}},
		{name: "a cascade (--then)", cards: [][]int64{mixed(1000, 3, true)}, then: true},
	}
	fmt.Printf("ETA to safe to format, |estimate - real time left| / real time left, by tenth of the job (--throttle %s)\n", *throttle)
	fmt.Printf("%-34s %6s  %s\n", "scenario", "job s", "median% (worst%) at 10% 20% ... 90% of the job")
	for _, s := range scenarios {
		work, err := os.MkdirTemp("", "ditetabench-")
		if err != nil {
			fail(err)
		}
		total, curve, err := runOne(*dit, work, *throttle, s)
		if !*keep {
			os.RemoveAll(work)
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", s.name, err))
		}
		fmt.Printf("%-34s %6.1f  %s\n", s.name, total, strings.Join(curve, " "))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ditetabench:", err)
	os.Exit(1)
}

// runOne makes the scenario's cards, offloads them and returns the job's
// time and its error curve.
func runOne(dit, work, throttle string, s scenario) (float64, []string, error) {
	var cards []string
	for i, files := range s.cards {
		card := filepath.Join(work, fmt.Sprintf("A%03d", i+1))
		for k, size := range files {
			// A card is read in name order: one folder, the files named
			// in the scenario's order of small files and clips.
			sub := filepath.Join(card, "DCIM")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return 0, nil, err
			}
			b := make([]byte, size)
			for j := range b {
				b[j] = byte(j*31 + k)
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("F%05d.bin", k)), b, 0o644); err != nil {
				return 0, nil, err
			}
		}
		cards = append(cards, card)
	}
	args := []string{"offload", "--json", "--throttle", throttle, "--hash", "xxh64", "-d", filepath.Join(work, "d1"), "-d", filepath.Join(work, "d2")}
	if s.then {
		args = append(args, "--then", filepath.Join(work, "d3"))
	}
	for _, d := range []string{"d1", "d2", "d3"} {
		os.MkdirAll(filepath.Join(work, d), 0o755)
	}
	cmd := exec.Command(dit, append(args, cards...)...)
	cmd.Env = append(os.Environ(), "DIT_DB="+filepath.Join(work, "dit.db"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	type seen struct {
		at  time.Time
		eta *float64
	}
	var etas []seen
	var start, end time.Time
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		now := time.Now()
		var ev struct {
			Type     string `json:"type"`
			Progress *struct {
				Job struct {
					ETA struct {
						Safe *float64 `json:"safe_s"`
					} `json:"eta"`
				} `json:"job"`
			} `json:"progress"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "job_started":
			start = now
		case "progress":
			etas = append(etas, seen{now, ev.Progress.Job.ETA.Safe})
		case "safe_to_format":
			end = now
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, nil, fmt.Errorf("dit offload: %w", err)
	}
	if start.IsZero() || end.IsZero() {
		return 0, nil, fmt.Errorf("no start or no safe_to_format event")
	}
	total := end.Sub(start).Seconds()
	bins := make([][]float64, 10)
	for _, e := range etas {
		into := e.at.Sub(start).Seconds() / total
		left := end.Sub(e.at).Seconds()
		if into < 0.1 || into >= 1 || left <= 0 {
			continue
		}
		b := int(into * 10)
		if e.eta == nil {
			bins[b] = append(bins[b], math.Inf(1))
			continue
		}
		bins[b] = append(bins[b], math.Abs(*e.eta-left)/left*100)
	}
	var curve []string
	for _, b := range bins[1:] {
		if len(b) == 0 {
			curve = append(curve, "-")
			continue
		}
		slices.Sort(b)
		curve = append(curve, fmt.Sprintf("%.0f(%.0f)", b[len(b)/2], b[len(b)-1]))
	}
	return total, curve, nil
}
