package fsys

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// On macOS F_NOCACHE does not evict pages already cached: a copy just
// written would be "read back" from memory. OpenNoCache must evict them.
func TestOpenNoCacheDropsPagesDarwin(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.mov")
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	w, err := OS{}.CreateTemp(dir, "x*")
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	require.NoError(t, w.Close())
	require.NoError(t, os.Rename(w.Name(), p))
	require.Greater(t, resident(t, p), 0, "just written: cached")

	f, err := OS{}.OpenNoCache(p)
	require.NoError(t, err)
	require.Equal(t, 0, resident(t, p), "evicted before the read-back")
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, data, got)
}
