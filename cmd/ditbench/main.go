//go:build unix

// Command ditbench is the whole-process benchmark behind `make bench`: it
// offloads two generated cards to two destination folders with dit and, in
// the same run, does the same job the naive way (cp -r to each destination,
// then md5sum of the sources and both copies) and with the peer tool ocopy
// (one process per card, --hash-algorithm md5, two destinations), and the
// job's bare work (ditbench -bare: the same reads, hashes, writes and
// read-backs with nothing else, the floor of the job here). It prints the
// median wall time, CPU time and peak RSS of each, the ratios against
// dit's targets (as ratios of medians and as medians of the rounds'
// ratios), and dit's single-stream MD5 speed against md5sum's.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

type measure struct {
	wall, cpu time.Duration
	sys       time.Duration // the kernel's share of cpu
	rssKB     int64
}

func run(name string, args ...string) (measure, error) {
	return runAll([][]string{append([]string{name}, args...)})
}

// runAll starts the commands at once and measures them as one job: wall
// until the last ends, CPU summed, peak RSS the largest.
func runAll(cmds [][]string) (measure, error) { return runAllQuiet(cmds, false) }

// runAllQuiet is runAll with the commands' stderr discarded when quiet.
func runAllQuiet(cmds [][]string, quiet bool) (measure, error) {
	start := time.Now()
	var mu sync.Mutex
	var m measure
	var firstErr error
	var wg sync.WaitGroup
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = nil, os.Stderr
		if quiet {
			cmd.Stderr = nil
		}
		if err := cmd.Start(); err != nil {
			return m, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
			}
			m.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			m.sys += time.Duration(ru.Stime.Nano())
			m.rssKB = max(m.rssKB, ru.Maxrss)
		}()
	}
	wg.Wait()
	m.wall = time.Since(start)
	return m, firstErr
}

func median(ms []measure) measure {
	pick := func(f func(measure) float64) float64 {
		v := make([]float64, len(ms))
		for i, m := range ms {
			v[i] = f(m)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	return measure{
		wall:  time.Duration(pick(func(m measure) float64 { return float64(m.wall) })),
		cpu:   time.Duration(pick(func(m measure) float64 { return float64(m.cpu) })),
		sys:   time.Duration(pick(func(m measure) float64 { return float64(m.sys) })),
		rssKB: int64(pick(func(m measure) float64 { return float64(m.rssKB) })),
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ditbench:", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-bare" {
		bareMain(os.Args[2:])
		return
	}
	dit := flag.String("dit", "bin/dit", "dit binary")
	ocopy := flag.String("ocopy", "", "ocopy binary (skipped if empty or missing)")
	dir := flag.String("dir", "/dev/shm/ditbench", "work folder (tmpfs keeps the disk out of the measurement)")
	size := flag.String("size", "1GiB", "footage per card")
	runs := flag.Int("runs", 3, "runs of each tool; medians are reported")
	raidOnly := flag.Bool("raid-only", false, "only the array benchmarks")
	framesOnly := flag.Bool("frames-only", false, "only the frames-on-ext4 benchmark")
	refOnly := flag.Bool("ref-only", false, "only the reference job (dit, bare, naive, ocopy)")
	framesSize := flag.String("frames-size", "3GB", "footage per card in the frames-on-ext4 benchmark (3 GB: about 10,000 frames)")
	flag.Parse()
	ditAbs, err := filepath.Abs(*dit)
	must(err)
	must(os.RemoveAll(*dir))
	must(os.MkdirAll(*dir, 0o755))
	defer os.RemoveAll(*dir)
	cards := filepath.Join(*dir, "cards")
	_, err = run(ditAbs, "testdata", "cards", "--out", cards, "--cards", "2", "--size", *size, "--seed", "42")
	must(err)
	bn := &bench{dit: ditAbs, ocopy: *ocopy, dir: *dir, size: *size, runs: *runs,
		a: filepath.Join(cards, "A001"), b: filepath.Join(cards, "A002"),
		d1: filepath.Join(*dir, "d1"), d2: filepath.Join(*dir, "d2")}
	if *framesOnly {
		framesBench(ditAbs, *ocopy, *dir, *framesSize)
		return
	}
	if *raidOnly {
		raidBench(ditAbs, *dir, bn.a, bn.b, *size, *runs)
		return
	}
	tools := bn.referenceTools()
	results := bn.referenceJob(tools)
	d := bn.printReference(tools, results)
	if *refOnly {
		return
	}
	bn.md5Stream(d)
	fmt.Println()
	raidBench(ditAbs, *dir, bn.a, bn.b, *size, *runs)
	framesBench(ditAbs, *ocopy, *dir, *framesSize)
}

// bench is the reference job's setting: the dit binary, ocopy (if any),
// the work folder, the two cards a and b and the two destinations.
type bench struct {
	dit, ocopy, dir, size string
	runs                  int
	a, b, d1, d2          string
}

// reset empties both destinations.
func (bn *bench) reset() {
	must(os.RemoveAll(bn.d1))
	must(os.RemoveAll(bn.d2))
	must(os.Mkdir(bn.d1, 0o755))
	must(os.Mkdir(bn.d2, 0o755))
}

// tool is one way of doing the reference job; do runs round i (-1: the
// warm-up).
type tool struct {
	name string
	do   func(i int) (measure, error)
}

// referenceTools are dit, the bare work, the naive way and, when it is
// there, ocopy.
func (bn *bench) referenceTools() []tool {
	a, b, d1, d2 := bn.a, bn.b, bn.d1, bn.d2
	tools := []tool{
		{"dit", func(i int) (measure, error) {
			db := filepath.Join(bn.dir, fmt.Sprintf("bench-%d.db", i+1))
			// The reference job as a DIT runs it: default hash lists (an ASC
			// MHL history per card and destination) and reports, like ocopy
			// with its default ASC MHL.
			return run(bn.dit, "offload", "--db", db, "--hash", "md5,xxh64", "--verify", "dest", "-d", d1, "-d", d2, a, b)
		}},
		{"bare", func(int) (measure, error) {
			self, err := os.Executable()
			if err != nil {
				return measure{}, err
			}
			return run(self, "-bare", a, b, "--", d1, d2)
		}},
		{"naive", func(int) (measure, error) {
			script := fmt.Sprintf(`set -e; cp -r %[1]q %[2]q %[3]q; cp -r %[1]q %[2]q %[4]q; find %[1]q %[2]q %[3]q %[4]q -type f -exec md5sum {} + > /dev/null`, a, b, d1, d2)
			return run("sh", "-c", script)
		}},
	}
	if bn.ocopy == "" {
		return tools
	}
	if _, err := os.Stat(bn.ocopy); err != nil {
		fmt.Printf("ocopy not found at %s: skipped\n", bn.ocopy)
		return tools
	}
	return append(tools, tool{"ocopy", func(int) (measure, error) {
		// ocopy prints warnings about sleep inhibitors on Linux: quiet.
		return runAllQuiet([][]string{
			{bn.ocopy, "--hash-algorithm", "md5", "--machine-readable", a, d1, d2},
			{bn.ocopy, "--hash-algorithm", "md5", "--machine-readable", b, d1, d2},
		}, true)
	}})
}

// referenceJob runs each tool once to warm up, then bn.runs rounds of
// all of them, and returns each tool's measures by name.
func (bn *bench) referenceJob(tools []tool) map[string][]measure {
	results := map[string][]measure{}
	// One discarded warm-up round: the first writes to fresh tmpfs memory
	// of a VM are much slower than later ones, for every tool alike.
	for _, tl := range tools {
		bn.reset()
		_, err := tl.do(-1)
		must(err)
	}
	// The order of the tools rotates from round to round, so that no tool
	// always inherits the memory state the same other tool leaves behind.
	for i := 0; i < bn.runs; i++ {
		for k := range tools {
			tl := tools[(i+k)%len(tools)]
			bn.reset()
			m, err := tl.do(i)
			must(err)
			results[tl.name] = append(results[tl.name], m)
			fmt.Printf("run %d %-6s wall %6.2fs  cpu %6.2fs (kernel %5.2fs)  rss %4d MiB\n", i+1, tl.name, m.wall.Seconds(), m.cpu.Seconds(), m.sys.Seconds(), m.rssKB/1024)
		}
	}
	return results
}

// printReference prints the reference job's medians and ratios against
// dit's targets, and returns dit's medians.
func (bn *bench) printReference(tools []tool, results map[string][]measure) measure {
	fmt.Printf("\nTwo %s cards to two destinations, MD5 + xxh64, read-back verify; medians of %d runs (%s)\n", bn.size, bn.runs, bn.dir)
	fmt.Printf("%-8s %9s %9s %9s %10s\n", "tool", "wall s", "cpu s", "kernel s", "peak RSS")
	med := map[string]measure{}
	for _, tl := range tools {
		m := median(results[tl.name])
		med[tl.name] = m
		fmt.Printf("%-8s %9.2f %9.2f %9.2f %6d MiB\n", tl.name, m.wall.Seconds(), m.cpu.Seconds(), m.sys.Seconds(), m.rssKB/1024)
	}
	d := med["dit"]
	rn := d.wall.Seconds() / med["naive"].wall.Seconds()
	fmt.Printf("\ndit wall / naive wall = %.2f (target <= 0.30: %s)\n", rn, check(rn <= 0.30))
	paired := func(x, y string) float64 { return roundRatio(results[x], results[y]) }
	rb := d.wall.Seconds() / med["bare"].wall.Seconds()
	fmt.Printf("dit wall / bare wall = %.2f (median of the rounds' ratios %.2f): what dit adds to the job's bare work (catalog, temp files and renames, fsyncs, comparisons, hash lists, reports)\n", rb, paired("dit", "bare"))
	if o, ok := med["ocopy"]; ok {
		ro := d.wall.Seconds() / o.wall.Seconds()
		fmt.Printf("reference job, dit wall / ocopy wall = %.2f (median of the rounds' ratios %.2f; issue 13 target <= 0.35: %s)\n", ro, paired("dit", "ocopy"), check(ro <= 0.35))
		fmt.Printf("the bare work / ocopy wall = %.2f: the least any tool doing this job this way takes here, against ocopy\n", med["bare"].wall.Seconds()/o.wall.Seconds())
	}
	return d
}

// md5Stream measures dit's single-stream MD5 against md5sum on the
// largest file of card a, the same stream through the offload pipeline,
// and dit's CPU (d: the reference job's medians) against the job's
// CPU-work limit.
func (bn *bench) md5Stream(d measure) {
	a := bn.a
	// Single-stream MD5: dit's hashing engine against md5sum on one file.
	var big string
	filepath.Walk(a, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && (big == "" || fi.Size() > mustSize(big)) {
			big = p
		}
		return nil
	})
	var md5sum, ditmd5 []measure
	for i := 0; i < bn.runs; i++ {
		m, err := run("md5sum", big)
		must(err)
		md5sum = append(md5sum, m)
		m, err = run(bn.dit, "hash", "--hash", "md5", big)
		must(err)
		ditmd5 = append(ditmd5, m)
	}
	// The same stream through the whole offload pipeline: one card, MD5
	// only, one destination, no read-back (so MD5 is the only hash).
	var pipe []measure
	var cardBytes int64
	filepath.Walk(a, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			cardBytes += fi.Size()
		}
		return nil
	})
	for i := 0; i < bn.runs; i++ {
		bn.reset()
		db := filepath.Join(bn.dir, fmt.Sprintf("pipe-%d.db", i))
		m, err := run(bn.dit, "offload", "--db", db, "--hash", "md5", "--verify", "none", "--mhl", "none", "-d", bn.d1, a)
		must(err)
		pipe = append(pipe, m)
	}
	fmt.Printf("dit peak RSS = %d MiB (target <= 300 MiB: %s)\n", d.rssKB/1024, check(d.rssKB <= 300*1024))
	sz := float64(mustSize(big))
	ms, dm := median(md5sum), median(ditmd5)
	// The job's CPU-work limit: MD5 of both cards at dit's own single-stream
	// speed, plus moving the bytes through the kernel at cp's cost per byte
	// (cp reads and writes each byte once; dit reads the cards, writes two
	// copies and reads both back: 2.5 times cp's traffic).
	var cps []measure
	for i := 0; i < bn.runs; i++ {
		bn.reset()
		m, err := run("cp", "-r", a, bn.b, bn.d1)
		must(err)
		cps = append(cps, m)
	}
	both := float64(cardBytes) * 2
	md5CPU := both / (sz / dm.cpu.Seconds())
	moveCPU := median(cps).cpu.Seconds() * 2.5
	limit := md5CPU + moveCPU
	fmt.Printf("dit CPU = %.2f s; the job's CPU-work limit = %.2f s (MD5 %.2f s + moving the bytes %.2f s): %.2f x (target <= 1.5: %s)\n",
		d.cpu.Seconds(), limit, md5CPU, moveCPU, d.cpu.Seconds()/limit, check(d.cpu.Seconds() <= 1.5*limit))
	r := ms.wall.Seconds() / dm.wall.Seconds()
	fmt.Printf("MD5 single stream: md5sum %.3f GB/s, dit %.3f GB/s = %.0f%% (target >= 90%%: %s)\n",
		sz/ms.wall.Seconds()/1e9, sz/dm.wall.Seconds()/1e9, 100*r, check(r >= 0.9))
	pm := median(pipe)
	pr := float64(cardBytes) / pm.wall.Seconds() / (sz / ms.wall.Seconds())
	fmt.Printf("MD5 card stream through the offload pipeline (one card, one destination, no read-back): %.3f GB/s = %.0f%% of md5sum (target >= 90%%: %s)\n",
		float64(cardBytes)/pm.wall.Seconds()/1e9, 100*pr, check(pr >= 0.9))
}

// roundRatio is the median of x's wall time over y's, round by round
// (each round runs both, one after the other: the machine's slow drifts
// cancel out of the ratio).
func roundRatio(x, y []measure) float64 {
	var v []float64
	for i := range min(len(x), len(y)) {
		v = append(v, x[i].wall.Seconds()/y[i].wall.Seconds())
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func check(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// raidBench: RAID 4 vs RAID 0 offload of the same two cards to 4 blades,
// peak RSS of a 4-card offload to the array, degraded vs healthy extract.
func raidBench(dit, dir, a, b, size string, runs int) {
	mkArray := func(level string) []string {
		root := filepath.Join(dir, "array-"+level)
		must(os.RemoveAll(root))
		var blades []string
		for i := 1; i <= 4; i++ {
			bl := filepath.Join(root, fmt.Sprintf("blade%d", i))
			must(os.MkdirAll(bl, 0o755))
			blades = append(blades, bl)
		}
		_, err := run(dit, append([]string{"array", "create", "--level", level}, blades...)...)
		must(err)
		return blades
	}
	offload := func(blades []string, cards ...string) (measure, error) {
		db := filepath.Join(dir, "raid-bench.db")
		os.Remove(db)
		return run(dit, append([]string{"offload", "--db", db, "--hash", "xxh64", "--name", "bench", "-d", blades[0]}, cards...)...)
	}
	var r0, r4 []measure
	for i := 0; i < runs+1; i++ {
		// The order alternates from round to round, as the reference
		// job's rotates: neither level always follows the other.
		order := []string{"0", "4"}
		if i%2 == 1 {
			order = []string{"4", "0"}
		}
		for _, level := range order {
			blades := mkArray(level)
			m, err := offload(blades, a, b)
			must(err)
			if i == 0 {
				continue // warm-up
			}
			if level == "0" {
				r0 = append(r0, m)
			} else {
				r4 = append(r4, m)
			}
			fmt.Printf("run %d raid%s  wall %6.2fs  cpu %6.2fs  rss %4d MiB\n", i, level, m.wall.Seconds(), m.cpu.Seconds(), m.rssKB/1024)
		}
	}
	m0, m4 := median(r0), median(r4)
	ratio := m4.wall.Seconds() / m0.wall.Seconds()
	fmt.Printf("Array: two %s cards, xxh64, read-back verify, 4 blades in %s; medians of %d runs\n", size, dir, runs)
	fmt.Printf("RAID 0 wall %.2fs (cpu %.2fs), RAID 4 wall %.2fs (cpu %.2fs): RAID 4 / RAID 0 = %.2f, median of the rounds' ratios %.2f (target <= 1.10: %s)\n",
		m0.wall.Seconds(), m0.cpu.Seconds(), m4.wall.Seconds(), m4.cpu.Seconds(), ratio, roundRatio(r4, r0), check(ratio <= 1.10))

	// Four cards at once to the array: peak RSS.
	cards4 := filepath.Join(dir, "cards4")
	os.RemoveAll(cards4)
	_, err := run(dit, "testdata", "cards", "--out", cards4, "--cards", "4", "--size", "500MB", "--seed", "9", "--style", "mixed")
	must(err)
	blades := mkArray("4")
	var four []string
	for _, l := range []string{"A001", "A002", "A003", "A004"} {
		four = append(four, filepath.Join(cards4, l))
	}
	m, err := offload(blades, four...)
	must(err)
	fmt.Printf("4 cards (mixed clips and frames) to the RAID 4 array: wall %.2fs, peak RSS %d MiB (target <= 300 MiB: %s)\n",
		m.wall.Seconds(), m.rssKB/1024, check(m.rssKB <= 300*1024))
	os.RemoveAll(cards4)

	// Extract healthy, then with a data blade missing.
	var healthy, degraded []measure
	for i := 0; i < runs; i++ {
		out := filepath.Join(dir, "extract")
		os.RemoveAll(out)
		m, err := run(dit, "array", "extract", blades[0], "--to", out)
		must(err)
		healthy = append(healthy, m)
		os.RemoveAll(out)
		must(os.Rename(blades[1], blades[1]+"-away"))
		m, err = run(dit, "array", "extract", blades[0], "--to", out)
		must(os.Rename(blades[1]+"-away", blades[1]))
		must(err)
		degraded = append(degraded, m)
		os.RemoveAll(out)
	}
	h, d := median(healthy), median(degraded)
	fmt.Printf("Extract of 2 GB from the RAID 4 array: healthy %.2fs, one data blade missing %.2fs: degraded / healthy = %.2f\n",
		h.wall.Seconds(), d.wall.Seconds(), d.wall.Seconds()/h.wall.Seconds())
}

func mustSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}
