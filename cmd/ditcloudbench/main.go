// Command ditcloudbench measures dit's upload to a cloud destination
// against `rclone copy --checksum` of the same card to the same S3 server,
// behind `make bench`. Each round, in turn (which goes first alternates),
// dit offloads the generated card straight to rclone:bench:shots/dit/N
// (streamed: read once, hashed and sent, every object verified by the
// storage's MD5) and rclone copies it to shots/rclone/N; each to a new
// prefix, so neither finds anything there. Both figures are the wall time
// of the command, from its start to its end (dit's includes its checks
// before the job, its catalog and its history seal). The server is rclone
// serve s3 (s3test: built once into .cache) on 127.0.0.1. dit runs with
// an rclone on PATH that counts its processes (a script that logs each
// run's subcommand and then runs the real rclone): their number per job
// is printed by subcommand. It prints each round and the medians, and
// the ratio of dit's throughput to rclone's as the median of the rounds'
// ratios.
//
// -resume measures a resume instead (resume.go): dit killed part-way
// through the card's upload, then dit offload --resume; the time from
// the resume's start to its first byte of footage at the server (seen by
// a timing proxy in front of it: proxy.go), beside rclone's own start.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/units"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	size := flag.String("size", "145MB", "the card's footage (dit testdata cards --size)")
	style := flag.String("style", "clips", "the card's style (dit testdata cards --style), or large: one file of -size")
	rounds := flag.Int("runs", 5, "rounds (the median is reported)")
	refArgs := flag.String("rclone-args", "", "more arguments of the reference rclone copy --checksum, space-separated (e.g. --s3-upload-cutoff 5G: single-part objects, as dit's)")
	resume := flag.Bool("resume", false, "measure a resume instead: dit killed part-way through the upload, then dit offload --resume; the time to its first byte at the server, and rclone's own start")
	bwlimit := flag.String("bwlimit", "", "with -resume: the job's --cloud-bwlimit, in bytes/s (default: the card sent in about 12 s; 0: none, the card streamed 4 files at once, the kill still at -kill-at)")
	killAt := flag.Float64("kill-at", 0.6, "with -resume: kill dit at the first progress event reporting this share of the card's bytes copied")
	timeline := flag.Bool("timeline", false, "with -resume: print each resume's rclone processes and the server's requests until its first byte")
	flag.Parse()
	log.SetFlags(0)
	real, err := exec.LookPath("rclone")
	if err != nil {
		log.Fatal("ditcloudbench: rclone is not installed (Debian: apt-get install rclone)")
	}
	root, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	bin, err := s3test.Install(root, log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ditcloudbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := s3test.StartServer(bin, dir, "bench", "shots")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	counted, procs := countingRclone(dir, real, env)
	card := filepath.Join(dir, "cards", "A001")
	if *style == "large" {
		largeCard(card, *size)
	} else {
		run(env, *dit, "testdata", "cards", "--out", filepath.Join(dir, "cards"), "--cards", "1", "--size", *size, "--style", *style)
	}
	bytes := cardBytes(card)
	if *resume {
		p, err := startProxy(s.URL)
		if err != nil {
			log.Fatal(err)
		}
		defer p.stop()
		b := bench{dit: *dit, real: real, card: card, bytes: bytes, env: onEndpoint(counted, s.URL, p.URL), procs: procs, proxy: p}
		resumeBench(b, *bwlimit, *killAt, *rounds, *timeline)
		return
	}
	copyBench(*dit, real, card, bytes, env, counted, procs, *rounds, *refArgs)
}

// copyBench runs the rounds of dit offload against rclone copy.
func copyBench(dit, real, card string, bytes int64, env, counted []string, procs string, rounds int, refArgs string) {
	var ditS, rcS, ratios []float64
	var counts string
	for i := 1; i <= rounds; i++ {
		name := fmt.Sprintf("round%d", i)
		ditRun := func() float64 {
			os.Remove(procs)
			t0 := time.Now()
			run(counted, dit, "offload", "--json", "--name", name, "-d", "rclone:bench:shots/dit", card)
			secs := time.Since(t0).Seconds()
			counts = processCounts(procs)
			return secs
		}
		rcloneRun := func() float64 {
			t0 := time.Now()
			run(env, real, append([]string{"copy", "--checksum", card, "bench:shots/rclone/" + name + "/A001"}, strings.Fields(refArgs)...)...)
			return time.Since(t0).Seconds()
		}
		var ds, rs float64
		if i%2 == 1 {
			ds, rs = ditRun(), rcloneRun()
		} else {
			rs, ds = rcloneRun(), ditRun()
		}
		ditS, rcS, ratios = append(ditS, ds), append(rcS, rs), append(ratios, rs/ds)
		fmt.Printf("round %d: %d bytes: dit offload %.2f s (%.1f MB/s), rclone copy --checksum %.2f s (%.1f MB/s), dit/rclone throughput %.2f; dit's rclone processes: %s\n",
			i, bytes, ds, float64(bytes)/ds/1e6, rs, float64(bytes)/rs/1e6, rs/ds, counts)
	}
	fmt.Printf("cloud upload, %d bytes, median of %d: dit %.2f s (%.1f MB/s), rclone copy --checksum %.2f s (%.1f MB/s); dit/rclone throughput %.2f (median of the rounds' ratios); rclone processes per dit job: %s\n",
		bytes, rounds, median(ditS), float64(bytes)/median(ditS)/1e6, median(rcS), float64(bytes)/median(rcS)/1e6, median(ratios), counts)
}

// onEndpoint is env with the remote's endpoint from (the server's) set
// to to (the timing proxy's).
func onEndpoint(env []string, from, to string) []string {
	out := append([]string(nil), env...)
	for i, kv := range out {
		if strings.HasSuffix(kv, "_ENDPOINT="+from) {
			out[i] = strings.TrimSuffix(kv, from) + to
		}
	}
	return out
}

// largeCard makes a card of one clip of size bytes (random: nothing
// compresses it) at card/CLIPS/A001C001.mov.
func largeCard(card, size string) {
	n, err := units.ParseBytes(size)
	if err != nil {
		log.Fatalf("ditcloudbench: -size %q: %v", size, err)
	}
	if err := os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(card, "CLIPS", "A001C001.mov"))
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(buf)) {
		for i := 0; i+8 <= len(buf); i += 8 {
			binary.LittleEndian.PutUint64(buf[i:], rng.Uint64())
		}
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			log.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// countingRclone writes an rclone script in dir that logs each run's
// subcommand and start time (processStarts) to a file and runs the real
// rclone: env with it first on
// PATH, and the log's name.
func countingRclone(dir, real string, env []string) ([]string, string) {
	bin := filepath.Join(dir, "counting")
	logf := filepath.Join(dir, "rclone-runs.log")
	if err := os.Mkdir(bin, 0o755); err != nil {
		log.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in -*) ;; *) echo \"$a $(date +%%s.%%N)\" >> %q; break;; esac; done\nexec %q \"$@\"\n", logf, real)
	if err := os.WriteFile(filepath.Join(bin, "rclone"), []byte(script), 0o755); err != nil {
		log.Fatal(err)
	}
	out := append([]string(nil), env...)
	for i, kv := range out {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + bin + string(os.PathListSeparator) + p
		}
	}
	return out, logf
}

// processCounts reads the log of countingRclone: "N (k subcommand, ...)".
func processCounts(logf string) string {
	by := map[string]int{}
	n := 0
	for _, p := range processStarts(logf) {
		by[p.sub]++
		n++
	}
	var parts []string
	for k, v := range by {
		parts = append(parts, fmt.Sprintf("%d %s", v, k))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// cardBytes are the bytes of the files under card.
func cardBytes(card string) int64 {
	var n int64
	filepath.Walk(card, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func run(env []string, name string, args ...string) []byte {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var errb []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		errb = ee.Stderr
	}
	if err != nil {
		log.Fatalf("ditcloudbench: %s %v: %v\n%s", name, args, err, errb)
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
