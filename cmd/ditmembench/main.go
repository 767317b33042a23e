//go:build unix

// Command ditmembench is the memory-against-file-count benchmark behind
// `make bench`: it makes a card of N tiny files (clip folders of 1,000
// frames of 512 bytes, made once under -dir and reused) and runs the
// real dit binary on it, each command a child process, recording its
// peak RSS (the child's rusage: wait4's Maxrss) and its CPU (user +
// system): dit offload of the card to a folder with xxh64 (ASC MHL
// sealed), then dit verify of the job, dit mhl verify of the copy's
// history and dit report of the job in each format, then in every
// format into a folder (dit report JOB --out DIR); then the ASC
// reference tool (ascmhl verify, -reference) verifies the history dit
// wrote, when it is installed. N is 10,000 and
// 100,000 (-files), and 1,000,000 with -million (long on 2 cores). It
// prints a table and, for each command, the ratio of its peak RSS at the
// largest N to that at the smallest: memory flat in the files is a ratio
// near 1.
//
// -heap FILE takes a heap profile (pprof) of an offload of -heap-files
// files run in this process (internal/assembly, as dit offload runs it),
// written whenever the live heap reaches a new high (after a GC): what
// holds memory per file at the peak. Read it with go tool pprof -sample_
// index=inuse_space -top FILE.seal; -cpu FILE adds a CPU profile of it.
// -one-folder puts the card's frames all in one folder (the seal holds
// its widest folder). The seal alone is measured by BenchmarkSealHeap
// (internal/seal): the offload's seal phase also holds the read-back's
// plan.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary to measure")
	dir := flag.String("dir", defaultDir(), "work folder: the cards (kept, reused), the destination and catalogs (made anew); default a tmpfs (/dev/shm) where there is one, so the disk is not measured")
	files := flag.String("files", "10000,100000", "file counts of the cards measured, comma-separated")
	million := flag.Bool("million", false, "also a card of 1,000,000 files (long: ~10 minutes of CPU on 2 cores)")
	hash := flag.String("hash", "xxh64", "dit offload --hash")
	only := flag.String("only", "", "measure only the commands whose name contains this")
	heap := flag.String("heap", "", "write a heap profile of an in-process offload of -heap-files files to this file (and measure nothing else)")
	heapFiles := flag.Int("heap-files", 100000, "files of the card of -heap")
	oneFolder := flag.Bool("one-folder", false, "with -heap: the card's frames all in one folder (not clip folders of 1,000): the seal holds its widest folder")
	cpu := flag.String("cpu", "", "with -heap: also write a CPU profile of the in-process offload to this file")
	referenceMax := flag.Int("reference-max", 100000, "the reference tool verifies cards of at most this many files (its verify is quadratic: 100,000 files took 10 minutes of CPU on 2 cores)")
	reference := flag.String("reference", ".cache/ascmhl-venv/bin/ascmhl-debug", "the ASC reference tool (ascmhl-debug, as the e2e tests install it): it verifies each card's history, files and directory hashes, after dit's commands (skipped, saying so, when it is not there)")
	runs := flag.Bool("runs", true, "also a resume of the card's job interrupted half done, and a cascade (--then)")
	flag.Parse()
	if clipsMain() || mhlMain(*dit, *dir) {
		return
	}
	if *heap != "" {
		if err := heapProfile(*dir, *heapFiles, *oneFolder, *hash, *heap, *cpu); err != nil {
			fmt.Fprintln(os.Stderr, "ditmembench:", err)
			os.Exit(1)
		}
		return
	}
	var ns []int
	for _, f := range strings.Split(*files, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "ditmembench: -files: %q is not a file count\n", f)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	if *million {
		ns = append(ns, 1000000)
	}
	sort.Ints(ns)
	fmt.Printf("ditmembench: %s, %d CPUs, %s, cards of %d-byte files in %s\n", time.Now().Format("2006-01-02"),
		runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, frameSize, *dir)
	var all []result
	for _, n := range ns {
		ref := *reference
		if n > *referenceMax {
			ref = ""
		}
		rs, err := benchCard(*dit, *dir, n, *hash, *only, ref)
		all = append(all, rs...)
		if err == nil && *runs {
			rs, err = benchRuns(*dit, *dir, n, *hash, *only)
			all = append(all, rs...)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "ditmembench:", err)
			os.Exit(1)
		}
	}
	ratios(all, ns)
}

// defaultDir is /dev/shm/ditmembench on Linux (a tmpfs: what is measured
// is dit, not a disk), else ditmembench in the temporary folder.
func defaultDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm/ditmembench"
	}
	return filepath.Join(os.TempDir(), "ditmembench")
}

// result is one command measured on a card of n files.
type result struct {
	name  string
	n     int
	rssKB int64
	cpu   time.Duration // user + system
	wall  time.Duration
}

// run runs dit (or another tool) with args in dir and measures it.
func run(dit, dir string, args ...string) (result, error) {
	cmd := exec.Command(dit, args...)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &limited{&out}, &limited{&out}
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = maxrssKB(ru)
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s", filepath.Base(dit), strings.Join(args, " "), err, out.String())
	}
	return r, nil
}

// limited keeps the first 64 KiB written to it (a command's output, for
// its error).
type limited struct{ b *strings.Builder }

func (l *limited) Write(p []byte) (int, error) {
	if room := 64<<10 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// benchCard measures every command on a card of n files: a new catalog
// and destination, the card made or reused.
func benchCard(dit, dir string, n int, hash, only, reference string) ([]result, error) {
	card, err := makeCard(dir, n, framesPerClip)
	if err != nil {
		return nil, fmt.Errorf("making the card of %d files: %w", n, err)
	}
	work := filepath.Join(dir, fmt.Sprintf("run-%d", n))
	if err := os.RemoveAll(work); err != nil {
		return nil, err
	}
	dest := filepath.Join(work, "dest")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	dit, _ = filepath.Abs(dit)
	db := filepath.Join(work, "catalog.db")
	cmds := [][]string{
		{"offload", "--hash", hash, "--name", "Mem", "-d", dest, card},
		{"verify", "1"},
		{"mhl", "verify", filepath.Join(dest, "Mem", "A001")},
	}
	reports, err := reportCommands(work)
	if err != nil {
		return nil, err
	}
	cmds = append(cmds, reports...)
	fmt.Printf("\n%-30s %9s %11s %9s %13s %9s\n", "command", "files", "peak RSS", "CPU", "CPU per file", "wall")
	var rs []result
	for i, c := range cmds {
		var name string
		switch c[0] {
		case "report":
			name = reportName(c)
		case "offload":
			name = "dit offload"
		case "verify":
			name = "dit verify"
		case "mhl":
			name = "dit mhl verify"
		}
		if i > 0 && only != "" && !strings.Contains(name, only) {
			continue // the offload always runs: the others need its job
		}
		args := c
		if c[0] != "mhl" { // dit mhl reads the folder's history, no catalog
			args = append(args, "--db", db)
		}
		r, err := run(dit, work, args...)
		if err != nil {
			return rs, err
		}
		r.name, r.n = name, n
		rs = append(rs, r)
		printResult(r)
	}
	if reference == "" || (only != "" && !strings.Contains("ascmhl verify", only)) {
		return rs, nil
	}
	// The history dit wrote, verified by the ASC reference tool: every
	// file hashed again and checked against the manifest.
	if _, err := os.Stat(reference); err != nil {
		fmt.Printf("%-30s %9d  not run: %s is not there (go test ./cmd/dit/e2e/mhl/ installs it)\n", "ascmhl verify (reference)", n, reference)
		return rs, nil
	}
	ref, _ := filepath.Abs(reference)
	for _, args := range [][]string{{"verify"}, {"verify", "-dh"}} {
		r, err := run(ref, work, append(args, filepath.Join(dest, "Mem", "A001"))...)
		if err != nil {
			return rs, err
		}
		r.name, r.n = "ascmhl "+strings.Join(args, " ")+" (reference)", n
		printResult(r)
		rs = append(rs, r)
	}
	return rs, nil
}

func printResult(r result) {
	fmt.Printf("%-30s %9d %7.1f MiB %8.2fs %10.3f ms %8.2fs\n", r.name, r.n, float64(r.rssKB)/1024, r.cpu.Seconds(),
		r.cpu.Seconds()*1000/float64(r.n), r.wall.Seconds())
}

// ratios prints, for each command, its peak RSS and CPU at the largest
// file count over those at the smallest.
func ratios(all []result, ns []int) {
	if len(ns) < 2 {
		return
	}
	lo, hi := ns[0], ns[len(ns)-1]
	fmt.Printf("\n%-30s %22s %22s\n", "command", fmt.Sprintf("peak RSS %d/%d", hi, lo), fmt.Sprintf("CPU/file %d/%d", hi, lo))
	by := map[string]map[int]result{}
	var names []string
	for _, r := range all {
		if by[r.name] == nil {
			by[r.name] = map[int]result{}
			names = append(names, r.name)
		}
		by[r.name][r.n] = r
	}
	for _, name := range names {
		a, okA := by[name][lo]
		b, okB := by[name][hi]
		if !okA || !okB || a.rssKB == 0 || a.cpu == 0 {
			continue
		}
		perA, perB := a.cpu.Seconds()/float64(lo), b.cpu.Seconds()/float64(hi)
		fmt.Printf("%-30s %22.2f %22.2f\n", name, float64(b.rssKB)/float64(a.rssKB), perB/perA)
	}
}

// maxrssKB is a child's peak RSS in KiB (Linux counts in KiB, macOS in
// bytes).
func maxrssKB(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
