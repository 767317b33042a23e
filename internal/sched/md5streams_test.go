package sched

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/hashing/lanes"
	"github.com/dit-org/dit/internal/plan"
)

// The planner's MD5 rates from measured totals: one stream's share, and
// per core the whole total where the streams share the lanes, a
// stream's where each has a core.
func TestMD5Rates(t *testing.T) {
	got := md5Rates(map[int]float64{1: 0.8e9, 2: 1.6e9, 4: 2.4e9, 0: 5, 8: 0}, 2)
	require.Len(t, got, 3)
	require.Equal(t, plan.StreamRate{Stream: 0.8e9, PerCore: 0.8e9}, got[1])
	require.Equal(t, plan.StreamRate{Stream: 0.8e9, PerCore: 0.8e9}, got[2], "two streams: crypto/md5, a core each")
	if lanes.InLanes(4) {
		require.Equal(t, plan.StreamRate{Stream: 0.6e9, PerCore: 2.4e9}, got[4], "four streams in one core's lanes")
	} else {
		require.Equal(t, plan.StreamRate{Stream: 0.6e9, PerCore: 1.2e9}, got[4], "four streams on the two cores")
	}
}

// MachineCPU measures MD5 with 1 to 16 streams once, caches it as md5@k
// beside the single-core speeds, and CachedCPU then plans with the
// cached figures without measuring.
func TestMachineCPUMD5Streams(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer cat.Close()
	algos := []hashing.Algo{hashing.MD5, hashing.XXH64}
	require.Nil(t, CachedCPU(cat, plan.CPUSpec{}, algos), "nothing cached yet")
	cpu, err := MachineCPU(cat, plan.CPUSpec{}, algos)
	require.NoError(t, err)
	require.Len(t, cpu.MD5, len(MD5StreamCounts))
	for _, k := range MD5StreamCounts {
		require.Positive(t, cpu.MD5[k].Stream, "%d streams", k)
		require.InDelta(t, cpu.MD5[k].Stream*float64(k), cpu.MD5[k].PerCore*perCoreDivisor(k, cpu.Cores), 1, "%d streams", k)
	}
	host, _ := os.Hostname()
	cached, _, err := cat.CPUBench(host, runtime.GOOS+"/"+runtime.GOARCH, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	for _, k := range MD5StreamCounts {
		require.Equal(t, cpu.MD5[k].Stream*float64(k), cached[md5Key(k)], "md5@%d cached", k)
	}
	again := CachedCPU(cat, plan.CPUSpec{}, algos)
	require.NotNil(t, again)
	require.Equal(t, cpu.MD5, again.MD5, "planned from the cache")

	// A topology that sets md5's rate is taken at its word.
	spec := plan.CPUSpec{HashRates: map[hashing.Algo]float64{hashing.MD5: 1e9}}
	own, err := MachineCPU(cat, spec, algos)
	require.NoError(t, err)
	require.Empty(t, own.MD5)
	require.Equal(t, 1e9, own.PerCore[hashing.MD5])
}

func perCoreDivisor(k int, cores float64) float64 {
	if lanes.InLanes(k) {
		return 1
	}
	return min(float64(k), max(cores, 1))
}
