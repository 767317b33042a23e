// Command ditmd5bench measures the process's MD5 service (internal/
// hashing/lanes) against crypto/md5 with 1, 2, 4, 8 and 16 streams hashing
// at once, and, given two dit binaries and md5sum, a 4-card offload
// (md5+xxh64, read back) before and after against md5sum of the same
// files (one process per card at once): medians of interleaved rounds
// (wall time, and CPU time: user + system of the processes), with the
// CPU's model and vector flags.
//
//	ditmd5bench [-rounds 5] [-stream 256MiB] [-dit bin/dit -before /tmp/dit-main] [-dir /dev/shm/ditmd5bench]
//
// -mhl measures dit mhl create --hash md5 and dit mhl verify of the
// same 4 cards instead (one dit process per card at once, as md5sum).
// -verify measures dit verify of the 4 cards' job instead (offloaded
// once; the fastest hash and --verify-hashes all) against md5sum of the
// copies.
package main

import (
	"bufio"
	"crypto/md5"
	"flag"
	"fmt"
	"hash"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/hashing/lanes"
	"github.com/dit-org/dit/internal/units"
)

func main() {
	rounds := flag.Int("rounds", 5, "interleaved rounds; medians are reported")
	stream := flag.String("stream", "256MiB", "bytes hashed by each stream in a round")
	dit := flag.String("dit", "", "dit binary with the lanes (the 4-card job is skipped if empty)")
	before := flag.String("before", "", "dit binary without them, for the before/after figure")
	dir := flag.String("dir", "/dev/shm/ditmd5bench", "work folder for the 4-card job (tmpfs keeps disks out)")
	mhl := flag.Bool("mhl", false, "instead of the offload: dit mhl create --hash md5 and dit mhl verify of each card, one process per card at once, against md5sum")
	verify := flag.Bool("verify", false, "instead of the offload: dit verify of the 4 cards' job (offloaded once with -dit), against md5sum of the copies")
	bareMode := flag.String("bare", "", "run as the bare work's process (read or mmap; bare.go): -dir is its destination, the arguments its cards")
	withBare := flag.Bool("with-bare", true, "time the job's bare work too (read(2) and mmap) beside dit")
	flag.Parse()
	if *bareMode != "" {
		bare(*bareMode, *dir, flag.Args())
		return
	}
	n, err := units.ParseBytes(*stream)
	must(err)
	fmt.Printf("%s, %s, %d CPUs (GOMAXPROCS %d), %s\n", cpuModel(), lanes.Describe(), runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format("2006-01-02"))
	fmt.Printf("vector flags: %s\n", cpuFlags())
	if *mhl {
		mhlCards(*rounds, *dit, *before, *dir)
		return
	}
	if *verify {
		verifyCards(*rounds, *dit, *before, *dir)
		return
	}
	streams(*rounds, int(n))
	if *dit != "" {
		cards(*rounds, *dit, *before, *dir, *withBare)
	}
}

// streams hashes k streams of n bytes at once (k goroutines, 1 MiB
// writes), through the lanes and through crypto/md5, rounds alternating:
// up to 16, the widest kernel's lanes.
func streams(rounds, n int) {
	buf := make([][]byte, 16)
	for i := range buf {
		buf[i] = make([]byte, 1<<20)
		for j := range buf[i] {
			buf[i][j] = byte(j*7 + j>>11 + i)
		}
	}
	run := func(k int, mk func() hash.Hash) float64 {
		var wg sync.WaitGroup
		start := time.Now()
		for i := range k {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := mk()
				for done := 0; done < n; done += len(buf[i]) {
					h.Write(buf[i])
				}
				h.Sum(nil)
			}()
		}
		wg.Wait()
		return float64(k*n) / time.Since(start).Seconds()
	}
	fmt.Printf("\nstreams  crypto/md5 GB/s  lanes GB/s  lanes/crypto (median of rounds' ratios)\n")
	for _, k := range []int{1, 2, 4, 8, 16} {
		var std, ln, ratio []float64
		for r := 0; r < rounds; r++ {
			a := run(k, md5.New)
			b := run(k, lanes.New)
			std, ln, ratio = append(std, a), append(ln, b), append(ratio, b/a)
		}
		fmt.Printf("%7d  %15.2f  %10.2f  %.2f\n", k, med(std)/1e9, med(ln)/1e9, med(ratio))
	}
}

// cards offloads 4 cards x 32 clips x 8 MiB with each dit binary and
// hashes them with md5sum (one process per card at once).
func cards(rounds int, dit, before, dir string, withBare bool) {
	cs := makeCards(dir)
	dest, db := filepath.Join(dir, "dest"), filepath.Join(dir, "c.db")
	// The round before's copies and catalog go before the clock starts.
	clearRound := func() error {
		if err := os.RemoveAll(dest); err != nil {
			return err
		}
		for _, f := range []string{db, db + "-wal", db + "-shm"} {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return os.MkdirAll(dest, 0o755)
	}
	offload := func(name, bin string) tool {
		args := append([]string{bin, "offload", "--db", db, "--hash", "md5,xxh64", "--verify", "dest", "-d", dest}, cs...)
		return tool{name: name, prep: clearRound, run: func() (time.Duration, error) { return runAll([][]string{args}) }}
	}
	tools := []tool{md5sum(clipGlobs(cs)), offload("dit", dit)}
	if before != "" {
		tools = append(tools, offload("dit before", before))
	}
	if withBare {
		bd := filepath.Join(dir, "bare")
		tools = append(tools, bareTool("read", bd, cs), bareTool("mmap", bd, cs))
	}
	t := measure(rounds, tools)
	fmt.Printf("\n4 cards x 32 clips x 8 MiB (1 GiB), md5+xxh64, read back, to tmpfs; md5sum: one process per card at once\n")
	t.report(tools)
	if before != "" {
		fmt.Printf("dit after/before: %.2f (median of rounds' ratios)\n", t.ratio("dit", "dit before"))
	}
	if withBare {
		fmt.Printf("dit / its bare work (read): %.2f wall, %.2f CPU (medians of rounds' ratios): what dit adds to the work itself\n",
			t.ratio("dit", "bare work (read)"), t.cpuRatio("dit", "bare work (read)"))
	}
	os.RemoveAll(dir)
}

// makeCards makes 4 cards x 32 clips x 8 MiB under dir (made anew).
func makeCards(dir string) []string {
	must(os.RemoveAll(dir))
	var cs []string
	for c := range 4 {
		card := filepath.Join(dir, fmt.Sprintf("A%03d", c+1), "CLIPS")
		must(os.MkdirAll(card, 0o755))
		b := make([]byte, 8<<20)
		for f := range 32 {
			for j := range b {
				b[j] = byte(j*13 + f*7 + c + j>>9)
			}
			must(os.WriteFile(filepath.Join(card, fmt.Sprintf("C%03d.mov", f)), b, 0o644))
		}
		cs = append(cs, filepath.Dir(card))
	}
	return cs
}

// runAll runs the commands at once and returns their CPU time (user +
// system, summed).
func runAll(cmds [][]string) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	cpu := make([]time.Duration, len(cmds))
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(c[0], c[1:]...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w: %s", c[0], err, lastLine(out))
			}
			if ps := cmd.ProcessState; ps != nil {
				cpu[i] = ps.UserTime() + ps.SystemTime()
			}
		}()
	}
	wg.Wait()
	var sum time.Duration
	for i, err := range errs {
		if err != nil {
			return 0, err
		}
		sum += cpu[i]
	}
	return sum, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func med(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func cpuinfo(key string) string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func cpuModel() string {
	if m := cpuinfo("model name"); m != "" {
		return m
	}
	return runtime.GOARCH
}

// cpuFlags are the CPU's SIMD flags (/proc/cpuinfo).
func cpuFlags() string {
	var out []string
	for _, f := range strings.Fields(cpuinfo("flags")) {
		if strings.HasPrefix(f, "avx") || strings.HasPrefix(f, "sse4") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "(none listed)"
	}
	return strings.Join(out, " ")
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ditmd5bench:", err)
		os.Exit(1)
	}
}
