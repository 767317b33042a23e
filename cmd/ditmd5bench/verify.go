package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// verifyCards offloads the 4 cards once (md5+xxh64, with dit) and then
// times dit verify of that job with each binary, with the fastest
// recorded hash (xxh64) and with --verify-hashes all (md5 and xxh64),
// against md5sum of the same copies (one process per card at once):
// rounds interleaved, medians of wall and CPU time.
func verifyCards(rounds int, dit, before, dir string) {
	if dit == "" {
		must(fmt.Errorf("-verify needs -dit"))
	}
	cs := makeCards(dir)
	defer os.RemoveAll(dir)
	db, dest := filepath.Join(dir, "c.db"), filepath.Join(dir, "dest")
	must(os.MkdirAll(dest, 0o755))
	_, err := runAll([][]string{append([]string{dit, "offload", "--db", db, "--hash", "md5,xxh64", "--verify", "dest", "-d", dest}, cs...)})
	must(err)
	// The cards are not read again: only the copies.
	for _, c := range cs {
		must(os.RemoveAll(c))
	}
	var copies [][]string
	for c := range cs {
		files, _ := filepath.Glob(filepath.Join(dest, "*", fmt.Sprintf("A%03d", c+1), "CLIPS", "*"))
		if len(files) == 0 {
			files, _ = filepath.Glob(filepath.Join(dest, fmt.Sprintf("A%03d", c+1), "CLIPS", "*"))
		}
		if len(files) != 32 {
			must(fmt.Errorf("card %d: %d copies found under %s, 32 expected", c+1, len(files), dest))
		}
		copies = append(copies, files)
	}
	type tool struct {
		name string
		run  func() (time.Duration, error)
	}
	tools := []tool{{"md5sum", func() (time.Duration, error) {
		var cmds [][]string
		for _, files := range copies {
			cmds = append(cmds, append([]string{"md5sum"}, files...))
		}
		return runAll(cmds)
	}}}
	bins := [][2]string{{"dit", dit}}
	if before != "" {
		bins = append(bins, [2]string{"dit before", before})
	}
	for _, h := range []string{"fastest", "all"} {
		for _, b := range bins {
			tools = append(tools, tool{fmt.Sprintf("%s verify (%s)", b[0], h), func() (time.Duration, error) {
				return runAll([][]string{{b[1], "verify", "--db", db, "--verify-hashes", h, "1"}})
			}})
		}
	}
	wall, cpu := map[string][]float64{}, map[string][]float64{}
	for r := 0; r <= rounds; r++ { // round 0 warms up
		for _, t := range tools {
			start := time.Now()
			c, err := t.run()
			must(err)
			if r > 0 {
				wall[t.name] = append(wall[t.name], time.Since(start).Seconds())
				cpu[t.name] = append(cpu[t.name], c.Seconds())
			}
		}
	}
	fmt.Printf("\ndit verify of a 4-card job (32 clips x 8 MiB each, 1 GiB, md5+xxh64 recorded) in %s: fastest (xxh64) or all (md5+xxh64); md5sum of the copies, one process per card at once\n", dir)
	for _, t := range tools {
		var rr []float64
		for i := range wall[t.name] {
			rr = append(rr, wall[t.name][i]/wall["md5sum"][i])
		}
		fmt.Printf("%-28s %6.2f s  (%.2f of md5sum, median of rounds' ratios)  CPU %5.2f s (%.2f CPU-s/GB)\n", t.name, med(wall[t.name]), med(rr),
			med(cpu[t.name]), med(cpu[t.name])/(float64(4*32*8<<20)/1e9))
	}
	if before != "" {
		for _, h := range []string{"fastest", "all"} {
			var rr []float64
			a, b := fmt.Sprintf("dit verify (%s)", h), fmt.Sprintf("dit before verify (%s)", h)
			for i := range wall[a] {
				rr = append(rr, wall[a][i]/wall[b][i])
			}
			fmt.Printf("dit verify (%s) after/before: %.2f (median of rounds' ratios)\n", h, med(rr))
		}
	}
}
