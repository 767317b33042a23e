//go:build unix

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// -mhl measures dit mhl verify alone, without an offload first (a card
// of a million frames offloads in a quarter of an hour on 2 cores): on
// each card of N frames (makeCard's, made once and reused), dit mhl
// create writes a history into the card's folder, then dit mhl verify
// reads it and checks every file; the history is removed after, so the
// card is reused as it was. dit mhl verify --directory-hashes (the
// folders' and the root's hashes checked too) is measured after. Each is a child process, its peak RSS and
// CPU printed as the other commands' are.
var mhlBench = flag.String("mhl", "", "measure only dit mhl create and dit mhl verify, of a history written into cards of these file counts, comma-separated (e.g. 10000,100000,1000000)")

// mhlMain runs -mhl when it is given; it reports whether it did.
func mhlMain(dit, dir string) bool {
	if *mhlBench == "" {
		return false
	}
	if err := benchMHL(dit, dir, *mhlBench); err != nil {
		fmt.Fprintln(os.Stderr, "ditmembench:", err)
		os.Exit(1)
	}
	return true
}

func benchMHL(dit, dir, list string) error {
	dit, _ = filepath.Abs(dit)
	fmt.Printf("ditmembench -mhl: %s, %d CPUs, %s, cards of %d-byte files in %s\n", time.Now().Format("2006-01-02"),
		runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, frameSize, dir)
	fmt.Printf("\n%-30s %9s %11s %9s %13s %9s\n", "command", "files", "peak RSS", "CPU", "CPU per file", "wall")
	var all []result
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-mhl: %q is not a file count", f)
		}
		ns = append(ns, n)
		card, err := makeCard(dir, n, framesPerClip)
		if err != nil {
			return fmt.Errorf("making the card of %d files: %w", n, err)
		}
		hist := filepath.Join(card, "ascmhl")
		if err := os.RemoveAll(hist); err != nil {
			return err
		}
		for _, c := range [][]string{{"mhl", "create", card}, {"mhl", "verify", card}, {"mhl", "verify", "--directory-hashes", card}} {
			r, err := run(dit, dir, c...)
			if err != nil {
				os.RemoveAll(hist)
				return err
			}
			r.name, r.n = "dit mhl "+c[1], n
			if len(c) > 3 {
				r.name += " -dh"
			}
			printResult(r)
			all = append(all, r)
		}
		if err := os.RemoveAll(hist); err != nil {
			return err
		}
	}
	ratios(all, ns)
	return nil
}
