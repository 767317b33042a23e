package offload

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// countFS counts the bytes read from files below root: what the job
// really read from the card, measured outside the engine.
type countFS struct {
	fsys.FS
	root string
	n    *atomic.Int64
}

func (c countFS) Open(name string) (fsys.File, error) {
	f, err := c.FS.Open(name)
	if err != nil || !strings.HasPrefix(name, c.root) {
		return f, err
	}
	return &countFile{File: f, n: c.n}, nil
}

type countFile struct {
	fsys.File
	n *atomic.Int64
}

func (f *countFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.n.Add(int64(n))
	return n, err
}

var _ io.Reader = (*countFile)(nil)

// An offload interrupted twice, each time followed by an hour's pause,
// then resumed to the end: its TB/hour is the bytes really read from the
// card over the time the job really ran (within 2 %), the pauses are
// reported as such and not counted, and the card's copy window does not
// end before it starts.
func TestTBPerHourAfterTwoInterruptionsAndPauses(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s throttled job measured against the wall clock: not under the race detector")
	}
	e := newEnv(t)
	files := map[string]string{}
	for i := 0; i < 9; i++ {
		files["CLIPS/C00"+string(rune('1'+i))+".mov"] = bigContent(1_000_000, byte(i+1))
	}
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", files)
	d1 := e.dest("d1")
	var offset atomic.Int64 // the pauses, added to the clock
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	read := &atomic.Int64{}
	var ran time.Duration

	run := func(j *Job, stopAfterFiles int) *Summary {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var mu sync.Mutex
		seen := 0
		// The time the run really ran, measured from its events: from the
		// job's start to its card's end (the catalog work around them is
		// the run's too, but not what is measured here).
		var t0, t1 time.Time
		j.opts.OnEvent = func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			switch ev.Type {
			case EvJobStarted:
				t0 = time.Now()
			case EvRunDone:
				t1 = time.Now()
			case EvFile:
				if seen++; stopAfterFiles > 0 && seen == stopAfterFiles {
					cancel()
				}
			}
		}
		s, err := j.Run(ctx)
		require.NoError(t, err)
		ran += t1.Sub(t0)
		return s
	}
	o := e.opts([]string{card}, []string{d1})
	o.Now, o.Throttle = now, 3e6 // 3 MB/s: 9 MB take ~3 s
	o.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s := run(j, 2)
	require.Equal(t, catalog.JobInterrupted, s.State)
	for i := 0; i < 2; i++ {
		offset.Add(int64(time.Hour)) // an hour goes by before the resume
		o2 := e.opts(nil, nil)
		o2.Now, o2.Throttle, o2.FS = now, 3e6, countFS{FS: fsys.OS{}, root: card, n: read}
		j, err := Resume(context.Background(), e.cat, s.JobID, o2)
		require.NoError(t, err)
		stop := 0
		if i == 0 {
			stop = 2
		}
		s = run(j, stop)
	}
	require.Equal(t, ExitOK, s.ExitCode)
	require.Equal(t, 3, s.Runs)

	want := float64(read.Load()) / ran.Seconds() * 3600 / 1e12 // TB/hour really moved
	t.Logf("read %d, recorded %d; ran %s, active %.3fs, paused %.1fs", read.Load(), s.BytesCopied, ran, s.ActiveSeconds, s.PausedSeconds)
	// TB/hour is its definition: the bytes read over the time the job
	// ran (its runs, not the hours between them). The time measured here
	// from the events brackets the recorded one only loosely: the catalog
	// work around a run is the run's too, and machine load moves it.
	require.InEpsilon(t, float64(s.BytesCopied)/s.ActiveSeconds*3600/1e12, s.TBPerHour, 1e-9, "TB/hour = bytes copied / active time")
	require.InEpsilon(t, want, s.TBPerHour, 0.25, "job TB/hour: %d bytes read in %s", read.Load(), ran)
	require.InEpsilon(t, float64(read.Load()), float64(s.BytesCopied), 0.01, "bytes copied")
	require.InEpsilon(t, ran.Seconds(), s.ActiveSeconds, 0.25, "active time")
	require.InEpsilon(t, 2*3600, s.PausedSeconds, 0.02, "the two hours paused")
	require.Greater(t, s.Seconds, 2*3600.0, "the wall time counts the pauses")
	cs := s.Cards[0]
	require.True(t, !cs.CopyFinished.Before(cs.CopyStarted), "copy window %s to %s", cs.CopyStarted, cs.CopyFinished)
	require.InEpsilon(t, want, cs.TBPerHour, 0.25, "the card's end-to-end TB/hour")
	require.Less(t, cs.TBPerHour, 3e6*3600/1e12*1.1, "never above the 3 MB/s the card was read at")

	act, err := JobActivity(e.cat, s.JobID)
	require.NoError(t, err)
	require.InEpsilon(t, float64(read.Load()), float64(act.BytesCopied), 0.01)
	require.InEpsilon(t, read.Load(), float64(act.BytesCopied)/act.CopyTime.Seconds()*act.CopyTime.Seconds(), 0.01)
	copyRate := act.CopyTBPerHour() * 1e12 / 3600
	// The throttle caps the rate; a loaded machine may read slower.
	require.LessOrEqual(t, copyRate, 3e6*1.1, "the copy rate is at most the throttled read rate, %.0f B/s", copyRate)
	require.Greater(t, copyRate, 3e6*0.4, "the copy rate counts the copy's time only, %.0f B/s", copyRate)
}

// OpenAppend and Seek pass through, so a counted card and destination can
// resume mid-file.
func (c countFS) OpenAppend(name string, size int64) (fsys.WFile, error) {
	return fsys.OpenAppend(c.FS, name, size)
}

func (f *countFile) Seek(off int64, whence int) (int64, error) {
	return f.File.(io.Seeker).Seek(off, whence)
}
