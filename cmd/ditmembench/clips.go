//go:build unix

package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dit-org/dit/internal/clips"
)

// -clips measures the clip recogniser alone (internal/clips, what the
// reports' Clipper runs at a card's end) on cards of N frames named as
// makeCard names them (clip folders of framesPerClip, a sidecar beside
// each), each in a child process (this program again, -clips-child):
// "slice" holds the card's file list and calls clips.Recognize (the
// Clipper before 2026-12-03), "stream" adds each file to a
// clips.Recognizer as the catalog's rows come (the Clipper since). It
// prints each child's peak RSS, the live heap after recognition, and
// the RSS a file between the smallest and largest card.
var (
	clipsBench = flag.String("clips", "", "measure only the clip recogniser (slice and stream) on cards of these file counts, comma-separated (e.g. 10000,100000,1000000)")
	clipsChild = flag.String("clips-child", "", "internal: MODE,N (run by -clips)")
)

// clipsMain runs -clips or -clips-child when one is given; it reports
// whether it did.
func clipsMain() bool {
	switch {
	case *clipsChild != "":
		mode, n, _ := strings.Cut(*clipsChild, ",")
		files, err := strconv.Atoi(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ditmembench: -clips-child:", err)
			os.Exit(2)
		}
		recogniseCard(mode, files)
		return true
	case *clipsBench != "":
		if err := benchClips(*clipsBench); err != nil {
			fmt.Fprintln(os.Stderr, "ditmembench:", err)
			os.Exit(1)
		}
		return true
	}
	return false
}

// benchClips runs each mode on each card size in a child and prints what
// it measured.
func benchClips(list string) error {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-clips: %q is not a file count", f)
		}
		ns = append(ns, n)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("ditmembench -clips: %s, %d CPUs, %s, clip folders of %d frames\n\n", time.Now().Format("2006-01-02"),
		runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, framesPerClip)
	fmt.Printf("%-8s %9s %11s %13s %9s\n", "mode", "files", "peak RSS", "live heap", "CPU")
	for _, mode := range []string{"slice", "stream"} {
		var rss []int64
		for _, n := range ns {
			cmd := exec.Command(self, "-clips-child", mode+","+strconv.Itoa(n))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("%s %d: %w", mode, n, err)
			}
			ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			kb := maxrssKB(ru)
			rss = append(rss, kb)
			fmt.Printf("%-8s %9d %7.1f MiB %9s MiB %8.2fs\n", mode, n, float64(kb)/1024, strings.TrimSpace(string(out)),
				time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds())
		}
		if len(ns) > 1 {
			d := float64(rss[len(rss)-1]-rss[0]) * 1024 / float64(ns[len(ns)-1]-ns[0])
			fmt.Printf("%-8s RSS a file (%d to %d files): %.0f B\n", mode, ns[0], ns[len(ns)-1], d)
		}
	}
	return nil
}

// recogniseCard recognises a card of n frames as mode says and prints
// the live heap (MiB) after a GC with the card's clips still held.
func recogniseCard(mode string, n int) {
	names := func(yield func(clips.File) bool) {
		for i := 0; i < n; i++ {
			clip := fmt.Sprintf("A001C%03d_230101_R1AB", i/framesPerClip+1)
			if i%framesPerClip == 0 && !yield(clips.File{Rel: clip + ".xml", Size: 900}) {
				return
			}
			if !yield(clips.File{Rel: fmt.Sprintf("%s/%s.%07d.ari", clip, clip, i%framesPerClip), Size: frameSize}) {
				return
			}
		}
	}
	var card *clips.Card
	switch mode {
	case "slice":
		var list []clips.File
		for f := range names {
			list = append(list, f)
		}
		card = clips.Recognize(list, nil)
	case "stream":
		r := clips.NewRecognizer()
		for f := range names {
			r.Add(f)
		}
		card = r.Card(nil)
	default:
		fmt.Fprintf(os.Stderr, "ditmembench: -clips-child: no mode %q\n", mode)
		os.Exit(2)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if len(card.Clips) != (n+framesPerClip-1)/framesPerClip {
		fmt.Fprintf(os.Stderr, "ditmembench: %d clips recognised of %d frames\n", len(card.Clips), n)
		os.Exit(1)
	}
	fmt.Printf("%.1f\n", float64(ms.HeapAlloc)/(1<<20))
}
