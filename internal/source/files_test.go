package source

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireSame checks that f holds want, read every way: in order (All),
// and file by file (Path, AppendPath after other bytes, Rel, Size, At).
func requireSame(t *testing.T, want []Entry, f *Files) {
	t.Helper()
	require.Equal(t, len(want), f.Len())
	n := 0
	for i, e := range f.All() {
		require.Equal(t, n, i)
		requireEntry(t, want[i], e, i)
		n++
	}
	require.Equal(t, len(want), n)
	for i := range want {
		requireFile(t, want[i], f, i)
	}
}

func requireEntry(t *testing.T, want, got Entry, i int) {
	t.Helper()
	require.Equal(t, want.Rel, got.Rel, "file %d", i)
	require.Equal(t, want.Size, got.Size, "file %d: %q", i, want.Rel)
	require.True(t, want.Mtime.Equal(got.Mtime), "file %d (%q): %v, want %v", i, want.Rel, got.Mtime, want.Mtime)
}

func requireFile(t *testing.T, want Entry, f *Files, i int) {
	t.Helper()
	requireEntry(t, want, f.At(i), i)
	require.Equal(t, want.Rel, string(f.Path(i)))
	require.Equal(t, "x/"+want.Rel, string(f.AppendPath([]byte("x/"), i)))
	require.Equal(t, want.Rel, f.Rel(i))
	require.Equal(t, want.Size, f.Size(i))
}

// A card's files come back as they were added, across the groups and
// blocks the list is kept in (more files than a chunk of groups, paths
// longer than a block).
func TestFilesKeepsEveryEntry(t *testing.T) {
	if raceOn {
		t.Skip("one goroutine: run by go test without -race")
	}
	var want []Entry
	f := &Files{}
	base := time.Unix(1700000000, 123456789)
	for i := range refsPerChunk*groupLen + 7 {
		rel := fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i)
		if i%1000 == 5 {
			rel = strings.Repeat("long/", pathBlock/5+3) + rel // longer than a block
		}
		e := Entry{Rel: rel, Size: int64(i * 512), Mtime: base.Add(time.Duration(i) * time.Millisecond)}
		want = append(want, e)
		f.Add(e)
	}
	requireSame(t, want, f)
	var none *Files
	require.Zero(t, none.Len())
	for range none.All() {
		t.Fatal("a nil list has no files")
	}
}

// Every kind of path, size and time comes back whole: Unicode in both
// normal forms, emoji, CJK, names of 255 bytes, deep paths, a path that
// shares nothing with the one before, sizes from 0 to 2^62 and the
// largest, times before 1970, far apart, going back, with nanoseconds.
func TestFilesRoundTripsEveryKind(t *testing.T) {
	name255 := strings.Repeat("n", 251) + ".ari"
	deep := strings.Repeat("deep folder/", 300) + "f.dng" // 3,605 bytes
	rels := []string{
		"A001/Café.mov",            // NFC: é one rune
		"A001/Cafe\u0301.mov",      // NFD: e and a combining accent
		"A001/Cafe\u0301.movx",     // shares the NFD path
		"A001/🎬 take 1 👩‍👩‍👧.braw", // emoji, a joined sequence
		"A001/撮影/カット01/素材.mxf",     // CJK
		"A001/" + name255,
		"A001/" + name255[:254] + "m",
		deep,
		deep + "x",
		"B", // shares nothing with the one before
		"",
		"C/ü/ü/ü",
		"B",
		"\x00\xff/invalid utf-8 \xc3",
		"A001/Café.mov",
	}
	sizes := []int64{0, 1, 1 << 62, math.MaxInt64, 0, 512, 511, 1 << 40, 3, math.MaxInt64, 0, 1, 2, 1 << 62, 0}
	times := []time.Time{
		time.Unix(-1, 999999999),       // just before 1970
		time.Unix(-86400*365*70, 1),    // 1900
		time.Unix(1764800000, 5),       // far after
		time.Unix(1764800000, 4),       // back a nanosecond
		time.Unix(1764799999, 0),       // back a second and more
		time.Unix(0, 0),                // 1970
		time.Unix(-62135596800, 0),     // year 1 (the zero time's instant)
		time.Unix(253402300799, 1e9-1), // the end of year 9999
		time.Unix(253402300799, 1e9-1), // the same
		time.Unix(1<<32, 7),            // 2^32 seconds on
		time.Unix(-(1 << 32), 7),
		time.Unix(1764800000, 123456789),
		time.Unix(1764800000, 123456789+1000),
		time.Unix(1764800001, 12),
		time.Unix(-5, 500),
	}
	var want []Entry
	// Each kind at every place in a group (the first codes against
	// nothing, the others against the file before).
	for round := range groupLen + 1 {
		for i, rel := range rels {
			want = append(want, Entry{Rel: rel, Size: sizes[(i+round)%len(sizes)], Mtime: times[(i+2*round)%len(times)]})
		}
	}
	requireSame(t, want, FilesOf(want...))
}

// Files read in any order are those read in order, and any number of
// goroutines may read them at once (go test -race).
func TestFilesRandomAccess(t *testing.T) {
	f, want := frameCard(20*groupLen+3, 512, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(len(want)) {
		requireFile(t, want[i], f, i)
	}
	var wg sync.WaitGroup
	bad := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 4000 {
				i := r.IntN(len(want))
				if p, e := f.Path(i), f.At(i); string(p) != want[i].Rel || e.Rel != want[i].Rel || f.Size(i) != want[i].Size {
					bad <- fmt.Sprintf("goroutine %d: file %d read %q, want %q", g, i, p, want[i].Rel)
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for s := range bad {
		t.Error(s)
	}
}

// frameCard is a card of n frames as a camera writes them (clip folders
// of 1,000 frames, each frame written a few hundred microseconds after
// the one before), of size bytes each, give or take up to jitter.
func frameCard(n int, size, jitter int64) (*Files, []Entry) {
	rng := rand.New(rand.NewPCG(7, 7))
	f := &Files{}
	var es []Entry
	t := time.Unix(1764800000, 0)
	for i := range n {
		clip := fmt.Sprintf("A001C%03d_230101_R1AB", i/1000+1)
		t = t.Add(time.Duration(100+rng.IntN(900)) * time.Microsecond)
		sz := size
		if jitter > 0 {
			sz += rng.Int64N(2*jitter) - jitter
		}
		e := Entry{Rel: fmt.Sprintf("%s/%s.%07d.ari", clip, clip, i%1000), Size: sz, Mtime: t}
		f.Add(e)
		if es != nil || n <= 100000 {
			es = append(es, e)
		}
	}
	return f, es
}

// A card of a million frames is held in ~14 bytes a file, whatever its
// paths' length (52 bytes here): the blocks the list holds, and the heap
// it takes (not a string, an Entry nor a whole path a file).
func TestFilesCompact(t *testing.T) {
	if raceOn {
		t.Skip("one goroutine: run by go test without -race")
	}
	const n = 1000000
	for _, c := range []struct {
		name         string
		size, jitter int64
		most         float64 // bytes a file
	}{
		{"frames of 512 bytes", 512, 0, 14},
		{"frames of ~12 MB, each its own size", 12 << 20, 1 << 20, 16.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f, _ := frameCard(n, c.size, c.jitter)
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
			held := float64(f.Held()) / n
			t.Logf("%.2f bytes a file held in the list's blocks, %.2f in the heap (paths of 52 bytes)", held, heap)
			require.LessOrEqual(t, held, c.most, "bytes a file in the blocks")
			require.LessOrEqual(t, heap, c.most+1, "bytes a file in the heap")
			require.Equal(t, n, f.Len())
			runtime.KeepAlive(f)
		})
	}
}

// BenchmarkFilesPath is the cost of reading one file's path at random
// (the offload's plan sorts the card's paths and looks paths up in them).
func BenchmarkFilesPath(b *testing.B) {
	f, _ := frameCard(100000, 512, 0)
	var buf []byte
	b.ResetTimer()
	for i := range b.N {
		buf = f.AppendPath(buf[:0], (i*7919)%f.Len())
	}
}

// Paths are ordered and measured as bytes.Compare and len of their Path
// order and measure them, without allocating (the offload's plan sorts a
// card's files by path and looks paths up in them).
func TestFilesCompareWithoutAllocating(t *testing.T) {
	rels := []string{"B/b", "A/b", "A/a", "A", "", "A/a", "A.b", "A/" + strings.Repeat("x", pathRoom+10), "é", "e\u0301"}
	var want []Entry
	for _, r := range rels {
		want = append(want, Entry{Rel: r})
	}
	f := FilesOf(want...)
	for i, a := range rels {
		require.Equal(t, len(a), f.PathLen(i))
		for j, b := range rels {
			require.Equal(t, strings.Compare(a, b), f.Compare(i, j), "%q against %q", a, b)
			require.Equal(t, strings.Compare(a, b), f.ComparePath(i, b), "%q against %q", a, b)
		}
	}
	if raceOn {
		t.Skip("the race detector allocates on its own")
	}
	fc, _ := frameCard(1000, 512, 0)
	rel := fc.Rel(500)
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 64 {
			fc.Compare(i, 999-i)
			fc.ComparePath(i*7, rel)
			fc.PathLen(i * 3)
		}
	})
	require.Zero(t, allocs, "allocations comparing paths")
}
