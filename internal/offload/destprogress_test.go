package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/live"
)

// destCountFS counts the bytes that reach the temps of the card copies below
// one of roots and the bytes read back from them, per root; gate (if set)
// blocks the read-back of the file whose path contains gateMatch until it
// is closed, after telling entered.
type destCountFS struct {
	fsys.FS
	roots     []string
	mu        sync.Mutex
	written   map[string]int64
	read      map[string]int64
	gateMatch string
	entered   chan struct{}
	gate      chan struct{}
}

func (c *destCountFS) rootOf(name string) string {
	for _, r := range c.roots {
		if name == r || strings.HasPrefix(name, r+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

func (c *destCountFS) add(m map[string]int64, root string, n int) {
	c.mu.Lock()
	m[root] += int64(n)
	c.mu.Unlock()
}

func (c *destCountFS) CreateTemp(dir, pattern string) (fsys.WFile, error) {
	w, err := c.FS.CreateTemp(dir, pattern)
	if r := c.rootOf(dir); err == nil && r != "" {
		return &destCountW{WFile: w, c: c, root: r}, nil
	}
	return w, err
}

func (c *destCountFS) OpenNoCache(name string) (fsys.File, error) {
	if c.gateMatch != "" && strings.Contains(name, c.gateMatch) {
		close(c.entered)
		<-c.gate
	}
	f, err := c.FS.OpenNoCache(name)
	if r := c.rootOf(name); err == nil && r != "" {
		return &destCountR{File: f, c: c, root: r}, nil
	}
	return f, err
}

type destCountW struct {
	fsys.WFile
	c    *destCountFS
	root string
}

func (w *destCountW) Write(p []byte) (int, error) {
	n, err := w.WFile.Write(p)
	w.c.add(w.c.written, w.root, n)
	return n, err
}

type destCountR struct {
	fsys.File
	c    *destCountFS
	root string
}

func (r *destCountR) Read(p []byte) (int, error) {
	n, err := r.File.Read(p)
	r.c.add(r.c.read, r.root, n)
	return n, err
}

func cardProgress(p Progress, label string) CardProgress {
	for _, c := range p.Cards {
		if c.Label == label {
			return c
		}
	}
	return CardProgress{}
}

// Two destinations, the second full in the middle of a file: each
// destination's counters are the bytes that reached it and were read back
// from it, and the full one is failed while the other is verified.
func TestDestProgressCountsEachDestination(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	cnt := &destCountFS{FS: fsys.OS{}, written: map[string]int64{}, read: map[string]int64{},
		roots: []string{filepath.Join(d1, "day01", "A001", "CLIPS"), filepath.Join(d2, "day01", "A001", "CLIPS")}}
	f := fsys.NewFaulty(cnt)
	f.Add(fsys.Fault{Match: "d2/day01/A001/CLIPS/.C001.mov", WriteErrAt: 100_000})
	o := e.opts([]string{a, b}, []string{d1, d2})
	o.FS = f
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)

	ca := cardProgress(j.Snapshot(), "A001")
	require.Len(t, ca.Dests, 2)
	ok, full := ca.Dests[0], ca.Dests[1]
	r1, r2 := cnt.roots[0], cnt.roots[1]
	require.Equal(t, d1, ok.Dest)
	require.Equal(t, DestVerified, ok.State)
	require.Equal(t, 0, ok.FilesFailed)
	require.Equal(t, int64(360_000), ok.Bytes)
	require.Equal(t, cnt.written[r1], ok.BytesWritten)
	require.Equal(t, int64(360_000), ok.BytesWritten)
	require.Equal(t, cnt.read[r1], ok.BytesVerified)
	require.Equal(t, ok.VerifyTotal, ok.BytesVerified)

	require.Equal(t, d2, full.Dest)
	require.Equal(t, DestFailed, full.State)
	require.Equal(t, 1, full.FilesFailed)
	// 100,000 bytes of C001 reached it before it was full, then C002 and
	// C003 whole; only those two were read back.
	require.Equal(t, cnt.written[r2], full.BytesWritten)
	require.Equal(t, int64(100_000+150_000+10_000), full.BytesWritten)
	require.Equal(t, cnt.read[r2], full.BytesVerified)
	require.Equal(t, int64(150_000+10_000), full.BytesVerified)

	cb := cardProgress(j.Snapshot(), "B001")
	require.Len(t, cb.Dests, 2)
	for _, d := range cb.Dests {
		require.Equal(t, DestVerified, d.State)
		require.Equal(t, int64(185_000), d.BytesWritten)
		require.Equal(t, int64(185_000), d.BytesVerified)
	}
}

// While a card's copies are read back, its current file is one being read
// back, not the last file read from the card.
func TestCurrentFileWhileVerifyingIsTheOneReadBack(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	cnt := &destCountFS{FS: fsys.OS{}, written: map[string]int64{}, read: map[string]int64{},
		gateMatch: filepath.Join("d1", "day01", "A001", "CLIPS", "C001.mov"),
		entered:   make(chan struct{}), gate: make(chan struct{})}
	o := e.opts([]string{a}, []string{d1, d2})
	o.FS = cnt
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := j.Run(context.Background()); done <- err }()
	<-cnt.entered
	// The card is read to its end while C001's read-back on d1 waits.
	var cp CardProgress
	for cp.Phase != "verifying" {
		cp = cardProgress(j.Snapshot(), "A001")
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, "CLIPS/C001.mov", cp.Current)
	require.Equal(t, "CLIPS/C001.mov", cp.Dests[0].Current)
	require.Equal(t, DestVerifying, cp.Dests[0].State)
	close(cnt.gate)
	require.NoError(t, <-done)
	cp = cardProgress(j.Snapshot(), "A001")
	require.Equal(t, "", cp.Current)
	require.Equal(t, DestVerified, cp.Dests[0].State)
}

// A destination whose hash lists could not be written is said so, not
// "verified": the seal fails on the second destination only, the card
// is not safe to format, and the live snapshot (the one every front end
// renders, and the one dit serve reads from the catalog) gives that
// destination DestSealFailed, the other DestVerified.
func TestSealFailureIsTheDestinationsState(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"C001.mov": bigContent(50_000, 1), "C002.mov": bigContent(20_000, 2)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	o := e.opts([]string{card}, []string{d1, d2})
	o.Seal = func(_ context.Context, info SealInfo) error {
		if info.DestRoot == d2 {
			return os.ErrPermission // the hash lists cannot be written there
		}
		return nil
	}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s.Cards[0].SafeToFormat)

	check := func(p Progress, where string) {
		require.Len(t, p.Cards, 1, where)
		ds := p.Cards[0].Dests
		require.Len(t, ds, 2, where)
		require.Equal(t, d1, ds[0].Dest)
		require.Equal(t, DestVerified, ds[0].State, where)
		require.Equal(t, d2, ds[1].Dest)
		require.Equal(t, DestSealFailed, ds[1].State, where)
		require.True(t, ds[1].State.Ended())
		require.Equal(t, 0, ds[1].FilesFailed, where+": every file was read back and matched there")
	}
	check(j.Snapshot(), "snapshot")
	p, _, ok, err := LiveProgress(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, ok)
	check(p, "catalog")
}

// The seal is counted: while a card's hash lists are written the live
// snapshot says how many of its files they name of how many (a file
// once per destination), as the seal's walks that write them come to
// the files (SealProgress: a walk counted over their number, never
// more), a walk that only looks files up not counted, and all of them
// once written.
func TestSealProgressIsCounted(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("CLIPS/C%03d.mov", i)] = bigContent(10_000, byte(i))
	}
	card := testCard(t, e.dir, "A001", files)
	o := e.opts([]string{card}, []string{e.dest("d1"), e.dest("d2")})
	var j *Job
	var seen, looked []CardProgress
	o.Seal = func(_ context.Context, info SealInfo) error {
		// A crash's recovery looks the files up first: not progress.
		if err := info.Files(func(*SealFile) error {
			looked = append(looked, j.Snapshot().Cards[0])
			return nil
		}); err != nil {
			return err
		}
		info.Progress.Walks(2)
		for range 2 { // two walks write the lists
			if err := info.Files(func(*SealFile) error {
				info.Progress.Walked()
				seen = append(seen, j.Snapshot().Cards[0])
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)

	require.Len(t, looked, 10)
	for i, c := range looked {
		require.Equal(t, 5*(i/5), c.FilesSealed, "a lookup names nothing (the first destination's 5 written before the second's)")
	}
	require.Len(t, seen, 20)
	for i, c := range seen {
		require.Equal(t, live.Sealing, c.Phase)
		require.Equal(t, 10, c.SealFiles, "5 files on 2 destinations")
		require.Equal(t, 5*(i/10)+(i%10+1)/2, c.FilesSealed, "step %d: each destination's two walks' files over 2", i)
		require.LessOrEqual(t, c.PhasePercent(), 100.0)
	}
	require.Less(t, seen[0].PhasePercent(), 100.0)

	p, _, ok, err := LiveProgress(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 10, p.Cards[0].SealFiles)
	require.Equal(t, 10, p.Cards[0].FilesSealed)
}

// The proxies made outside the engine are counted in the live model
// through Job.CountProxies, on the card's run, never above the clips to
// make; a card the job does not have is left alone.
func TestProxiesAreCountedOnTheCard(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"CLIPS/C001.mov": bigContent(20_000, 1)})
	o := e.opts([]string{card}, []string{e.dest("d1")})
	var j *Job
	o.OnEvent = func(ev Event) {
		if ev.Type == EvRunDone { // where internal/proxies takes the card up
			j.CountProxies("A001", 1, 3)
			j.CountProxies("B002", 1, 1)
		}
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)

	p, _, ok, err := LiveProgress(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, p.Cards, 1)
	require.Equal(t, 3, p.Cards[0].Proxies)
	require.Equal(t, 1, p.Cards[0].ProxiesMade)

	j.CountProxies("A001", 5, 3) // a maker that miscounts
	c := j.Snapshot().Cards[0]
	require.Equal(t, 3, c.Proxies)
	require.Equal(t, 3, c.ProxiesMade, "never above the clips to make")
}
