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
	tools := []tool{md5sum(clipGlobs(cs))}
	bins := [][2]string{{"dit", dit}}
	if before != "" {
		bins = append(bins, [2]string{"dit before", before})
	}
	for _, b := range bins {
		tools = append(tools, tool{name: b[0] + " mhl create", prep: func() error {
			for _, c := range cs {
				if err := os.RemoveAll(filepath.Join(c, "ascmhl")); err != nil {
					return err
				}
			}
			return nil
		}, run: func() (time.Duration, error) {
			return runAll(each(b[1], "mhl", "create", "--hash", "md5"))
		}}, tool{name: b[0] + " mhl verify", run: func() (time.Duration, error) {
			return runAll(each(b[1], "mhl", "verify"))
		}})
	}
	t := measure(rounds, tools)
	fmt.Printf("\n4 cards x 32 clips x 8 MiB (1 GiB), md5, in %s; one process per card at once\n", dir)
	t.report(tools)
}
