package sched

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/plan"
)

// ForJob returns the part of topology t that a job uses: one source per
// card and one destination per -d folder, in command-line order. A card
// or destination matches the entry whose path is the same folder, else the
// one whose name is the folder's name (A001 for /Volumes/A001). Entries of
// t that the job does not use (plan-only sources) are left out.
func ForJob(t *plan.Topology, cards, dests []string) (*plan.Topology, error) {
	out := t.Clone()
	out.Sources, out.Destinations = nil, nil
	file := t.File
	if file == "" {
		file = "the topology"
	}
	usedS := map[int]bool{}
	for _, c := range cards {
		i := match(c, len(t.Sources), func(i int) (string, string) { return t.Sources[i].Path, t.Sources[i].Name }, usedS)
		if i < 0 {
			return nil, fmt.Errorf("card %s is not in %s: add a source with path: %s (or name: %s) and its media and bus",
				c, file, c, filepath.Base(filepath.Clean(c)))
		}
		usedS[i] = true
		src := t.Sources[i]
		src.Name = filepath.Base(filepath.Clean(c))
		if src.Path == "" {
			src.Path = c
		}
		out.Sources = append(out.Sources, src)
	}
	usedD := map[int]bool{}
	for _, d := range dests {
		i := match(d, len(t.Destinations), func(i int) (string, string) { return t.Destinations[i].Path, t.Destinations[i].Name }, usedD)
		if i < 0 {
			return nil, fmt.Errorf("destination %s is not in %s: add a destination with path: %s (or name: %s) and its bus and write_rate",
				d, file, d, filepath.Base(filepath.Clean(d)))
		}
		usedD[i] = true
		dst := t.Destinations[i]
		if dst.Path == "" {
			dst.Path = d
		}
		out.Destinations = append(out.Destinations, dst)
	}
	return out, nil
}

func match(p string, n int, get func(int) (path, name string), used map[int]bool) int {
	want := Canon(p)
	for i := 0; i < n; i++ {
		if path, _ := get(i); path != "" && !used[i] && Canon(path) == want {
			return i
		}
	}
	base := filepath.Base(filepath.Clean(p))
	for i := 0; i < n; i++ {
		if path, name := get(i); !used[i] && name == base && (path == "" || Canon(path) == want) {
			return i
		}
	}
	for i := 0; i < n; i++ {
		if _, name := get(i); !used[i] && name == base {
			return i
		}
	}
	return -1
}

// Canon is a path as the job knows it: absolute, symbolic links resolved
// (as far as they exist).
func Canon(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// BenchmarkMaxAge is how long a cached CPU self-benchmark is trusted.
const BenchmarkMaxAge = 30 * 24 * time.Hour

// MachineCPU returns the CPU to plan with for algos: the topology's cpu
// section first, then single-core speeds measured on this host (cached in
// cat per host and GOOS/GOARCH for BenchmarkMaxAge; what is missing is
// measured now, ~60 ms per algorithm, and stored), and with md5 its rate
// with 1, 2, 4, 8 and 16 streams at once (MeasureMD5Streams, ~40 ms
// each, cached as md5@k). cat may be nil.
func MachineCPU(cat *catalog.Catalog, spec plan.CPUSpec, algos []hashing.Algo) (*plan.CPU, error) {
	measured, cached, missing, err := cachedRates(cat, spec, algos)
	if err != nil {
		return nil, err
	}
	streams := cachedMD5(cached)
	wantStreams := contains(algos, hashing.MD5) && spec.HashRates[hashing.MD5] == 0 && len(streams) < len(MD5StreamCounts)
	if len(missing) > 0 || wantStreams {
		names := map[string]float64{}
		for a, v := range plan.Benchmark(missing, 60*time.Millisecond) {
			measured[a] = v
			names[a.String()] = v
		}
		if wantStreams {
			streams = MeasureMD5Streams(MD5StreamCounts, 40*time.Millisecond)
			for k, v := range streams {
				names[md5Key(k)] = v
			}
		}
		if cat != nil {
			host, _ := os.Hostname()
			if err := cat.PutCPUBench(host, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), names, time.Now()); err != nil {
				return nil, err
			}
		}
	}
	return withMD5(plan.MachineCPU(spec, measured), spec, streams), nil
}

// withMD5 gives c MD5's rates by number of streams (unless the topology
// sets md5's rate).
func withMD5(c *plan.CPU, spec plan.CPUSpec, streams map[int]float64) *plan.CPU {
	if len(streams) > 0 && spec.HashRates[hashing.MD5] == 0 {
		c.MD5 = md5Rates(streams, c.Cores)
	}
	return c
}

// CachedCPU is MachineCPU without measuring anything: nil when a speed
// is neither in the topology's cpu section nor cached (a job without a
// bus budget then plans without the CPU rather than pay the benchmark at
// its start). MD5's rates by number of streams are used when cached.
func CachedCPU(cat *catalog.Catalog, spec plan.CPUSpec, algos []hashing.Algo) *plan.CPU {
	measured, cached, missing, err := cachedRates(cat, spec, algos)
	if err != nil || len(missing) > 0 {
		return nil
	}
	return withMD5(plan.MachineCPU(spec, measured), spec, cachedMD5(cached))
}

// cachedRates are this host's single-core hashing speeds cached in cat
// (nil: none), everything cached by name, and the algos neither cached
// nor in spec.
func cachedRates(cat *catalog.Catalog, spec plan.CPUSpec, algos []hashing.Algo) (map[hashing.Algo]float64, map[string]float64, []hashing.Algo, error) {
	measured := map[hashing.Algo]float64{}
	var cached map[string]float64
	if cat != nil {
		host, _ := os.Hostname()
		var err error
		cached, _, err = cat.CPUBench(host, runtime.GOOS+"/"+runtime.GOARCH, time.Now().Add(-BenchmarkMaxAge))
		if err != nil {
			return nil, nil, nil, err
		}
		for name, v := range cached {
			if a, err := hashing.Parse(name); err == nil {
				measured[a] = v
			}
		}
	}
	var missing []hashing.Algo
	for _, a := range algos {
		if _, ok := measured[a]; !ok && spec.HashRates[a] == 0 && !contains(missing, a) {
			missing = append(missing, a)
		}
	}
	return measured, cached, missing, nil
}

func contains(list []hashing.Algo, a hashing.Algo) bool {
	for _, v := range list {
		if v == a {
			return true
		}
	}
	return false
}

// MarkThen makes the destinations at the --then paths a cascade's second
// run (Run 2).
func MarkThen(t *plan.Topology, then []string) error {
	for _, p := range then {
		hit := false
		for i := range t.Destinations {
			d := &t.Destinations[i]
			if d.Name == p || (d.Path != "" && Canon(d.Path) == Canon(p)) {
				d.Run, hit = 2, true
			}
		}
		if !hit {
			return fmt.Errorf("--then %s: not a destination of the topology (a cascade's second-run destination must be one)", p)
		}
	}
	return nil
}

// FillSizes sets the size and the file count of each source whose
// folder is here, for ETAs (a card whose file count is known is planned
// with its destinations' per-file and fixed costs), and what is left to
// read back when its copy ends (LeftToReadBack: its read-back ends its
// run).
func FillSizes(t *plan.Topology) {
	for i := range t.Sources {
		s := &t.Sources[i]
		if (s.Size > 0 && s.LastFile > 0 && s.Files > 0) || s.Path == "" {
			continue
		}
		var tail ReadBack
		files := 0
		err := filepath.WalkDir(s.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
				if fi, err := d.Info(); err == nil {
					tail.Add(fi.Size())
					files++
				}
			}
			return nil
		})
		if err == nil {
			if s.Size <= 0 {
				s.Size = tail.Bytes()
			}
			if s.Files <= 0 {
				s.Files = files
			}
			s.LastFile = tail.Left()
		}
	}
}

// JobPaths are a job's cards (their first run's), first-run destinations
// and a cascade's second-run destinations, from the catalog: what a
// resumed job is planned with.
func JobPaths(cat *catalog.Catalog, jobID int64) (cards, dests, then []string, err error) {
	ks, err := cat.Cards(jobID)
	if err != nil {
		return nil, nil, nil, err
	}
	ds, err := cat.Dests(jobID)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, k := range catalog.FirstRun(ks) {
		cards = append(cards, k.Path)
	}
	for _, d := range ds {
		if d.Hop == 2 {
			then = append(then, d.Path)
		} else {
			dests = append(dests, d.Path)
		}
	}
	return cards, dests, then, nil
}

// LeftToReadBack is what is left to read back of a card when its copy
// ends, its files' sizes in copy order given (plan.Source.LastFile):
// each file is read back once it is written, as fast as it was copied,
// so what is left is the most, over its files, of a file's size less
// the bytes copied after it (a card of clips and small sidecars: about
// its last clip).
func LeftToReadBack(sizes []int64) int64 {
	var r ReadBack
	for _, n := range sizes {
		r.Add(n)
	}
	return r.Left()
}

// ReadBack is LeftToReadBack of files given one at a time in the order
// they are copied, without holding them: what is left to read back of a
// file i once the last is copied is its size less the bytes copied
// after it, size(i) + copied(up to i) - copied(all); its most is kept.
type ReadBack struct{ bytes, most int64 }

// Add counts the next file copied, of size bytes.
func (r *ReadBack) Add(size int64) {
	r.bytes += size
	r.most = max(r.most, size+r.bytes)
}

// Bytes is the files' bytes so far.
func (r ReadBack) Bytes() int64 { return r.bytes }

// Left is LeftToReadBack of the files so far.
func (r ReadBack) Left() int64 { return max(r.most-r.bytes, 0) }
