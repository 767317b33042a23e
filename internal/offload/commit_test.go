package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// Where frames are fsynced one by one (a filesystem without syncfs, and
// clips everywhere) several are made durable at a time (their fsyncs
// share the filesystem's journal commits), and a copy whose fsync fails
// fails alone: nothing under its name, every other frame verified and
// identical.
func TestFramesCommitSeveralAtOnce(t *testing.T) {
	defer func(m int64) { batchSyncMax = m }(batchSyncMax)
	batchSyncMax = 0
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
	requireFramesButOne(t, e, s, card, d1, "F0077.dng")
}

// requireFramesButOne checks a frames job in which frame bad failed: the
// job says so and the card is not safe to format, nothing is under the
// frame's name, every other frame is verified and identical, and no temp
// is left.
func requireFramesButOne(t *testing.T, e *env, s *Summary, card, d1, bad string) {
	t.Helper()
	c := s.Cards[0]
	require.Len(t, c.Failures, 1)
	require.Contains(t, c.Failures[0].Error, bad)
	require.Contains(t, c.Failures[0].Error, "input/output error")
	require.False(t, c.SafeToFormat)
	out := filepath.Join(d1, "day01", "A001", "FRAMES")
	_, err := os.Lstat(filepath.Join(out, bad))
	require.ErrorIs(t, err, os.ErrNotExist)
	want := treeHashes(t, filepath.Join(card, "FRAMES"))
	got := treeHashes(t, out)
	delete(want, bad)
	require.Equal(t, want, got, "every other frame identical, and no temp left")
	verified := 0
	for _, ev := range e.events {
		if ev.Type == EvFile && ev.State == StateVerified {
			verified++
		}
	}
	require.Equal(t, len(want), verified)
}

// A frame sequence is made durable a batch at a time (one syncfs for the
// batch's bytes and times, then its renames and one folder fsync), not a
// flush a frame: on a drive slow to flush, far fewer flushes than frames,
// and every frame verified, identical, with its card's times.
func TestFramesShareFlushes(t *testing.T) {
	e := newEnv(t)
	card := frames(t, e.dir, 120, 8<<10)
	d1 := e.dest("d1")
	needSyncFS(t, d1)
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: string(filepath.Separator) + "FRAMES", SyncDelay: 2 * time.Millisecond})
	o := e.opts([]string{card}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	require.Zero(t, f.MaxConcurrentSyncs(), "no frame fsynced on its own")
	t.Logf("120 frames, %d flushes", f.Flushes())
	require.Greater(t, f.Flushes(), 0)
	require.Less(t, f.Flushes(), 120/4, "frames share their flushes")
	out := filepath.Join(d1, "day01", "A001", "FRAMES")
	require.Equal(t, treeHashes(t, filepath.Join(card, "FRAMES")), treeHashes(t, out))
	for _, name := range []string{"F0000.dng", "F0119.dng"} {
		src, err := os.Stat(filepath.Join(card, "FRAMES", name))
		require.NoError(t, err)
		dst, err := os.Stat(filepath.Join(out, name))
		require.NoError(t, err)
		require.True(t, src.ModTime().Equal(dst.ModTime()), "%s keeps the card's time", name)
	}
}

// A batch whose syncfs reports a write-back error has its frames fsynced
// one by one, and so has every frame after it: the frame whose write-back
// failed fails alone, every other is verified.
func TestFramesSyncFSErrorFallsBackToFsync(t *testing.T) {
	e := newEnv(t)
	card := frames(t, e.dir, 120, 8<<10)
	d1 := e.dest("d1")
	needSyncFS(t, d1)
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: "F0077.dng", SyncErr: syscall.EIO})
	// F0100-F0119, read after F0077: a syncfs after the failed one would
	// not report the error again (the kernel reports it once), so they
	// must not be trusted to one: each is fsynced.
	later := string(filepath.Separator) + ".F01"
	f.Add(fsys.Fault{Match: later})
	o := e.opts([]string{card}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, 1, f.Syncs("F0077.dng"), "the frame whose write-back failed is fsynced alone")
	require.Equal(t, 20, f.Syncs(later), "every frame after the failed syncfs is fsynced one by one")
	requireFramesButOne(t, e, s, card, d1, "F0077.dng")
}

// needSyncFS skips a test where dir's filesystem has no syncfs that dit
// uses (see fsys.OpenFSSyncer).
func needSyncFS(t *testing.T, dir string) {
	s := fsys.OpenFSSyncer(fsys.OS{}, dir)
	if s == nil {
		t.Skipf("%s is not on ext4, XFS, Btrfs, F2FS or tmpfs (or the kernel is older than 5.17): frames are fsynced one by one there", dir)
	}
	s.Close()
}

// BenchmarkFramesSlowFlush offloads 200 frames of 64 KiB to a destination
// that takes 2 ms to flush (a USB disk, an SD card): fsynced one after
// the other (serial), several at once (parallel), and a batch a flush
// (syncfs).
func BenchmarkFramesSlowFlush(b *testing.B) {
	dir := b.TempDir()
	card := frames(b, dir, 200, 64<<10)
	for _, v := range []struct {
		name string
		par  int
		max  int64
	}{{"serial", 1, 0}, {"parallel", commitParallel, 0}, {"syncfs", commitParallel, batchSyncMax}} {
		b.Run(v.name, func(b *testing.B) {
			defer func(p int, m int64) { commitParallel, batchSyncMax = p, m }(commitParallel, batchSyncMax)
			commitParallel, batchSyncMax = v.par, v.max
			for b.Loop() {
				run, err := os.MkdirTemp(dir, "run")
				require.NoError(b, err)
				cat, err := catalog.Open(filepath.Join(run, "catalog.db"))
				require.NoError(b, err)
				d1 := filepath.Join(run, "d1")
				require.NoError(b, os.MkdirAll(d1, 0o755))
				f := fsys.NewFaulty(fsys.OS{})
				f.Add(fsys.Fault{Match: string(filepath.Separator) + "FRAMES", SyncDelay: 2 * time.Millisecond})
				o := Options{JobSpec: JobSpec{Name: "day01", Cards: []string{card}, Dests: []string{d1},
					Hashes: []hashing.Algo{hashing.MD5, hashing.XXH64}}, Env: Env{Catalog: cat, FS: f}}
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

// A file already at the destination with the card's bytes (put there
// moments ago by another tool: perhaps only in the page cache) is made
// durable before it counts: by its batch's syncfs where the filesystem
// has one, else by its own fsync, and its folder fsynced; a failed fsync
// is that copy's failure (named, the card not safe to format), the file
// left as it was. The card's other file is verified.
func TestPresentCopyMadeDurable(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{
		"CLIP/C001.mov":  bigContent(300_000, 1),
		"OTHER/C002.mov": bigContent(9<<20, 2), // fsynced alone: not a syncfs
	})
	for _, mode := range []string{"syncfs", "fsync", "fsync fails"} {
		t.Run(mode, func(t *testing.T) {
			d1 := e.dest(mode)
			if mode == "syncfs" {
				needSyncFS(t, d1)
			}
			there := filepath.Join(d1, "day01", "A001", "CLIP", "C001.mov")
			require.NoError(t, os.MkdirAll(filepath.Dir(there), 0o755))
			b, err := os.ReadFile(filepath.Join(card, "CLIP", "C001.mov"))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(there, b, 0o644))
			f := fsys.NewFaulty(fsys.OS{})
			if mode == "fsync fails" {
				f.Add(fsys.Fault{Match: there, SyncErr: syscall.EIO})
			} else {
				f.Add(fsys.Fault{Match: there})
			}
			w := &syncDirFS{FS: f, dirs: map[string]int{}, noSyncFS: mode != "syncfs"}
			e.events = nil
			o := e.opts([]string{card}, []string{d1})
			o.FS = w
			s, err := e.run(o)
			require.NoError(t, err)
			c := s.Cards[0]
			verified := map[string]bool{}
			for _, ev := range e.events {
				if ev.Type == EvFile && ev.State == StateVerified {
					verified[ev.Path] = true
				}
			}
			switch mode {
			case "syncfs":
				require.Zero(t, f.Syncs(there), "made durable by its batch's syncfs, not an fsync")
				require.Equal(t, 1, f.Flushes(), "one syncfs, for the file found there")
			default:
				require.Equal(t, 1, f.Syncs(there), "the file found there is fsynced once")
			}
			if mode != "fsync fails" {
				require.True(t, c.SafeToFormat)
				require.Empty(t, c.Failures)
				require.Equal(t, map[string]bool{"CLIP/C001.mov": true, "OTHER/C002.mov": true}, verified)
				require.Equal(t, 1, w.dirs[filepath.Dir(there)], "the folder of the file found there fsynced once")
				return
			}
			require.False(t, c.SafeToFormat)
			require.Len(t, c.Failures, 1)
			require.Contains(t, c.Failures[0].Error, there)
			require.Contains(t, c.Failures[0].Error, "cannot be made durable (fsync: input/output error)")
			got, err := os.ReadFile(there)
			require.NoError(t, err)
			require.Equal(t, b, got, "the file found there left as it was")
			require.Equal(t, map[string]bool{"OTHER/C002.mov": true}, verified)
		})
	}
}

// syncDirFS records the folders fsynced; noSyncFS: it has no syncfs.
type syncDirFS struct {
	fsys.FS
	mu       sync.Mutex
	dirs     map[string]int
	noSyncFS bool
}

func (f *syncDirFS) OpenFSSyncer(dir string) fsys.FSSyncer {
	if f.noSyncFS {
		return nil
	}
	return fsys.OpenFSSyncer(f.FS, dir)
}

func (f *syncDirFS) SyncDir(name string) error {
	f.mu.Lock()
	f.dirs[name]++
	f.mu.Unlock()
	return f.FS.SyncDir(name)
}

// The folders of a card's copies are durable with the copies in them:
// every folder from the destination down to each copy's folder's parent
// is fsynced once, whether dit created it or found it there, and each
// copy's folder after its renames.
func TestNewFoldersMadeDurable(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{
		"CLIP/A/C001.mov": bigContent(10_000, 1),
		"CLIP/B/C002.mov": bigContent(10_000, 2),
	})
	d1 := e.dest("d1")
	out := filepath.Join(d1, "day01", "A001")
	// Made moments ago by another tool (or by a run killed before its
	// fsyncs): there already, no more durable than a new folder.
	require.NoError(t, os.MkdirAll(out, 0o755))
	f := &syncDirFS{FS: fsys.OS{}, dirs: map[string]int{}}
	o := e.opts([]string{card}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	for _, d := range []string{d1, filepath.Join(d1, "day01"), out, filepath.Join(out, "CLIP")} {
		require.Equal(t, 1, f.dirs[d], "%s holds a folder of the card's: fsynced once", d)
	}
	for _, d := range []string{filepath.Join(out, "CLIP", "A"), filepath.Join(out, "CLIP", "B")} {
		require.GreaterOrEqual(t, f.dirs[d], 1, "%s holds a copy: fsynced after its rename", d)
	}
	require.Zero(t, f.dirs[e.dir], "the folder above the destination got nothing new")
}

// A card that stalls in the middle of a file (a slow or struggling
// reader) does not hold back the small copies finished before: they are
// made durable and read back while it waits.
func TestStalledReadDoesNotHoldFinishedCopies(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{
		"CLIPS/A0.mov": bigContent(1<<20, 1), "CLIPS/A1.mov": bigContent(1<<20, 2), "CLIPS/A2.mov": bigContent(1<<20, 3)})
	f := fsys.NewFaulty(fsys.OS{})
	_, hold := holdRead(f, "A2.mov")
	o := e.opts([]string{card}, []string{e.dest("d1")})
	o.FS = f
	events := make(chan Event, 256)
	o.OnEvent = func(ev Event) {
		if (ev.Type == EvFile && ev.State == StateVerified) || ev.Type == EvProgress {
			events <- ev
		}
	}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	done := runAsync(j)
	// A0 and A1 verified while A2 is held; a few seconds of progress
	// without them is a held batch (the test then fails, not hangs).
	verified, ticks := 0, 0
	for verified < 2 && ticks < 5 {
		if ev := <-events; ev.Type == EvProgress {
			ticks++
		} else {
			verified++
		}
	}
	close(hold)
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, 2, verified, "A0 and A1 verified while the card was stalled in A2")
	require.True(t, r.s.Cards[0].SafeToFormat)
}
