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
// and its order of paths (1+nd and 4 bytes a file), not the files' paths
// and entries again (32 bytes and the path's a file, ~90 here), so the
// scan's list and the plan are never both held at the peak.
func TestPlanListNotBesideTheScan(t *testing.T) {
	const n, nd = 200000, 2
	files := &source.Files{}
	mt := time.Unix(1764800000, 0)
	for i := range n {
		files.Add(source.Entry{Rel: fmt.Sprintf("DCIM/A001C%03d/A001C%03d_%07d.dng", i/1000, i/1000, i), Size: 512, Mtime: mt})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := newPlanList(files, nd)
	runtime.ReadMemStats(&after)
	perFile := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("making the plan allocated %.1f bytes a file", perFile)
	if !raceOn { // the race detector's checks allocate on their own
		require.LessOrEqual(t, perFile, float64(4+1+nd+4), "bytes allocated a file to make the plan: its marks and order only, not a copy of the scan's list")
	}
	require.Equal(t, n, l.len())
	require.Equal(t, files.Rel(n-1), l.rel(n-1))
	require.True(t, l.has(files.Rel(12345)))
	runtime.KeepAlive(files)
}
