package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// frames is a card of n small frames (size bytes each) in one folder.
func frames(t testing.TB, dir string, n, size int) string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("FRAMES/F%04d.dng", i)] = bigContent(size, byte(i))
	}
	return testCard(t, dir, "A001", files)
}

// Copies of a frame sequence are made durable several at a time (their
// fsyncs share the filesystem's journal commits), and a copy whose fsync
// fails fails alone: nothing under its name, every other frame verified
// and identical.
func TestFramesCommitSeveralAtOnce(t *testing.T) {
	e := newEnv(t)
	card := frames(t, e.dir, 120, 8<<10)
	d1 := e.dest("d1")
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: "F0077.dng", SyncErr: syscall.EIO})
	f.Add(fsys.Fault{Match: string(filepath.Separator) + "FRAMES", SyncDelay: 2 * time.Millisecond})
	o := e.opts([]string{card}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.Greater(t, f.MaxConcurrentSyncs(), 1, "frames committed one after the other")
	c := s.Cards[0]
	require.Len(t, c.Failures, 1)
	require.Contains(t, c.Failures[0].Error, "F0077.dng")
	require.Contains(t, c.Failures[0].Error, "input/output error")
	require.False(t, c.SafeToFormat)
	out := filepath.Join(d1, "day01", "A001", "FRAMES")
	_, err = os.Lstat(filepath.Join(out, "F0077.dng"))
	require.ErrorIs(t, err, os.ErrNotExist)
	want := treeHashes(t, filepath.Join(card, "FRAMES"))
	got := treeHashes(t, out)
	delete(want, "F0077.dng")
	require.Equal(t, want, got, "every other frame identical, and no temp left")
	verified := 0
	for _, ev := range e.events {
		if ev.Type == EvFile && ev.State == StateVerified {
			verified++
		}
	}
	require.Equal(t, 119, verified)
}

// BenchmarkFramesSlowFlush offloads 200 frames of 64 KiB to a destination
// that takes 2 ms to flush each file (a USB disk, an SD card): the copies
// committed one after the other (serial) against several at once.
func BenchmarkFramesSlowFlush(b *testing.B) {
	dir := b.TempDir()
	card := frames(b, dir, 200, 64<<10)
	for _, par := range []int{1, commitParallel} {
		b.Run(fmt.Sprintf("commits=%d", par), func(b *testing.B) {
			defer func(p int) { commitParallel = p }(commitParallel)
			commitParallel = par
			for b.Loop() {
				run, err := os.MkdirTemp(dir, "run")
				require.NoError(b, err)
				cat, err := catalog.Open(filepath.Join(run, "catalog.db"))
				require.NoError(b, err)
				d1 := filepath.Join(run, "d1")
				require.NoError(b, os.MkdirAll(d1, 0o755))
				f := fsys.NewFaulty(fsys.OS{})
				f.Add(fsys.Fault{Match: string(filepath.Separator) + "FRAMES", SyncDelay: 2 * time.Millisecond})
				o := Options{Name: "day01", Cards: []string{card}, Dests: []string{d1}, Catalog: cat, FS: f,
					Hashes: []hashing.Algo{hashing.MD5, hashing.XXH64}}
				j, err := New(context.Background(), o)
				require.NoError(b, err)
				s, err := j.Run(context.Background())
				require.NoError(b, err)
				require.True(b, s.Cards[0].SafeToFormat)
				cat.Close()
			}
		})
	}
}
