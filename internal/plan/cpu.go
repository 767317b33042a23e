package plan

import (
	"runtime"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// Benchmark measures the single-core speed of each algorithm in bytes/s:
// one goroutine hashes a 4 MiB buffer over and over for about d per
// algorithm (at least two passes). It takes len(algos) x d.
func Benchmark(algos []hashing.Algo, d time.Duration) map[hashing.Algo]float64 {
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(i*7 + i>>11)
	}
	out := map[hashing.Algo]float64{}
	for _, a := range algos {
		h := a.New()
		h.Write(buf[:64<<10]) // warm up
		h.Reset()
		start := time.Now()
		var n int64
		for passes := 0; passes < 2 || time.Since(start) < d; passes++ {
			h.Write(buf)
			n += int64(len(buf))
		}
		h.Sum(nil)
		out[a] = float64(n) / time.Since(start).Seconds()
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
