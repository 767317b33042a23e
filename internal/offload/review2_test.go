package offload

import (
	"context"
	"github.com/dit-org/dit/internal/verdict"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

func reviewInterrupt(t *testing.T, e *env, card string, dests []string, at int64) *Summary {
	read := &atomic.Int64{}
	o := e.opts([]string{card}, dests)
	o.CheckpointEvery, o.Throttle = 256<<10, 8<<20
	o.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for read.Load() < at && ctx.Err() == nil {
			runtime.Gosched()
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	return s
}

// The card's file changes between the runs under the same size and time
// (another card at the same path, a file rewritten in place by a tool that
// keeps times). A resume from the middle keeps the old prefix and appends the
// new suffix: the copy is neither the old nor the new file, yet it is verified
// and the card safe to format.
func TestReviewMidFileResumeHybridOfTwoCards(t *testing.T) {
	e := newEnv(t)
	body := bigContent(4<<20, 5)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	s := reviewInterrupt(t, e, card, []string{d1}, 3<<20)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["BIG.mov"], 1)

	// The card's file now holds other bytes, same size, same time.
	p := filepath.Join(card, "BIG.mov")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	other := bigContent(4<<20, 9)
	require.NoError(t, os.WriteFile(p, []byte(other), 0o644))
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))

	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(d1, "day01", "A001", "BIG.mov"))
	require.NoError(t, err)
	same := string(got) == other
	require.False(t, s2.Cards[0].SafeToFormat && !same,
		"safe to format, but the copy differs from the card's file (old prefix %v, new suffix %v)",
		string(got[:1<<20]) == body[:1<<20], string(got[len(got)-1<<20:]) == other[len(other)-1<<20:])
}

// A checkpoint that no longer fits the card's file (its time changed) is
// not resumed from: its temp must still go, not be left in the card folder.
func TestReviewStaleCheckpointTempLeftBehind(t *testing.T) {
	e := newEnv(t)
	body := bigContent(4<<20, 5)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	s := reviewInterrupt(t, e, card, []string{d1}, 3<<20)
	p := filepath.Join(card, "BIG.mov")
	mt := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, mt, mt))

	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode)
	ents, err := os.ReadDir(filepath.Join(d1, "day01", "A001"))
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for _, n := range names {
		require.False(t, strings.HasSuffix(n, TempSuffix), "temp left in the card folder after a finished job: %v", names)
	}
}

// The app asks FindPrior without destinations and leaves out every card
// with a Prior: a card whose only verified copy has since been deleted is
// still "already offloaded", Done, and left out.
func TestReviewPriorWithoutDestsCountsGoneCopies(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "cards"), "A023", map[string]string{"C001.mov": bigContent(5000, 1)})
	d := e.dest("raid")
	s, err := e.run(e.opts([]string{a}, []string{d}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	require.NoError(t, os.RemoveAll(filepath.Join(d, "day01")))

	priors, _, err := FindPrior(context.Background(), e.cat, nil, []string{a}, false, nil, d)
	require.NoError(t, err)
	require.Nil(t, priors[0], "with the destination named, a gone copy does not count")

	priors, _, err = FindPrior(context.Background(), e.cat, nil, []string{a}, false, nil)
	require.NoError(t, err)
	if priors[0] != nil {
		require.False(t, priors[0].Done(),
			"no copy left anywhere, yet the card is already offloaded and Done (the app leaves it out): %s", priors[0].Message())
	}
}

// intact() looks at the card's paths under the layout folder, not at where
// the verified copies are (--on-conflict rename puts them at "name (2)"): a
// foreign file of the same size counts, and the real copy may be gone.
func TestReviewPriorIntactLooksAtTheWrongFile(t *testing.T) {
	e := newEnv(t)
	body := bigContent(5000, 1)
	a := testCard(t, filepath.Join(e.dir, "cards"), "A023", map[string]string{"C001.mov": body})
	d := e.dest("raid")
	foreign := filepath.Join(d, "day01", "A023", "C001.mov")
	require.NoError(t, os.MkdirAll(filepath.Dir(foreign), 0o755))
	require.NoError(t, os.WriteFile(foreign, []byte(bigContent(5000, 2)), 0o644))
	o := e.opts([]string{a}, []string{d})
	o.OnConflict = ConflictRename
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	renamed := filepath.Join(d, "day01", "A023", "C001 (2).mov")
	got, err := os.ReadFile(renamed)
	require.NoError(t, err)
	require.Equal(t, body, string(got))
	require.NoError(t, os.Remove(renamed)) // the only copy of the card's file

	priors, _, err := FindPrior(context.Background(), e.cat, nil, []string{a}, false, nil, d)
	require.NoError(t, err)
	if priors[0] != nil {
		require.False(t, priors[0].Done(),
			"the verified copy is gone (only a different file of the same size is left), yet the card is skipped: %s", priors[0].Message())
	}
}

// goneFS makes the card root unreadable once gone is set (the card pulled
// after its files were read, while the copies are read back).
type goneFS struct {
	fsys.FS
	root string
	gone *atomic.Bool
}

func (g goneFS) Lstat(name string) (os.FileInfo, error) {
	if g.gone.Load() && name == g.root {
		return nil, os.ErrNotExist
	}
	return g.FS.Lstat(name)
}

// A card pulled after every file was read and verified ends "failed"; its
// hash lists then fail to be written on a destination. A resume with the
// card back finds nothing to copy, does not seal again (the card was
// "failed", taken as sealed before) and calls the card verified: safe to
// format without hash lists on that destination.
func TestReviewSafeToFormatWithoutHashLists(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"a.mov": "aaaa", "b.mov": "bbbb"})
	d1 := e.dest("d1")
	gone := &atomic.Bool{}
	o := e.opts([]string{card}, []string{d1})
	o.FS = goneFS{FS: fsys.OS{}, root: card, gone: gone}
	files := atomic.Int64{}
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile && files.Add(1) == 2 {
			gone.Store(true) // pulled once both files are verified
		}
	}
	sealed := 0
	o.Seal = func(ctx context.Context, info SealInfo) error {
		sealed++
		return os.ErrPermission // the hash lists cannot be written
	}
	s, err := e.run(o)
	require.NoError(t, err)
	require.False(t, s.Cards[0].SafeToFormat)
	require.Equal(t, 1, sealed)

	gone.Store(false)
	o2 := e.opts(nil, nil)
	resealed := 0
	o2.Seal = func(ctx context.Context, info SealInfo) error { resealed++; return nil }
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s2.Cards[0].SafeToFormat && resealed == 0,
		"safe to format, but the hash lists that failed in the first run were never written (seal calls on resume: %d)", resealed)
}

// lockedFS cannot list one folder (as a folder of the card with no read
// permission, for a user that is not root).
type lockedFS struct {
	fsys.FS
	dir string
}

func (l lockedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == l.dir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	return l.FS.ReadDir(name)
}

// A card with a folder that cannot be read is not whole on any
// destination: the card ends failed (not "verified") everywhere it is
// told, card_done and the catalog alike (so notifications, dit serve, an
// eject and the next offload's "already offloaded" never take it for
// safe), naming what was not read.
func TestUnreadableEntriesFailTheCard(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"CLIPS/a.mov": "aaaa", "LOCKED/b.mov": "bbbb"})
	d1 := e.dest("d1")
	o := e.opts([]string{card}, []string{d1})
	o.FS = lockedFS{FS: fsys.OS{}, dir: filepath.Join(card, "LOCKED")}
	s, err := e.run(o)
	require.NoError(t, err)
	c := s.Cards[0]
	require.False(t, c.SafeToFormat)
	require.Equal(t, StateFailed, c.State)
	var done *Event
	for i := range e.events {
		if e.events[i].Type == EvCardDone {
			done = &e.events[i]
		}
	}
	require.NotNil(t, done)
	require.Equal(t, verdict.Failed, done.State)
	require.Contains(t, done.Message, "LOCKED")
	require.Contains(t, done.Message, "NOT safe to format")
	recs, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	require.Equal(t, StateFailed, recs[0].State)
	priors, _, err := FindPrior(context.Background(), e.cat, fsys.OS{}, []string{card}, false, nil, d1)
	require.NoError(t, err)
	require.True(t, len(priors) == 0 || priors[0] == nil || !priors[0].Done(), "not 'already offloaded'")
}
