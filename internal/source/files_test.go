package source

import (
	"fmt"
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
