package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"sync"

	"github.com/dit-org/dit/internal/hashing/lanes"
)

// startProfiles starts what the environment asks for, to see where a
// command's time goes (docs/testing.md, "Profiling the real binary"):
// DIT_CPUPROFILE=FILE a CPU profile (go tool pprof), DIT_TRACE=FILE an
// execution trace (go tool trace) of the whole command, DIT_MD5STATS=1 the
// MD5 lanes' counters on errOut at the end (how full the batches were). The returned
// function stops them and writes the files; it is called before the
// process exits (more than once: the first call only). A file that cannot be made is reported on errOut and
// the command runs without it.
func startProfiles(getenv func(string) string, errOut io.Writer) (stop func()) {
	var stops []func()
	if p := getenv("DIT_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err != nil {
			fmt.Fprintln(errOut, "dit: DIT_CPUPROFILE:", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(errOut, "dit: DIT_CPUPROFILE:", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if getenv("DIT_MD5STATS") != "" {
		stops = append(stops, func() {
			n := lanes.Count()
			fill := 0.0
			if n.Batches > 0 {
				fill = float64(n.Streams) / float64(n.Batches)
			}
			fmt.Fprintf(errOut, "dit: %s: %d batches, %.1f streams a batch, %d bytes in lanes, %d by crypto/md5\n",
				lanes.Describe(), n.Batches, fill, n.LaneBytes, n.ScalarBytes)
		})
	}
	if p := getenv("DIT_TRACE"); p != "" {
		if f, err := os.Create(p); err != nil {
			fmt.Fprintln(errOut, "dit: DIT_TRACE:", err)
		} else if err := trace.Start(f); err != nil {
			fmt.Fprintln(errOut, "dit: DIT_TRACE:", err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, s := range stops {
				s()
			}
		})
	}
}
