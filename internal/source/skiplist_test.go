package source

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/stretchr/testify/require"
)

// A Skips gives back every entry, in the order added, with its own kind
// and reason, names of any kind included.
func TestSkipsRoundTrip(t *testing.T) {
	var want []Skipped
	kinds := []Skipped{
		{Kind: "metadata", Reason: "AppleDouble resource fork (copy it with --include-hidden)"},
		{Kind: "unreadable", Reason: "permission denied"},
		{Kind: "unreadable", Reason: "cannot list folder: permission denied"},
		{Kind: "ignored", Reason: ""},
		{Kind: "symlink", Reason: "symbolic link, not followed"},
	}
	names := []string{"._A001C001.mov", "caf\u00e9/x", "cafe\u0301/x", "📽️/🎬.ari", "素材/カード.mxf", "", "a"}
	for i := range 2000 {
		k := kinds[(i*7)%len(kinds)]
		k.Rel = fmt.Sprintf("CLIPS/%s/%05d", names[i%len(names)], i)
		want = append(want, k)
	}
	for _, dir := range []string{"", t.TempDir()} {
		s := newSkips(dir)
		for _, k := range want {
			s.Add(k.Rel, k.Kind, k.Reason)
		}
		require.Equal(t, len(want), s.Len())
		require.Equal(t, want, slices.Collect(s.All()))
		require.Len(t, s.why, len(kinds), "each kind and reason held once")
	}
	var zero Skips
	require.Zero(t, zero.Len())
	require.Empty(t, slices.Collect(zero.All()))
	zero.Add("._x", "metadata", "why")
	require.Equal(t, []Skipped{{Rel: "._x", Kind: "metadata", Reason: "why"}}, slices.Collect(zero.All()))
	var none *Skips
	require.Zero(t, none.Len())
}

// A card with a "._" file beside each of 300,000 frames: its skipped
// entries are held in a few bytes each, not a path and a reason each.
func TestSkipsHeapFlat(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own")
	}
	const n = 300000
	reason := "AppleDouble resource fork (copy it with --include-hidden)"
	live := func(dir string) int64 {
		runtime.GC()
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		s := newSkips(dir)
		for i := range n {
			s.Add(fmt.Sprintf("CLIPS/A%04d/._A%07d.dng", i/1000, i), "metadata", reason+"")
		}
		got := 0
		for range s.All() {
			got++
		}
		require.Equal(t, n, got)
		runtime.GC()
		runtime.ReadMemStats(&b)
		runtime.KeepAlive(s)
		return int64(b.HeapAlloc) - int64(a.HeapAlloc)
	}
	inMem, onDisk := live(""), live(t.TempDir())
	t.Logf("%d skipped entries: %.1f B an entry in memory, %.1f spilled", n, float64(inMem)/n, float64(onDisk)/n)
	require.Less(t, inMem, int64(20*n), "front-coded paths, reasons by number")
	require.Less(t, onDisk, int64(4*n), "the paths' full blocks on disk")
}

// Scan records each skipped entry with its kind and reason, a card's
// skipped paths spilled with its files.
func TestScanSkipsSpilled(t *testing.T) {
	defer fsys.SetSpillDir(t.TempDir())()
	root := t.TempDir()
	want := map[string]string{}
	for i := range 3000 {
		name := fmt.Sprintf("A%04d_%s.ari", i, "素材素材素材素材素材素材素材素材")
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte("f"), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(root, "._"+name), []byte("m"), 0o600))
		want["._"+name] = "metadata"
	}
	sc, err := Scan(fsys.OS{}, root, Options{})
	require.NoError(t, err)
	require.Equal(t, 3000, sc.Files.Len())
	require.Equal(t, 3000, sc.Skipped.Len())
	require.Positive(t, sc.Skipped.paths.Spilled(), "the skipped paths on disk")
	got := map[string]string{}
	for s := range sc.Skipped.All() {
		got[s.Rel] = s.Kind
		require.Contains(t, s.Reason, "--include-hidden")
	}
	require.Equal(t, want, got)
}
