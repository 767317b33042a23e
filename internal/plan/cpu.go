package plan

import (
	"runtime"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// Benchmark measures the single-core speed of each algorithm in bytes/s:
// one goroutine hashes a 4 MiB buffer over and over, in four slices of
// d/4, and the fastest slice counts (a busy machine slows some slices; the
// planner wants what a core does when it is free). It takes len(algos) x d.
func Benchmark(algos []hashing.Algo, d time.Duration) map[hashing.Algo]float64 {
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(i*7 + i>>11)
	}
	out := map[hashing.Algo]float64{}
	for _, a := range algos {
		h := a.New()
		h.Write(buf[:64<<10]) // warm up
		for slice := 0; slice < 4; slice++ {
			h.Reset()
			start := time.Now()
			var n int64
			for pass := 0; pass < 1 || time.Since(start) < d/4; pass++ {
				h.Write(buf)
				n += int64(len(buf))
			}
			h.Sum(nil)
			out[a] = max(out[a], float64(n)/time.Since(start).Seconds())
		}
	}
	return out
}

// MachineCPU is the CPU to plan with: cores from spec (or the machine's),
// hash speeds from spec, then measured, then the profiles' defaults.
func MachineCPU(spec CPUSpec, measured map[hashing.Algo]float64) *CPU {
	c := &CPU{Cores: spec.Cores, PerCore: map[hashing.Algo]float64{}}
	if c.Cores <= 0 {
		c.Cores = float64(runtime.NumCPU())
	}
	for a, v := range measured {
		c.PerCore[a] = v
	}
	for a, v := range spec.HashRates {
		c.PerCore[a] = v
	}
	return c
}
