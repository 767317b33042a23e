// Command ditspeedbench compares `dit speedtest` with fio (the reference
// storage benchmark) on one folder: the same size, block size and direct
// I/O, sequential write then read, alternating runs, medians. make bench
// runs it; it prints each tool's rates and dit's as a ratio of fio's.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	dir := flag.String("dir", "", "the folder to test (default: a temp folder)")
	size := flag.String("size", "1GB", "bytes each run writes and reads")
	block := flag.String("block", "1MiB", "bytes per I/O")
	runs := flag.Int("runs", 3, "runs of each tool")
	flag.Parse()
	if _, err := exec.LookPath("fio"); err != nil {
		fmt.Println("ditspeedbench: fio is not installed (Debian: fio); skipping the comparison")
		return
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "ditspeedbench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	n, err := units.ParseBytes(*size)
	check(err)
	bs, err := units.ParseBytes(*block)
	check(err)
	var dw, dr, fw, fr []float64
	for i := range *runs {
		w, r := ditRun(*dit, *dir, *size, *block)
		dw, dr = append(dw, w), append(dr, r)
		w = fioRun(*dir, "write", n, bs)
		r = fioRun(*dir, "read", n, bs)
		os.Remove(filepath.Join(*dir, "fio.bin"))
		fw, fr = append(fw, w), append(fr, r)
		fmt.Printf("run %d: dit write %s read %s; fio write %s read %s\n", i+1,
			units.FormatRate(dw[i]), units.FormatRate(dr[i]), units.FormatRate(fw[i]), units.FormatRate(fr[i]))
	}
	fmt.Printf("medians over %d runs, %s in %s I/Os, direct I/O, %s:\n", *runs, *size, *block, *dir)
	fmt.Printf("  write: dit %s, fio %s, dit/fio %.3f\n", units.FormatRate(median(dw)), units.FormatRate(median(fw)), median(dw)/median(fw))
	fmt.Printf("  read:  dit %s, fio %s, dit/fio %.3f\n", units.FormatRate(median(dr)), units.FormatRate(median(fr)), median(dr)/median(fr))
}

func ditRun(dit, dir, size, block string) (w, r float64) {
	out, err := exec.Command(dit, "speedtest", "--json", "--size", size, "--block", block, dir).Output()
	check(err)
	var rs []speedtest.Result
	check(json.Unmarshal(out, &rs))
	return rs[0].Write.Rate, rs[0].Read.Rate
}

// fioRun runs one sequential fio job; fio's own bandwidth (bytes/s).
func fioRun(dir, rw string, size, bs int64) float64 {
	args := []string{"--name=dit", "--filename=" + filepath.Join(dir, "fio.bin"), "--rw=" + rw, "--direct=1",
		"--bs=" + strconv.FormatInt(bs, 10), "--size=" + strconv.FormatInt(size, 10), "--ioengine=psync",
		"--end_fsync=1", "--output-format=json"}
	out, err := exec.Command("fio", args...).Output()
	check(err)
	var j struct {
		Jobs []struct {
			Read struct {
				BwBytes float64 `json:"bw_bytes"`
			} `json:"read"`
			Write struct {
				BwBytes float64 `json:"bw_bytes"`
			} `json:"write"`
		} `json:"jobs"`
	}
	check(json.Unmarshal(out, &j))
	if rw == "write" {
		return j.Jobs[0].Write.BwBytes
	}
	return j.Jobs[0].Read.BwBytes
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ditspeedbench:", err)
		os.Exit(1)
	}
}
