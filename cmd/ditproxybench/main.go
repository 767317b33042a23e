//go:build unix

// Command ditproxybench is the proxies' part of `make bench`: what a
// proxy job (dit offload --proxies, ffmpeg at nice 19 in the idle I/O
// class) takes from an offload running beside it. It offloads a
// generated card (md5 + xxh64, read-back, to a folder) alone; while a
// dit proxy job makes ProRes Proxy files of a card of long H.264 clips;
// and, as the control, while the same ffmpeg transcode runs at normal
// priority. Each round does the three; it prints each round's offload
// rates, and the medians of the rates and of the rounds' ratios to the
// offload alone.
//
// The proxy load is in its ffmpeg phase before the measured offload
// starts (the proxy job's run_done event, then its first proxy's
// temporary file in the folder), and is checked to be still running when
// the offload ends (else the round says so): the figures are of an
// offload wholly beside proxies.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary")
	dir := flag.String("dir", "", "work folder (default: a new one in /dev/shm, else the temp folder)")
	size := flag.Int64("size", 1<<30, "bytes of the offloaded card")
	clipSecs := flag.Int("clip-seconds", 40, "length of each of the proxy card's 1080p H.264 clips")
	rounds := flag.Int("rounds", 3, "rounds (each: alone, beside dit proxies, beside ffmpeg at normal priority)")
	flag.Parse()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Printf("ditproxybench: skipped: %s not installed (Debian: apt-get install ffmpeg)\n", tool)
			return
		}
	}
	if err := bench(*dit, *dir, *size, *clipSecs, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "ditproxybench:", err)
		os.Exit(1)
	}
}

func bench(dit, dir string, size int64, clipSecs, rounds int) error {
	ditAbs, err := filepath.Abs(dit)
	if err != nil {
		return err
	}
	if dir == "" {
		base := ""
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			base = "/dev/shm"
		}
		if dir, err = os.MkdirTemp(base, "ditproxybench"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	card := filepath.Join(dir, "cards", "A001")
	clipsCard := filepath.Join(dir, "cards", "B001")
	if err := makeCard(card, size); err != nil {
		return err
	}
	if err := makeClips(clipsCard, clipSecs); err != nil {
		return err
	}
	fmt.Printf("ditproxybench: card %.2f GB to a folder (md5,xxh64, read-back) in %s; proxies: ProRes Proxy of 2 x %d s 1080p25 H.264 clips\n",
		float64(size)/1e9, filepath.Dir(dir), clipSecs)
	if _, err := offloadRate(ditAbs, dir, card, 0, "warm-up"); err != nil { // discarded
		return err
	}
	var alone, withDit, withPlain []float64
	for r := 1; r <= rounds; r++ {
		got := map[string]float64{}
		ok := map[string]bool{"alone": true}
		// The order rotates from round to round.
		kinds := []string{"alone", "dit", "plain"}
		for range r - 1 {
			kinds = append(kinds[1:], kinds[0])
		}
		for _, k := range kinds {
			var err error
			if k == "alone" {
				got[k], err = offloadRate(ditAbs, dir, card, r, k)
			} else {
				got[k], ok[k], err = beside(ditAbs, dir, card, clipsCard, r, k)
			}
			if err != nil {
				return err
			}
		}
		a, d, p := got["alone"], got["dit"], got["plain"]
		fmt.Printf("round %d (%s): alone %.0f MB/s, beside dit proxies %.0f MB/s (%.2f)%s, beside ffmpeg at normal priority %.0f MB/s (%.2f)%s\n",
			r, strings.Join(kinds, ", "), a/1e6, d/1e6, d/a, warn(ok["dit"]), p/1e6, p/a, warn(ok["plain"]))
		alone, withDit, withPlain = append(alone, a), append(withDit, d), append(withPlain, p)
	}
	ratio := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for i := range x {
			out[i] = x[i] / alone[i]
		}
		return out
	}
	fmt.Printf("median of %d: alone %.0f MB/s; beside dit proxies %.0f MB/s, ratio %.2f; beside ffmpeg at normal priority %.0f MB/s, ratio %.2f\n",
		rounds, median(alone)/1e6, median(withDit)/1e6, median(ratio(withDit)), median(withPlain)/1e6, median(ratio(withPlain)))
	return nil
}

func warn(ok bool) string {
	if ok {
		return ""
	}
	return " [the load ended before the offload]"
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// makeCard writes size bytes of noise in four files.
func makeCard(dir string, size int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r := rand.NewChaCha8([32]byte{1})
	for i := range 4 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("A001C%03d.mov", i+1)))
		if err != nil {
			return err
		}
		_, err = io.CopyN(f, r, size/4)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// makeClips writes two 1080p25 H.264 clips with timecode.
func makeClips(dir string, secs int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("B001C%03d_261127_R1AB.mp4", i+1))
		out, err := exec.Command("ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i",
			fmt.Sprintf("testsrc2=d=%d:s=1920x1080:r=25", secs), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
			"-timecode", "10:00:00:00", p).CombinedOutput()
		if err != nil {
			return fmt.Errorf("making %s: %v: %s", p, err, out)
		}
	}
	return nil
}

// offloadRate offloads card alone to a new folder and gives its rate:
// the card's bytes over the dit process's wall time.
func offloadRate(dit, dir, card string, round int, what string) (float64, error) {
	dest := filepath.Join(dir, fmt.Sprintf("dest-%d-%s", round, what))
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dest)
	db := filepath.Join(dir, fmt.Sprintf("catalog-%d-%s.db", round, what))
	defer os.Remove(db)
	var bytes int64
	ents, _ := os.ReadDir(card)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			bytes += fi.Size()
		}
	}
	start := time.Now()
	out, err := exec.Command(dit, "--db", db, "offload", "--hash", "md5,xxh64", "--verify", "dest", "--drive-health", "off",
		"-d", dest, card).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("dit offload: %v: %s", err, out)
	}
	return float64(bytes) / time.Since(start).Seconds(), nil
}

// beside measures the offload while a proxy load runs: a dit proxy job
// (kind "dit") or ffmpeg making the same proxy at normal priority
// ("plain"). ok is false when the load ended before the offload did.
func beside(dit, dir, card, clipsCard string, round int, kind string) (rate float64, ok bool, err error) {
	load, err := startLoad(dit, dir, clipsCard, round, kind)
	if err != nil {
		return 0, false, err
	}
	rate, err = offloadRate(dit, dir, card, round, kind)
	ok = load.ProcessState == nil && load.Process.Signal(syscall.Signal(0)) == nil
	load.Process.Signal(os.Interrupt)
	load.Wait()
	return rate, ok, err
}

// startLoad starts the proxy load and returns once it is transcoding.
func startLoad(dit, dir, clipsCard string, round int, kind string) (*exec.Cmd, error) {
	out := filepath.Join(dir, fmt.Sprintf("proxies-%d-%s", round, kind))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	watch := out
	if kind == "dit" {
		db := filepath.Join(dir, fmt.Sprintf("catalog-proxies-%d.db", round))
		cmd = exec.Command(dit, "--db", db, "offload", "--json", "--name", "pxload", "--drive-health", "off",
			"--proxies", "prores-proxy", "-d", out, clipsCard)
		watch = filepath.Join(out, "proxies", "pxload", filepath.Base(clipsCard))
	} else {
		ents, err := os.ReadDir(clipsCard)
		if err != nil || len(ents) == 0 {
			return nil, fmt.Errorf("no clips in %s", clipsCard)
		}
		// The prores-proxy preset's arguments (internal/proxies.Args, which
		// a tool under cmd/ does not import: arch_test.go), the input
		// looped for as long as it is needed.
		args := []string{"-nostdin", "-hide_banner", "-nostats", "-v", "error", "-stream_loop", "-1",
			"-i", filepath.Join(clipsCard, ents[0].Name()), "-map", "0:v:0", "-map", "0:a?", "-map_metadata", "-1",
			"-vf", "scale=w='min(1920,iw)':h=-2", "-c:v", "prores_ks", "-profile:v", "0", "-vendor", "apl0",
			"-pix_fmt", "yuv422p10le", "-c:a", "pcm_s16le", "-timecode", "10:00:00:00", "-f", "mov", "-n",
			filepath.Join(out, ".dit-proxy-plain.mov")}
		cmd = exec.Command("ffmpeg", args...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go io.Copy(io.Discard, bufio.NewReader(stdout))
	// Transcoding: the proxy's temporary file is there and growing.
	for {
		if cmd.ProcessState != nil {
			return nil, fmt.Errorf("%s ended before it made a proxy", kind)
		}
		if n := tempBytes(watch); n > 0 {
			return cmd, nil
		}
		time.Sleep(50 * time.Millisecond) // polling a folder for an outside process's file: no event to wait on
	}
}

// tempBytes is the size of the proxy temporaries in dir.
func tempBytes(dir string) int64 {
	ents, _ := os.ReadDir(dir)
	var n int64
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".dit-proxy-") {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}
