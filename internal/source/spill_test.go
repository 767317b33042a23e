package source

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

// frames is n entries of a card of frames, in path order, some with a
// path longer than a block.
func frames(n int) []Entry {
	base := time.Unix(1700000000, 123456789)
	es := make([]Entry, n)
	for i := range es {
		rel := fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i)
		if i%2000 == 5 {
			rel = fmt.Sprintf("CLIPS/A%04d/%s%07d.dng", i/1000, strings.Repeat("l", pathBlock+30), i)
		}
		es[i] = Entry{Rel: rel, Size: int64(i%977) * 512, Mtime: base.Add(time.Duration(i) * time.Millisecond)}
	}
	return es
}

func spilled(t *testing.T, es []Entry) (*Files, string) {
	t.Helper()
	dir := t.TempDir()
	f := newSpilledFiles(dir)
	for _, e := range es {
		f.Add(e)
	}
	return f, dir
}

// A list kept on disk reads back as the same list held in memory, every
// way it is read, and leaves no file in the folder it spilled to (the
// file is unlinked when made).
func TestFilesSpilledReadsAsInMemory(t *testing.T) {
	n := refsPerChunk*groupLen + 7
	if raceOn {
		n = 30000 // still more blocks than the cache holds
	}
	want := frames(n)
	f, dir := spilled(t, want)
	require.Greater(t, f.Spilled(), spillCache, "the full blocks are on disk, more than the cache holds")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "the spill file is unlinked")

	// A pass in order reads each block back once.
	before := f.sp.reads.Load()
	seen := 0
	for i, e := range f.All() {
		requireEntry(t, want[i], e, i)
		seen++
	}
	require.Equal(t, len(want), seen)
	require.EqualValues(t, f.Spilled(), f.sp.reads.Load()-before, "a pass in order reads each spilled block once")
	requireSame(t, want, f)

	for range min(2000, n/50) { // in no order, across blocks
		i, j := rand.IntN(len(want)), rand.IntN(len(want))
		requireFile(t, want[i], f, i)
		require.Equal(t, strings.Compare(want[i].Rel, want[j].Rel), f.Compare(i, j))
		require.Equal(t, strings.Compare(want[i].Rel, want[j].Rel), f.ComparePath(i, want[j].Rel))
		require.Equal(t, len(want[i].Rel), f.PathLen(i))
	}
}

// Readers at once read a spilled list right (run with -race), also while
// it is read back into memory: the blocks they are handed are never
// written again.
func TestFilesSpilledReadAtOnce(t *testing.T) {
	want := frames(60000)
	f, _ := spilled(t, want)
	reads := 3000
	if raceOn {
		reads = 400
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range reads {
				i := r.IntN(len(want))
				if e := f.At(i); e.Rel != want[i].Rel || e.Size != want[i].Size || !e.Mtime.Equal(want[i].Mtime) {
					errs <- fmt.Errorf("file %d: %+v, want %+v", i, e, want[i])
					return
				}
			}
		})
	}
	wg.Go(f.Unspill) // back into memory while they read
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	require.Zero(t, f.Spilled())
	requireFile(t, want[len(want)/2], f, len(want)/2)
}

// A list that cannot be written to its folder is kept in memory, whole.
func TestFilesSpillThatCannotBeWrittenStaysInMemory(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "a file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600))
	want := frames(20000)
	f := newSpilledFiles(filepath.Join(notDir, "dit"))
	for _, e := range want {
		f.Add(e)
	}
	require.Zero(t, f.Spilled())
	requireSame(t, want, f)
}

// A card not walked in its paths' order is searched by path through a
// sort index made on its list read back into memory.
func TestPathIndexOfASpilledListInNoOrder(t *testing.T) {
	n := 30000
	if raceOn {
		n = 8000
	}
	want := frames(n)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
	f, _ := spilled(t, want)
	require.Positive(t, f.Spilled())
	x := NewPathIndex(f)
	require.Zero(t, f.Spilled(), "the sort reads the list in no order: back in memory")
	for i, e := range want {
		k, ok := x.Search(e.Rel)
		require.True(t, ok, e.Rel)
		require.Equal(t, i, x.At(k))
	}
	_, ok := x.Search("CLIPS/A0000/A0000000.dngx")
	require.False(t, ok)

	sorted := frames(n) // in order: searched on disk
	for i := range sorted {
		sorted[i].Rel = fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i)
	}
	g, _ := spilled(t, sorted)
	y := NewPathIndex(g)
	require.Equal(t, g.Spilled(), len(g.blocks)-1, "a list in path order stays on disk")
	for i, e := range sorted {
		k, ok := y.Search(e.Rel)
		require.True(t, ok, e.Rel)
		require.Equal(t, i, k)
		k, ok = y.Search(e.Rel + "\x00") // between it and the next
		require.False(t, ok)
		require.Equal(t, i+1, k)
	}
	for rel, want := range map[string]int{"": 0, "\xff": n, sorted[0].Rel[:5]: 0} {
		k, ok := y.Search(rel)
		require.False(t, ok, rel)
		require.Equal(t, want, k, rel)
	}
	// A search reads a block or two, whatever the list's length: the
	// blocks' first paths are held in memory.
	big := make([]Entry, 400000) // ~70 blocks
	for i := range big {
		big[i] = Entry{Rel: fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i), Size: int64(i)}
	}
	bg, _ := spilled(t, big)
	bx := NewPathIndex(bg)
	read := bg.sp.reads.Load()
	r := rand.New(rand.NewPCG(3, 3))
	const searches = 500
	for range searches {
		i := r.IntN(len(big))
		k, ok := bx.Search(big[i].Rel)
		require.True(t, ok)
		require.Equal(t, i, k)
	}
	require.LessOrEqual(t, bg.sp.reads.Load()-read, int64(2*searches), "blocks read back by %d searches", searches)
}

// A spilled list holds next to nothing a file in memory: the heap it
// keeps live is a small part of the same list's held in memory, and what
// Held says of it is what it keeps.
func TestFilesSpilledHeapFlat(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own")
	}
	es := frames(300000)
	for i := range es { // no long paths: a card of frames
		es[i].Rel = fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i)
	}
	live := func(build func() *Files) (int64, int) {
		runtime.GC()
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		f := build()
		for range f.All() { // the cache filled
		}
		runtime.GC()
		runtime.ReadMemStats(&b)
		held := f.Held()
		runtime.KeepAlive(f)
		return int64(b.HeapAlloc) - int64(a.HeapAlloc), held
	}
	inMem, heldMem := live(func() *Files { return FilesOf(es...) })
	onDisk, heldDisk := live(func() *Files { f, _ := spilled(t, es); return f })
	runtime.KeepAlive(es)
	t.Logf("300,000 frames: %d B live in memory (Held %d), %d B spilled (Held %d)", inMem, heldMem, onDisk, heldDisk)
	require.Greater(t, inMem, int64(2<<20), "the list in memory: ~11 B a file")
	require.Less(t, onDisk, inMem/4, "spilled: the cache, the block being filled and the group refs")
	require.Less(t, heldDisk, heldMem/4)
}

// Scan keeps the card's list on disk in the spill folder set.
func TestScanSpillsTheList(t *testing.T) {
	defer fsys.SetSpillDir(t.TempDir())()
	root := t.TempDir()
	var want []Entry
	for i := range 1500 { // ~100 B a path: ~650 a block
		rel := fmt.Sprintf("%04d_%s.R3D", i, strings.Repeat("名", 30))
		require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte(rel), 0o600))
		want = append(want, Entry{Rel: rel, Size: int64(len(rel))})
	}
	sc, err := Scan(fsys.OS{}, root, Options{})
	require.NoError(t, err)
	require.Positive(t, sc.Files.Spilled())
	require.Equal(t, len(want), sc.Files.Len())
	for i, e := range sc.Files.All() {
		require.Equal(t, want[i].Rel, e.Rel)
		require.Equal(t, want[i].Size, e.Size)
	}
	defer fsys.SetSpillDir("")()
	sc, err = Scan(fsys.OS{}, root, Options{})
	require.NoError(t, err)
	require.Zero(t, sc.Files.Spilled(), "no spill folder: in memory")
}
