package sched

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/hashing/lanes"
	"github.com/dit-org/dit/internal/plan"
)

// MD5StreamCounts are the numbers of streams whose MD5 rate the CPU
// self-benchmark measures: a job of n streams plans with the most of
// them not above n.
var MD5StreamCounts = []int{1, 2, 4, 8, 16}

// md5Key is the cached rate of k MD5 streams, beside the algorithms'
// single-core speeds ("md5@4": bytes/s of 4 streams together).
func md5Key(k int) string { return fmt.Sprintf("md5@%d", k) }

// MeasureMD5Streams measures the MD5 rate of the process (bytes/s, all
// streams together) with k streams hashing at once through the hashing
// package's MD5 (the lane service where the CPU has lanes), for each k
// of counts: k goroutines hash 4 MiB buffers of their own for d, in two
// halves, and the faster half counts (as plan.Benchmark).
func MeasureMD5Streams(counts []int, d time.Duration) map[int]float64 {
	out := map[int]float64{}
	bufs := make([][]byte, 0, 16)
	for _, k := range counts {
		for len(bufs) < k {
			b := make([]byte, 4<<20)
			for i := range b {
				b[i] = byte(i*7 + i>>11 + len(bufs))
			}
			bufs = append(bufs, b)
		}
		for range 2 {
			var wg sync.WaitGroup
			var mu sync.Mutex
			var total int64
			start := time.Now()
			for i := range k {
				wg.Add(1)
				go func() {
					defer wg.Done()
					h := hashing.MD5.New()
					var n int64
					for pass := 0; pass < 1 || time.Since(start) < d/2; pass++ {
						h.Write(bufs[i])
						n += int64(len(bufs[i]))
					}
					h.Sum(nil)
					mu.Lock()
					total += n
					mu.Unlock()
				}()
			}
			wg.Wait()
			out[k] = max(out[k], float64(total)/time.Since(start).Seconds())
		}
	}
	return out
}

// md5Rates turns measured rates of k streams together into the planner's
// rates: one stream's share, and the bytes per core-second, which is the
// whole rate where the streams share one core's lanes and the rate per
// stream where each runs on a core of its own (crypto/md5). cores caps
// the streams running on cores of their own.
func md5Rates(measured map[int]float64, cores float64) map[int]plan.StreamRate {
	out := map[int]plan.StreamRate{}
	for k, v := range measured {
		if k <= 0 || v <= 0 {
			continue
		}
		r := plan.StreamRate{Stream: v / float64(k), PerCore: v}
		if !lanes.InLanes(k) {
			r.PerCore = v / min(float64(k), max(cores, 1))
		}
		out[k] = r
	}
	return out
}

// cachedMD5 picks the md5@k rates out of a cached benchmark.
func cachedMD5(cached map[string]float64) map[int]float64 {
	out := map[int]float64{}
	for name, v := range cached {
		if k, ok := strings.CutPrefix(name, "md5@"); ok {
			if n, err := strconv.Atoi(k); err == nil && n > 0 {
				out[n] = v
			}
		}
	}
	return out
}
