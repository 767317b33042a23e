package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// mhlCards times dit mhl create --hash md5 and then dit mhl verify of the
// 4 cards (one process per card at once) with each binary, against
// md5sum of the same files (one process per card at once): rounds
// interleaved, medians of wall and CPU time.
func mhlCards(rounds int, dit, before, dir string) {
	if dit == "" {
		must(fmt.Errorf("-mhl needs -dit"))
	}
	cs := makeCards(dir)
	defer os.RemoveAll(dir)
	each := func(args ...string) [][]string {
		var cmds [][]string
		for _, c := range cs {
			cmds = append(cmds, append(append([]string(nil), args...), c))
		}
		return cmds
	}
	md5sum := func() (time.Duration, error) {
		var cmds [][]string
		for _, c := range cs {
			files, _ := filepath.Glob(filepath.Join(c, "CLIPS", "*"))
			cmds = append(cmds, append([]string{"md5sum"}, files...))
		}
		return runAll(cmds)
	}
	type tool struct {
		name string
		run  func() (time.Duration, error)
	}
	tools := []tool{{"md5sum", md5sum}}
	bins := [][2]string{{"dit", dit}}
	if before != "" {
		bins = append(bins, [2]string{"dit before", before})
	}
	for _, b := range bins {
		tools = append(tools, tool{b[0] + " mhl create", func() (time.Duration, error) {
			for _, c := range cs {
				if err := os.RemoveAll(filepath.Join(c, "ascmhl")); err != nil {
					return 0, err
				}
			}
			return runAll(each(b[1], "mhl", "create", "--hash", "md5"))
		}}, tool{b[0] + " mhl verify", func() (time.Duration, error) {
			return runAll(each(b[1], "mhl", "verify"))
		}})
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
	fmt.Printf("\n4 cards x 32 clips x 8 MiB (1 GiB), md5, in %s; one process per card at once\n", dir)
	for _, t := range tools {
		var rr []float64
		for i := range wall[t.name] {
			rr = append(rr, wall[t.name][i]/wall["md5sum"][i])
		}
		fmt.Printf("%-18s %6.2f s  (%.2f of md5sum, median of rounds' ratios)  CPU %5.2f s (%.2f CPU-s/GB)\n", t.name, med(wall[t.name]), med(rr),
			med(cpu[t.name]), med(cpu[t.name])/(float64(4*32*8<<20)/1e9))
	}
}
