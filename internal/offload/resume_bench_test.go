//go:build unix

package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// BenchmarkMidFileResume measures a mid-file resume at 80 % against a
// full copy of the same file, in the same run, on real files: one
// 320 MiB clip, checkpoints every 16 MiB (the ratio of 256 MiB to a
// 4 GiB clip), dit offload's default hashes (xxh64, md5), one folder
// destination, read-back verification. Each iteration copies the clip
// whole (measured), then copies it again to a new destination and stops
// at 80 % (not measured), then resumes that (measured). Bytes read from
// the card and back from the destination are counted through the
// filesystem the engine is given; CPU is the process's user+system time
// (getrusage) over the run. The card's pages are dropped from the cache
// before each measured run. It reports the medians over the iterations
// of the resume/full ratios: card-ratio, dest-ratio (read-back),
// reads-ratio (both), cpu-ratio, and wall-ratio.
func BenchmarkMidFileResume(b *testing.B) {
	const size, every = 320 << 20, 16 << 20
	dir := b.TempDir()
	card := testCard(b, filepath.Join(dir, "cards"), "A001", map[string]string{"CLIPS/A001C001.mov": bigContent(size, 7)})
	src := filepath.Join(card, "CLIPS", "A001C001.mov")
	var ratios [5][]float64
	var last [2]resumeRun
	i := 0
	for b.Loop() {
		run := filepath.Join(dir, fmt.Sprintf("run%d", i))
		i++
		full := measureRun(b, run+"-full", card, src, every, 0)
		interrupted := measureRun(b, run+"-resume", card, src, every, size*8/10)
		resumed := resumeRunOf(b, interrupted, card, src, every)
		last = [2]resumeRun{full, resumed}
		for k, r := range []float64{
			float64(resumed.card) / float64(full.card),
			float64(resumed.dest) / float64(full.dest),
			float64(resumed.card+resumed.dest) / float64(full.card+full.dest),
			resumed.cpu.Seconds() / full.cpu.Seconds(),
			resumed.wall.Seconds() / full.wall.Seconds(),
		} {
			ratios[k] = append(ratios[k], r)
		}
	}
	for k, name := range []string{"card-ratio", "dest-ratio", "reads-ratio", "cpu-ratio", "wall-ratio"} {
		b.ReportMetric(median(ratios[k]), name)
	}
	b.Logf("last iteration: full copy card %d B, read back %d B, cpu %v, wall %v; resume at 80 %%: card %d B, read back %d B, cpu %v, wall %v",
		last[0].card, last[0].dest, last[0].cpu, last[0].wall, last[1].card, last[1].dest, last[1].cpu, last[1].wall)
}

// resumeRun is one measured run of BenchmarkMidFileResume.
type resumeRun struct {
	cat       *catalog.Catalog
	jobID     int64
	dest      int64
	card      int64
	cpu, wall time.Duration
	destRoot  string
}

// measureRun copies card to a new destination under run; stop > 0: the
// job is stopped once stop bytes are read from the card (its catalog
// kept open for the resume).
func measureRun(b *testing.B, run, card, src string, every, stop int64) resumeRun {
	require.NoError(b, os.MkdirAll(run, 0o755))
	cat, err := catalog.Open(filepath.Join(run, "catalog.db"))
	require.NoError(b, err)
	d := filepath.Join(run, "d1")
	require.NoError(b, os.MkdirAll(d, 0o755))
	r := resumeRun{cat: cat, destRoot: d}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cardN, destN := &atomic.Int64{}, &atomic.Int64{}
	o := Options{JobSpec: JobSpec{Name: "day01", Cards: []string{card}, Dests: []string{d},
		Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}}, Env: Env{Catalog: cat, CheckpointEvery: every,
		FS: countFS{FS: readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{d: destN}}, root: card, n: cardN}}}
	if stop > 0 {
		o.FS = stopFS{countFS: o.FS.(countFS), stop: stop, cancel: cancel}
	}
	j, err := New(context.Background(), o)
	require.NoError(b, err)
	dropCache(b, src)
	cpu0, t0 := cpuTime(), time.Now()
	s, err := j.Run(ctx)
	r.cpu, r.wall = cpuTime()-cpu0, time.Since(t0)
	require.NoError(b, err)
	r.jobID, r.card, r.dest = s.JobID, cardN.Load(), destN.Load()
	if stop > 0 {
		require.Equal(b, ExitInterrupted, s.ExitCode)
		return r
	}
	require.True(b, s.Cards[0].SafeToFormat, "%+v", s.Cards[0].Failures)
	cat.Close()
	return r
}

// resumeRunOf resumes the interrupted run r, measured.
func resumeRunOf(b *testing.B, r resumeRun, card, src string, every int64) resumeRun {
	defer r.cat.Close()
	parts, err := r.cat.Partials(mustCardIDOf(b, r.cat, r.jobID))
	require.NoError(b, err)
	for _, p := range parts["CLIPS/A001C001.mov"] {
		require.NotEmpty(b, p.State, "the checkpoint records the card side")
	}
	cardN, destN := &atomic.Int64{}, &atomic.Int64{}
	o := Options{Env: Env{CheckpointEvery: every,
		FS: countFS{FS: readBackFS{FS: fsys.OS{}, roots: map[string]*atomic.Int64{r.destRoot: destN}}, root: card, n: cardN}}}
	j, err := Resume(context.Background(), r.cat, r.jobID, o)
	require.NoError(b, err)
	dropCache(b, src)
	cpu0, t0 := cpuTime(), time.Now()
	s, err := j.Run(context.Background())
	out := resumeRun{cpu: cpuTime() - cpu0, wall: time.Since(t0)}
	require.NoError(b, err)
	require.True(b, s.Cards[0].SafeToFormat, "%+v", s.Cards[0].Failures)
	out.card, out.dest = cardN.Load(), destN.Load()
	return out
}

func mustCardIDOf(b *testing.B, cat *catalog.Catalog, jobID int64) int64 {
	cards, err := cat.Cards(jobID)
	require.NoError(b, err)
	return cards[0].ID
}

// dropCache evicts a file's pages from the page cache.
func dropCache(b *testing.B, p string) {
	f, err := fsys.OS{}.Open(p)
	require.NoError(b, err)
	require.NoError(b, f.DropCache())
	f.Close()
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
