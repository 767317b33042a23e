package recheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/summary"
)

// recordedMany records, in a real catalog, a finished job (md5 and
// xxh64) that copied card A001's files (sizes[i] bytes each, C000.mov
// on) to nDests folders and verified them there, and writes the copies;
// it returns the catalog, the job, and the copies' paths, a file's on
// The tests' folders are on whatever disk the machine has (a VM's
// virtio disk says it spins): which destination spins is a test's to
// say.
func notSpinning(string) bool { return false }

func init() { rotational = notSpinning }

// each destination in turn, in the catalog's order.
func recordedMany(t *testing.T, nDests int, sizes []int) (*catalog.Catalog, *catalog.Job, []string) {
	t.Helper()
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "dit.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "day01", State: catalog.JobDone, Hashes: "md5,xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{card}", MHL: "none", Started: time.Now()}
	require.NoError(t, cat.CreateJob(j))
	var dests []*catalog.Dest
	for i := range nDests {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: filepath.Join(dir, fmt.Sprintf("raid%d", i))}
		require.NoError(t, cat.AddDest(d))
		dests = append(dests, d)
	}
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: filepath.Join(dir, "A001"), State: summary.StateVerified}
	require.NoError(t, cat.AddCard(k))
	var paths []string
	for i, size := range sizes {
		content := make([]byte, size)
		for b := range content {
			content[b] = byte(b*7 + i + b>>10)
		}
		rel := fmt.Sprintf("C%03d.mov", i)
		sums := hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, content)
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: int64(size), Mtime: time.Now(), State: summary.StateVerified, Sums: sums})
		for _, d := range dests {
			cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: "A001/" + rel, State: summary.StateVerified, Written: true, VerifyAlgos: "xxh64", VerifiedAt: time.Now()})
			p := filepath.Join(d.Path, "A001", rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, content, 0o644))
			paths = append(paths, p)
		}
	}
	require.NoError(t, cat.Flush())
	return cat, j, paths
}

// gateFS counts the copies open for read-back, a destination's (by the
// root its path starts with) and in all, and the most at once; each
// open is sent on opened. A copy's reads wait until its release is
// closed (nil: at once).
type gateFS struct {
	fsys.FS
	roots  []string
	opened chan *gateFile
	// release, if set, is the release of the next copy opened.
	release func() chan struct{}

	mu          sync.Mutex
	open, high  []int
	all, allMax int
}

type gateFile struct {
	fsys.File
	g       *gateFS
	name    string
	dest    int
	release chan struct{}
}

func newGateFS(roots []string) *gateFS {
	return &gateFS{FS: fsys.OS{}, roots: roots, open: make([]int, len(roots)), high: make([]int, len(roots)), opened: make(chan *gateFile, 10000)}
}

func (g *gateFS) OpenNoCache(name string) (fsys.File, error) {
	f, err := g.FS.OpenNoCache(name)
	if err != nil {
		return nil, err
	}
	d := -1
	for i, r := range g.roots {
		if strings.HasPrefix(name, r+string(filepath.Separator)) {
			d = i
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gf := &gateFile{File: f, g: g, name: name, dest: d}
	if g.release != nil {
		gf.release = g.release()
	}
	g.open[d]++
	g.high[d] = max(g.high[d], g.open[d])
	g.all++
	g.allMax = max(g.allMax, g.all)
	g.opened <- gf
	return gf, nil
}

// current is how many copies are open now.
func (g *gateFS) current() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.all
}

func (f *gateFile) Read(b []byte) (int, error) {
	if f.release != nil {
		<-f.release
	}
	return f.File.Read(b)
}

func (f *gateFile) Close() error {
	f.g.mu.Lock()
	f.g.open[f.dest]--
	f.g.all--
	f.g.mu.Unlock()
	return f.File.Close()
}

// dit verify reads a destination's copies back several at once (no copy
// is read until FilesInFlight of them are open), and still finds and
// names every copy that differs, reporting and recording each copy in
// the catalog's order, as one read after another did: 40 files of 0
// bytes to 9 MiB on two folders, a byte flipped in two of the 80
// copies, every hash recomputed (md5 in the lanes).
func TestManyCopiesReadBackAtOnceFindEveryMismatch(t *testing.T) {
	var sizes []int
	for i := range 40 {
		sizes = append(sizes, []int{0, 1, 100, 4096, 65537, 1<<20 + 3, 300000, 2 << 20}[i%8]+i)
	}
	sizes[7], sizes[23] = 9<<20+5, 5<<20
	cat, j, paths := recordedMany(t, 2, sizes)
	bad := map[string]bool{paths[2*23]: true, paths[2*31+1]: true} // C023 on the first, C031 on the second
	for p := range bad {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		b[len(b)/2] ^= 0x40
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	g := newGateFS(nil)
	g.roots = []string{filepath.Dir(filepath.Dir(paths[0])), filepath.Dir(filepath.Dir(paths[1]))}
	g.open, g.high = make([]int, 2), make([]int, 2)
	all := make(chan struct{})
	opened := 0
	g.release = func() chan struct{} {
		// (Called under g's lock: one open at a time.)
		if opened++; opened == FilesInFlight {
			close(all)
		}
		return all
	}
	var got []Result
	ok, err := JobWith(context.Background(), cat, g, j.ID, Options{All: true, OnResult: func(r Result) { got = append(got, r) }})
	require.NoError(t, err)
	require.False(t, ok)
	require.GreaterOrEqual(t, g.allMax, FilesInFlight)
	require.Len(t, got, len(paths))
	for i, r := range got {
		require.Equal(t, paths[i], r.Path, "result %d in the catalog's order", i)
		if bad[r.Path] {
			require.Equal(t, summary.StateFailed, r.State, r.Path)
			require.Contains(t, r.Error, "md5 differs", r.Path)
		} else {
			require.Equal(t, Result{Card: "A001", Path: paths[i], State: summary.StateVerified}, r)
		}
	}
	cards, err := cat.Cards(j.ID)
	require.NoError(t, err)
	files, err := cat.Files(cards[0].ID)
	require.NoError(t, err)
	failed := map[string]string{}
	for _, f := range files {
		if f.State == summary.StateFailed {
			failed[f.Rel] = f.Error
		}
	}
	require.Len(t, failed, 2)
	require.Contains(t, failed["C023.mov"], "dit verify: copy at "+paths[2*23])
	require.Contains(t, failed["C031.mov"], "dit verify: copy at "+paths[2*31+1])
}

// dit verify reads at most FilesInFlight copies of a destination back
// at once, and at most MaxInFlight in all: every copy opened is held
// unread until as many are open as the bound allows, then the first in
// the catalog's order is let go, one at a time; the most open at once is the bound, on two
// destinations (FilesInFlight each) and on five (MaxInFlight/5 each).
func TestCopiesReadBackAtOnceAreBounded(t *testing.T) {
	for _, c := range []struct{ nDests, spinning int }{{2, -1}, {5, -1}} {
		nDests := c.nDests
		t.Run(fmt.Sprint(nDests, " destinations"), func(t *testing.T) {
			sizes := make([]int, 40)
			for i := range sizes {
				sizes[i] = 1000 + i
			}
			cat, j, paths := recordedMany(t, nDests, sizes)
			var roots []string
			for _, p := range paths[:nDests] {
				roots = append(roots, filepath.Dir(filepath.Dir(p)))
			}
			each := max(1, min(FilesInFlight, MaxInFlight/nDests))
			bound := make([]int, nDests)
			for d := range bound {
				bound[d] = each
			}
			all := 0
			for _, b := range bound {
				all += b
			}
			g := newGateFS(roots)
			g.release = func() chan struct{} { return make(chan struct{}) }
			type outcome struct {
				ok  bool
				err error
			}
			done := make(chan outcome, 1)
			n := 0
			go func() {
				ok, err := JobWith(context.Background(), cat, g, j.ID, Options{OnResult: func(Result) { n++ }})
				done <- outcome{ok, err}
			}()
			order := map[string]int{}
			for i, p := range paths {
				order[p] = i
			}
			var held []*gateFile
			opened := 0
			for opened < len(paths) {
				f := <-g.opened
				opened++
				held = append(held, f)
				if g.current() >= all && opened < len(paths) {
					// Every slot's copy is open: the first in the
					// catalog's order goes (the copies start in that
					// order, but open in any).
					first := 0
					for i, h := range held {
						if order[h.name] < order[held[first].name] {
							first = i
						}
					}
					close(held[first].release)
					held = append(held[:first], held[first+1:]...)
				}
			}
			for _, f := range held {
				close(f.release)
			}
			o := <-done
			require.NoError(t, o.err)
			require.True(t, o.ok)
			require.Equal(t, len(paths), n)
			for d := range nDests {
				require.Equal(t, bound[d], g.high[d], "destination %d", d)
			}
			require.Equal(t, all, g.allMax)
		})
	}
}

// A destination on a spinning disk (fsys.Rotational) is read one copy
// at a time, the others FilesInFlight at once.
func TestASpinningDestinationIsReadOneCopyAtATime(t *testing.T) {
	dir := t.TempDir()
	dests := []*catalog.Dest{{ID: 1, Path: filepath.Join(dir, "hdd")}, {ID: 2, Path: filepath.Join(dir, "ssd")}}
	rotational = func(p string) bool { return p == dests[0].Path }
	defer func() { rotational = notSpinning }()
	r := &rechecker{valgos: []hashing.Algo{hashing.XXH64}, onProgress: func(Progress) {}}
	r.startPool(dests)
	defer r.stopPool()
	require.Equal(t, 1, r.pool.Free(r.groups[1]), "the spinning disk")
	require.Equal(t, FilesInFlight, r.pool.Free(r.groups[2]))
}
