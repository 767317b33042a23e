package offload

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/source"
)

// A card's plan is made on the scan's own list, never beside a copy of
// it: making the plan of a card of 200,000 frames allocates its marks
// (1+nd bytes a file) and, when the scan's order is not its paths' byte
// order, that order (4 bytes a file), not the files' paths and entries
// again (32 bytes and the path's a file, ~90 here), so the scan's list
// and the plan are never both held at the peak. Either way it finds
// each of the card's paths and no other.
func TestPlanListNotBesideTheScan(t *testing.T) {
	if raceOn {
		t.Skip("one goroutine, and bytes allocated mean nothing under the race detector: go test without -race runs it")
	}
	const n, nd = 200000, 2
	for _, tc := range []struct {
		name  string
		order func(i int) int // the file the scan finds i-th
		bound float64         // bytes allocated a file
	}{
		{"frames in path order", func(i int) int { return i }, 1 + nd + 1},
		{"paths out of order", func(i int) int { return (i * 7919) % n }, 4 + 1 + nd + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := &source.Files{}
			mt := time.Unix(1764800000, 0)
			rel := func(i int) string { return fmt.Sprintf("DCIM/A001C%03d/A001C%03d_%07d.dng", i/1000, i/1000, i) }
			for i := range n {
				files.Add(source.Entry{Rel: rel(tc.order(i)), Size: 512, Mtime: mt})
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			l := newPlanList(files, nd)
			runtime.ReadMemStats(&after)
			perFile := float64(after.TotalAlloc-before.TotalAlloc) / n
			t.Logf("making the plan allocated %.1f bytes a file", perFile)
			require.LessOrEqual(t, perFile, tc.bound, "bytes allocated a file to make the plan: its marks (and order), not a copy of the scan's list")
			require.Equal(t, n, l.len())
			require.Equal(t, files.Rel(n-1), l.rel(n-1))
			for i := 0; i < n; i += 997 {
				require.True(t, l.has(rel(i)), rel(i))
				require.False(t, l.has(rel(i)+"x"), rel(i)+"x")
			}
			require.False(t, l.has(""))
			require.False(t, l.has("DCIM/A001C199/A001C199_0200000.dng"), "after the last")
			runtime.KeepAlive(files)
		})
	}
}
