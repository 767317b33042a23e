package offload

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// testCard writes files (rel -> content) under dir/label and sets mtimes.
func testCard(t testing.TB, dir, label string, files map[string]string) string {
	t.Helper()
	root := filepath.Join(dir, label)
	require.NoError(t, os.MkdirAll(root, 0o755))
	mt := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if content == "<dir>" {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	return root
}

func bigContent(n int, seed byte) string {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return string(b)
}

type env struct {
	t      *testing.T
	dir    string
	cat    *catalog.Catalog
	mu     sync.Mutex
	events []Event
}

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	t.Cleanup(func() { checkTotals(t, cat) }) // runs before the Close
	return &env{t: t, dir: dir, cat: cat}
}

func (e *env) dest(name string) string {
	p := filepath.Join(e.dir, name)
	require.NoError(e.t, os.MkdirAll(p, 0o755))
	return p
}

func (e *env) opts(cards, dests []string) Options {
	return Options{
		JobSpec: JobSpec{Name: "day01", Cards: cards, Dests: dests, Hashes: []hashing.Algo{hashing.MD5, hashing.XXH64}},
		Env:     Env{Catalog: e.cat, BlockSize: 64 << 10, Buffers: 4},
		Hooks:   Hooks{OnEvent: func(ev Event) { e.mu.Lock(); e.events = append(e.events, ev); e.mu.Unlock() }}}
}

func (e *env) run(o Options) (*Summary, error) {
	j, err := New(context.Background(), o)
	if err != nil {
		return nil, err
	}
	return j.Run(context.Background())
}

// treeHashes maps every regular file below root to its sha256, skipping
// dit's own lock file.
func treeHashes(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() && d.Name() != LockName {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = sha256.Sum256(b)
		}
		return nil
	}))
	return out
}

var _ = fsys.OS{}

// runUntilFiles runs a new job of o and interrupts it (as Ctrl-C does)
// once stop files have reached their final state; it returns the job.
func runUntilFiles(t *testing.T, o Options, stop int) *Job {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile {
			if seen++; seen == stop {
				cancel()
			}
		}
	}
	j, err := New(ctx, o)
	require.NoError(t, err)
	_, _ = j.Run(ctx)
	return j
}
