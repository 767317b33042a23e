package offload

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Paged marks read as a slice of them would, in order and out of it,
// and pages are written to disk and read back; a folder that cannot be
// written keeps them all in memory with the same values.
func TestPlanMarksPagedReadAsInMemory(t *testing.T) {
	defer func(p int) { markPage = p }(markPage)
	markPage = 128
	const n = 10000
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "file-not-folder")} {
		if filepath.Base(dir) == "file-not-folder" {
			require.NoError(t, os.WriteFile(dir, nil, 0o600)) // MkdirAll fails: nowhere to write
		}
		m := newPlanMarks(n, dir)
		require.Nil(t, m.mem, "paged")
		want := make([]uint8, n)
		rng := rand.New(rand.NewPCG(7, uint64(len(dir))))
		written := markPagesWritten.Load()
		for k := range 3 * n {
			i := k % n // in order, then out of it
			if k >= n {
				i = rng.IntN(n)
			}
			v := uint8(rng.Uint32())
			if k%2 == 0 {
				m.set(i, v)
				want[i] = v
			} else {
				m.or(i, v)
				want[i] |= v
			}
			require.Equal(t, want[i], m.get(i))
		}
		for i := range n {
			require.Equal(t, want[i], m.get(i), "mark %d", i)
		}
		if filepath.Base(dir) == "file-not-folder" {
			require.True(t, m.held, "nowhere to write: kept in memory")
			require.Equal(t, n/markPage*markPage+markPage, m.heldBytes())
		} else {
			require.Positive(t, markPagesWritten.Load()-written)
			require.LessOrEqual(t, m.heldBytes(), markPagesKept*markPage)
		}
	}
	require.NotNil(t, newPlanMarks(n, "").mem, "no folder: in memory")
	require.NotNil(t, newPlanMarks(markPagesKept*markPage, t.TempDir()).mem, "what fits the pages kept: in memory")
}

// Marks are set and read from several goroutines at once (run under
// -race by make test).
func TestPlanMarksAtOnce(t *testing.T) {
	defer func(p int) { markPage = p }(markPage)
	markPage = 64
	const n = 4096
	m := newPlanMarks(n, t.TempDir())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				m.or(i, uint8(1<<g))
			}
		}()
	}
	wg.Wait()
	for i := range n {
		require.Equal(t, uint8(1<<(i%4)), m.get(i))
	}
}
