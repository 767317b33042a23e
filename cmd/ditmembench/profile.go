//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// heapProfile offloads a card of n files in this process, as dit offload
// does (internal/assembly: the same engine, seal and reports), and
// writes a heap profile of each phase at its peak: out.copy (the card
// scanned, planned and copied: until its card_copied event), out.seal
// (the read-back and the seal: until card_done) and out.reports (the
// job's reports, after). A phase's profile is written again each time
// the live heap reaches a new high in that phase (by at least 5 %,
// sampled every 100 ms, after a GC).
func heapProfile(dir string, n int, oneFolder bool, hash, out, cpuOut string) error {
	perClip := framesPerClip
	if oneFolder {
		perClip = n
	}
	card, err := makeCard(dir, n, perClip)
	if err != nil {
		return err
	}
	work := filepath.Join(dir, fmt.Sprintf("heap-%d", n))
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	dest := filepath.Join(work, "dest")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	cat, err := catalog.Open(filepath.Join(work, "catalog.db"))
	if err != nil {
		return err
	}
	defer cat.Close()
	algos, err := hashing.ParseList(hash)
	if err != nil {
		return err
	}
	runtime.MemProfileRate = 64 << 10
	var phase atomic.Value
	phase.Store("copy")
	s := assembly.Settings{Name: "Mem", Cards: []string{card}, Dests: []string{dest}, Copying: assembly.Copying{Hashes: algos},
		Catalog: cat, FS: fsys.OS{}, ToolVersion: "ditmembench", Drives: assembly.DrivesOff}
	s.Hooks.OnEvent = func(e offload.Event) {
		switch e.Type {
		case offload.EvCardCopied:
			phase.Store("seal")
		case offload.EvCardDone:
			phase.Store("reports")
		}
	}
	ctx := context.Background()
	p, err := assembly.Prepare(ctx, s)
	if err != nil {
		return err
	}
	job, err := p.Open(ctx)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	peaks := map[string]uint64{}
	var order []string
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			ph := phase.Load().(string)
			peak, seen := peaks[ph]
			if !seen {
				order = append(order, ph)
			}
			if live := sample[0].Value.Uint64(); live > peak+peak/20 {
				runtime.GC()
				metrics.Read(sample)
				peaks[ph] = max(peak, sample[0].Value.Uint64())
				if err := writeHeap(out + "." + ph); err != nil {
					fmt.Fprintln(os.Stderr, "ditmembench:", err)
				}
			}
		}
	}()
	if cpuOut != "" {
		f, err := os.Create(cpuOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	sum, runErr := job.Run(ctx)
	close(stop)
	wg.Wait()
	job.Finish(ctx, sum, runErr)
	if runErr != nil {
		return runErr
	}
	if sum.ExitCode != 0 {
		return fmt.Errorf("the offload of %d files ended with exit code %d", n, sum.ExitCode)
	}
	fmt.Printf("offload of %d files in %.1f s\n", n, time.Since(start).Seconds())
	for _, ph := range order {
		fmt.Printf("  %-8s peak live heap %6.1f MiB (%4.0f bytes a file): heap profile %s.%s\n", ph,
			float64(peaks[ph])/(1<<20), float64(peaks[ph])/float64(n), out, ph)
	}
	return nil
}

func writeHeap(out string) error {
	f, err := os.Create(out + ".tmp")
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(out+".tmp", out)
}
