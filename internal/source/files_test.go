package source

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A card's files come back as they were added, across the blocks the
// list is kept in (more files than a block of entries, paths longer than
// a block of paths).
func TestFilesKeepsEveryEntry(t *testing.T) {
	var want []Entry
	f := &Files{}
	base := time.Unix(1700000000, 123456789)
	for i := range 3*entsPerBlock + 7 {
		rel := fmt.Sprintf("CLIPS/A%04d/A%07d.dng", i/1000, i)
		if i%1000 == 5 {
			rel = strings.Repeat("long/", pathBlock/5+3) + rel // longer than a block of paths
		}
		e := Entry{Rel: rel, Size: int64(i * 512), Mtime: base.Add(time.Duration(i) * time.Millisecond)}
		want = append(want, e)
		f.Add(e)
	}
	require.Equal(t, len(want), f.Len())
	for i, e := range f.All() {
		require.Equal(t, want[i].Rel, e.Rel)
		require.Equal(t, want[i].Size, e.Size)
		require.True(t, want[i].Mtime.Equal(e.Mtime), "file %d: %v, want %v", i, e.Mtime, want[i].Mtime)
		require.Equal(t, want[i].Rel, string(f.Path(i)))
		require.Equal(t, want[i].Size, f.Size(i))
	}
	var none *Files
	require.Zero(t, none.Len())
	for range none.All() {
		t.Fatal("a nil list has no files")
	}
}

// A card of 200,000 frames is held in ~32 bytes a file plus its path's,
// not a string and an Entry a file (~120 bytes beside the path's).
func TestFilesCompact(t *testing.T) {
	const n = 200000
	mt := time.Unix(1764800000, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := &Files{}
	paths := 0
	for i := range n {
		rel := fmt.Sprintf("DCIM/A001C%03d/A001C%03d_%07d.dng", i/1000, i/1000, i)
		paths += len(rel)
		f.Add(Entry{Rel: rel, Size: 512, Mtime: mt})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("%.1f bytes held a file (paths of %.1f bytes)", held, float64(paths)/n)
	require.LessOrEqual(t, held, 32+float64(paths)/n+8, "bytes held a file")
	require.Equal(t, n, f.Len())
	runtime.KeepAlive(f)
}
