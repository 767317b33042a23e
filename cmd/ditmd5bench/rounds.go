package main

import (
	"fmt"
	"path/filepath"
	"time"
)

// tool is one thing timed: run returns its processes' CPU time. prep,
// if set, runs before each run, outside the time (clearing what the
// round before left: a copy's 1 GiB freed on tmpfs is not the job's).
type tool struct {
	name string
	run  func() (time.Duration, error)
	prep func() error
}

// times are a round's figures of each tool, by name: wall and CPU
// seconds.
type times struct{ wall, cpu map[string][]float64 }

// measure runs the tools one after another, rounds times over (after a
// round that warms up): rounds interleaved.
func measure(rounds int, tools []tool) times { return measureBy(time.Now, rounds, tools) }

// measureBy is measure on the clock now: each tool's wall time is its
// run's alone, its prep not counted.
func measureBy(now func() time.Time, rounds int, tools []tool) times {
	t := times{wall: map[string][]float64{}, cpu: map[string][]float64{}}
	for r := 0; r <= rounds; r++ { // round 0 warms up
		for _, tl := range tools {
			if tl.prep != nil {
				must(tl.prep())
			}
			start := now()
			c, err := tl.run()
			must(err)
			if r > 0 {
				t.wall[tl.name] = append(t.wall[tl.name], now().Sub(start).Seconds())
				t.cpu[tl.name] = append(t.cpu[tl.name], c.Seconds())
			}
		}
	}
	return t
}

// report prints each tool's medians, against md5sum's (the median of
// the rounds' ratios), and its CPU seconds per GB of the 4 cards.
func (t times) report(tools []tool) {
	for _, tl := range tools {
		fmt.Printf("%-28s %6.2f s  (%.2f of md5sum, median of rounds' ratios)  CPU %5.2f s (%.2f CPU-s/GB)\n", tl.name, med(t.wall[tl.name]), t.ratio(tl.name, "md5sum"),
			med(t.cpu[tl.name]), med(t.cpu[tl.name])/(float64(4*32*8<<20)/1e9))
	}
}

// ratio is the median of the rounds' ratios of a's wall time to b's.
func (t times) ratio(a, b string) float64 { return ratioOf(t.wall, a, b) }

// ratioOf is the median of the rounds' ratios of a's figure to b's.
func ratioOf(m map[string][]float64, a, b string) float64 {
	var rr []float64
	for i := range m[a] {
		rr = append(rr, m[a][i]/m[b][i])
	}
	return med(rr)
}

// md5sum hashes each folder's files (a glob each) with md5sum, one
// process a folder at once.
func md5sum(globs []string) tool {
	return tool{name: "md5sum", run: func() (time.Duration, error) {
		var cmds [][]string
		for _, g := range globs {
			files, _ := filepath.Glob(g)
			cmds = append(cmds, append([]string{"md5sum"}, files...))
		}
		return runAll(cmds)
	}}
}

// clipGlobs are the cards' clips, a glob a card.
func clipGlobs(cards []string) []string {
	var globs []string
	for _, c := range cards {
		globs = append(globs, filepath.Join(c, "CLIPS", "*"))
	}
	return globs
}

// cpuRatio is the median of the rounds' ratios of a's CPU time to b's.
func (t times) cpuRatio(a, b string) float64 { return ratioOf(t.cpu, a, b) }
