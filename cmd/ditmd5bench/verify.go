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
	var globs []string
	for c := range cs {
		g := filepath.Join(dest, "*", fmt.Sprintf("A%03d", c+1), "CLIPS", "*") // the job's folder, then the card's
		if files, _ := filepath.Glob(g); len(files) != 32 {
			must(fmt.Errorf("%d copies at %s, 32 expected", len(files), g))
		}
		globs = append(globs, g)
	}
	tools := []tool{md5sum(globs)}
	bins := [][2]string{{"dit", dit}}
	if before != "" {
		bins = append(bins, [2]string{"dit before", before})
	}
	for _, h := range []string{"fastest", "all"} {
		for _, b := range bins {
			tools = append(tools, tool{name: fmt.Sprintf("%s verify (%s)", b[0], h), run: func() (time.Duration, error) {
				return runAll([][]string{{b[1], "verify", "--db", db, "--verify-hashes", h, "1"}})
			}})
		}
	}
	t := measure(rounds, tools)
	fmt.Printf("\ndit verify of a 4-card job (32 clips x 8 MiB each, 1 GiB, md5+xxh64 recorded) in %s: fastest (xxh64) or all (md5+xxh64); md5sum of the copies, one process per card at once\n", dir)
	t.report(tools)
	if before != "" {
		for _, h := range []string{"fastest", "all"} {
			fmt.Printf("dit verify (%s) after/before: %.2f (median of rounds' ratios)\n", h, t.ratio(fmt.Sprintf("dit verify (%s)", h), fmt.Sprintf("dit before verify (%s)", h)))
		}
	}
}
