// Command ditcloudbench measures dit's upload to a cloud destination
// against rclone copy of the same files to the same S3 server, behind
// `make bench`: a generated card is offloaded to a folder and cascaded to
// rclone:bench:BUCKET (dit offload --then), and the same first copy is
// sent by `rclone copy` to another prefix of the same bucket; each round
// a new prefix for both, so neither finds anything there. dit's figure is
// its second run, from its first byte sent to its last object verified
// (the catalog's times: upload and verification); rclone's the command's
// wall time. The server is moto (s3test: installed once into .cache) on
// 127.0.0.1. It prints each round and the medians, and the ratio of dit's
// throughput to rclone's as the median of the rounds' ratios.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/dit-org/dit/internal/cloud/s3test"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	size := flag.String("size", "500MB", "the card's footage (dit testdata cards --size)")
	style := flag.String("style", "clips", "the card's style (dit testdata cards --style)")
	rounds := flag.Int("runs", 3, "rounds (the median is reported)")
	flag.Parse()
	log.SetFlags(0)
	if _, err := exec.LookPath("rclone"); err != nil {
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
	run(env, *dit, "testdata", "cards", "--out", filepath.Join(dir, "cards"), "--cards", "1", "--size", *size, "--style", *style)
	card := filepath.Join(dir, "cards", "A001")
	var ditS, rcS, ratios []float64
	var bytes int64
	for i := 1; i <= *rounds; i++ {
		raid := filepath.Join(dir, fmt.Sprintf("raid%d", i))
		if err := os.Mkdir(raid, 0o755); err != nil {
			log.Fatal(err)
		}
		name := fmt.Sprintf("round%d", i)
		run(env, *dit, "offload", "--json", "--name", name, "-d", raid, "--then", "rclone:bench:shots/dit", card)
		secs, n := secondRun(env, *dit, i)
		bytes = n
		first := filepath.Join(raid, name, "A001")
		t0 := time.Now()
		run(env, "rclone", "copy", first, "bench:shots/rclone/"+name+"/A001")
		rs := time.Since(t0).Seconds()
		ditS, rcS, ratios = append(ditS, secs), append(rcS, rs), append(ratios, rs/secs)
		fmt.Printf("round %d: %d bytes: dit upload+verify %.2f s (%.1f MB/s), rclone copy %.2f s (%.1f MB/s), dit/rclone throughput %.2f\n",
			i, n, secs, float64(n)/secs/1e6, rs, float64(n)/rs/1e6, rs/secs)
	}
	fmt.Printf("cloud upload, %d bytes, median of %d: dit %.2f s (%.1f MB/s), rclone copy %.2f s (%.1f MB/s); dit/rclone throughput %.2f (median of the rounds' ratios)\n",
		bytes, *rounds, median(ditS), float64(bytes)/median(ditS)/1e6, median(rcS), float64(bytes)/median(rcS)/1e6, median(ratios))
}

// secondRun is job's second run: seconds from its start to its last
// object verified, and its bytes.
func secondRun(env []string, dit string, job int) (float64, int64) {
	out := run(env, dit, "job", "show", fmt.Sprint(job), "--json")
	var j struct {
		Cards []struct {
			Then *struct {
				Bytes       int64     `json:"bytes"`
				CopyStarted time.Time `json:"copy_started"`
				DoneAt      time.Time `json:"done_at"`
			} `json:"then"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(out, &j); err != nil || len(j.Cards) == 0 || j.Cards[0].Then == nil {
		log.Fatalf("ditcloudbench: dit job show %d: %v\n%s", job, err, out)
	}
	th := j.Cards[0].Then
	return th.DoneAt.Sub(th.CopyStarted).Seconds(), th.Bytes
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
