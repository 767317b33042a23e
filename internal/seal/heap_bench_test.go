package seal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// BenchmarkSealHeap measures what the seal alone holds: the peak live
// heap while a card of tiny frames is sealed (an ASC MHL generation,
// xxh64), above the live heap before, reported as live-MiB and
// live-B/file. The card's files come from a cursor, a file at a time,
// as the catalog gives them (offload.SealFiles); the frames are in clip
// folders of 1,000, or all in one folder (the seal holds its widest
// folder). Run it with -benchtime 1x (docs/benchmarks.md); the folder
// is made on /dev/shm when there is one.
func BenchmarkSealHeap(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, perClip := range []int{1000, n} {
			layout := "clips"
			if perClip == n {
				layout = "one-folder"
			}
			b.Run(fmt.Sprintf("files=%d/%s", n, layout), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					live, err := sealHeap(b, n, perClip, Format{ASC: true})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(live)/(1<<20), "live-MiB")
					b.ReportMetric(float64(live)/float64(n), "live-B/file")
				}
			})
		}
	}
}

func sealHeap(b testing.TB, n, perClip int, format Format) (uint64, error) {
	timer(b, false)
	root := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		root = "/dev/shm"
	}
	dest, err := os.MkdirTemp(root, "sealheap")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dest)
	algos := []hashing.Algo{hashing.XXH64}
	at := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	name := func(i int) string {
		clip := fmt.Sprintf("A001C%03d_230101_R1AB", i/perClip+1)
		return fmt.Sprintf("%s/%s.%07d.ari", clip, clip, i%perClip)
	}
	for i := 0; i < n; i++ {
		p := filepath.Join(dest, filepath.FromSlash(name(i)))
		if i%perClip == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return 0, err
			}
		}
		if err := os.WriteFile(p, []byte(name(i)), 0o644); err != nil {
			return 0, err
		}
	}
	files := offload.SealFiles(func(fn func(*offload.SealFile) error) error {
		var sf offload.SealFile
		for i := 0; i < n; i++ {
			rel := name(i)
			sf = offload.SealFile{Rel: rel, Size: int64(len(rel)), Mtime: at, Sums: hashing.Bytes(algos, []byte(rel)),
				State: offload.StateVerified, Verified: at}
			if err := fn(&sf); err != nil {
				return err
			}
		}
		return nil
	})
	info := offload.SealInfo{JobID: 1, JobName: "Mem", Host: "bench", ToolVersion: "bench", Started: at, Algos: algos,
		Card: catalog.Card{Label: "A001"}, DestRoot: filepath.Dir(dest), CardDir: dest, Files: files, Finished: at}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
			runtime.GC() // the live heap now, not at the last collection
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
		}
	}()
	timer(b, true)
	err = (&Sealer{Format: format}).Seal(context.Background(), info)
	timer(b, false)
	close(stop)
	peak := <-done
	if err != nil {
		return 0, err
	}
	return max(peak, before) - before, nil
}

// timer starts or stops b's timer when b is a benchmark.
func timer(b testing.TB, on bool) {
	if bb, ok := b.(*testing.B); ok {
		if on {
			bb.StartTimer()
		} else {
			bb.StopTimer()
		}
	}
}
