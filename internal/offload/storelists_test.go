//go:build unix

package offload

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// listCounter is a real store that counts its listings (by folder, and
// those of a whole folder tree) and the objects it streams, and runs
// onPut after each stream that left an object.
type listCounter struct {
	dest.Store
	mu    sync.Mutex
	dirs  map[string]int // ListDir, by folder
	trees []string       // List, by folder
	puts  map[string]bool
	onPut func(n int)
}

func newListCounter() *listCounter {
	return &listCounter{dirs: map[string]int{}, puts: map[string]bool{}}
}

func (s *listCounter) wrap(st dest.Store) dest.Store { s.Store = st; return s }

func (s *listCounter) Once() dest.Store { return &onceCounter{Store: s.Store.Once(), c: s} }

func (s *listCounter) ListDir(ctx context.Context, dir string) (map[string]dest.Object, error) {
	s.mu.Lock()
	s.dirs[dir]++
	s.mu.Unlock()
	return s.Store.ListDir(ctx, dir)
}

func (s *listCounter) List(ctx context.Context, dir string) (map[string]dest.Object, error) {
	s.mu.Lock()
	s.trees = append(s.trees, dir)
	s.mu.Unlock()
	return s.Store.List(ctx, dir)
}

func (s *listCounter) PutStream(ctx context.Context, rel string, size int64, body io.Reader, onErr func(string)) error {
	err := s.Store.PutStream(ctx, rel, size, body, onErr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.puts[rel] = true
	n := len(s.puts)
	s.mu.Unlock()
	if s.onPut != nil {
		s.onPut(n)
	}
	return nil
}

// openOrder is the filesystem, recording the files opened, in order.
type openOrder struct {
	fsys.FS
	mu    sync.Mutex
	names []string
}

func (o *openOrder) Open(name string) (fsys.File, error) {
	o.mu.Lock()
	o.names = append(o.names, name)
	o.mu.Unlock()
	return o.FS.Open(name)
}

// onceCounter is the counter's Once: its listings counted too.
type onceCounter struct {
	dest.Store
	c *listCounter
}

func (o *onceCounter) ListDir(ctx context.Context, dir string) (map[string]dest.Object, error) {
	o.c.mu.Lock()
	o.c.dirs[dir]++
	o.c.mu.Unlock()
	return o.Store.ListDir(ctx, dir)
}

func (o *onceCounter) List(ctx context.Context, dir string) (map[string]dest.Object, error) {
	o.c.mu.Lock()
	o.c.trees = append(o.c.trees, dir)
	o.c.mu.Unlock()
	return o.Store.List(ctx, dir)
}

// A card of frames in folders of 200, streamed to the cloud in windows
// of 60 files (each folder crosses windows' edges), is listed a folder
// at a time: never the card's folder whole. A run killed half way through
// its upload, then resumed: the objects it sent are verified by the
// storage's MD5 and not sent again; an object of other bytes put at a
// frame's name between the runs is refused, not written over; every
// other frame is sent and verified, and read before the frames there
// (which are read and checked, nothing sent). The resume lists each
// folder of the card three times at most (its totals, its upload, its
// read-back).
func TestStoreListsAFolderAtATime(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	old := storeWindow
	storeWindow = 60
	t.Cleanup(func() { storeWindow = old })
	e := newEnv(t)
	// Three folders (200, 200, 100 frames), the run killed in the second:
	// the shape the test had at 2,500 frames in folders of 1,000 and
	// windows of 300, at a fifth of the objects moto stores and lists.
	const n, clip, killAt = 500, 200, 240
	card := frameCard(t, e.dir, "F001", n, clip)
	root := "rclone:ditcloud:shots/frames"
	rc := &cloud.Rclone{Env: s.Env}

	// The first run, killed once killAt frames went up.
	first := newListCounter()
	o := e.opts([]string{card}, []string{root})
	o.Remote = remote.Settings{Rclone: rc}
	o.Seal = nil
	o.WrapStore = first.wrap
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first.onPut = func(k int) {
		if k == killAt {
			cancel()
		}
	}
	j, err := New(ctx, o)
	require.NoError(t, err)
	_, _ = j.Run(ctx)
	require.Empty(t, first.trees, "no listing of the card's whole folder")
	for dir, k := range first.dirs {
		require.LessOrEqual(t, k, 2, "%s: listed for the totals and the upload", dir)
	}

	at := cloud.Dest{Remote: "ditcloud", Path: "shots/frames"}
	card0 := "day01/F001"
	held, err := rc.List(context.Background(), at, card0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(held), killAt)
	require.Less(t, len(held), n, "killed half way")
	// Another's bytes at a frame's name the first run did not send.
	var taken string
	for i := n - 1; i >= 0; i-- {
		rel := path.Join("DCIM", fmt.Sprintf("C%03d", i/clip), fmt.Sprintf("F%06d.dng", i))
		if _, ok := held[rel]; !ok {
			taken = rel
			break
		}
	}
	other := filepath.Join(e.dir, "other.dng")
	require.NoError(t, os.WriteFile(other, []byte("not this frame"), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:shots/frames/"+card0+"/"+taken)

	again := newListCounter()
	o2 := e.opts(nil, nil)
	o2.Remote = remote.Settings{Rclone: rc}
	o2.WrapStore = again.wrap
	opens := &openOrder{FS: fsys.OS{}}
	o2.FS = opens
	j2, err := Resume(context.Background(), e.cat, j.rec.ID, o2)
	require.NoError(t, err)
	sum, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.False(t, sum.Cards[0].SafeToFormat, "an object of other bytes")

	for rel := range again.puts {
		_, there := held[path.Clean(rel[len(card0)+1:])]
		require.False(t, there, "%s was there: not sent again", rel)
		require.NotEqual(t, card0+"/"+taken, rel, "never over an object there")
	}
	require.Len(t, again.puts, n-len(held)-1, "every frame not there is sent")
	// Sent first: every frame not there is read before any that is
	// (read and checked against its object, nothing sent).
	var reads []string
	for _, name := range opens.names {
		if rel, err := filepath.Rel(card, name); err == nil && filepath.Ext(rel) == ".dng" {
			reads = append(reads, filepath.ToSlash(rel))
		}
	}
	require.Len(t, reads, n, "every frame read once")
	for k, rel := range reads {
		_, there := held[rel]
		there = there || rel == taken
		if k < n-len(held)-1 {
			require.False(t, there, "read %d, %s: the frames to send first", k, rel)
		} else {
			require.True(t, there, "read %d, %s: the frames there after", k, rel)
		}
	}
	require.Empty(t, again.trees, "no listing of the card's whole folder")
	for dir, k := range again.dirs {
		require.LessOrEqual(t, k, 3, "%s: listed for the totals, the upload and the read-back", dir)
	}
	require.Len(t, again.dirs, 3, "the card's three folders, none other")

	ks, err := e.cat.Cards(sum.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(ks[len(ks)-1].ID)
	require.NoError(t, err)
	require.Len(t, files, n)
	for _, f := range files {
		require.Len(t, f.Copies, 1, f.Rel)
		if f.Rel == taken {
			require.Equal(t, StateFailed, f.State)
			require.Contains(t, f.Copies[0].Error, "the object was at that name before this run's upload")
			continue
		}
		require.Equal(t, StateVerified, f.State, "%s: %s", f.Rel, f.Error)
		require.Equal(t, "s3-etag:md5", f.Copies[0].VerifyAlgos, f.Rel)
	}
	require.Equal(t, "not this frame", s.Rclone(t, "cat", "ditcloud:shots/frames/"+card0+"/"+taken), "not written over")
}
