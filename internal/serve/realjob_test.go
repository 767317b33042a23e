package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// dit serve beside a real job: the engine (assembled as the front ends
// assemble it, its card read at 1 MB/s) records its live model in the
// catalog; serve's event stream shows the card's rate and its time to
// safe to format and the job's live TB/hour while it copies, each the
// engine's; once the job ended, the card is safe to format and nothing
// is shown as live.
func TestServeFollowsARealJob(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() }) // once the job and the server stopped (cleanups run last first)
	card, raid := filepath.Join(dir, "A001"), filepath.Join(dir, "RAID")
	require.NoError(t, os.MkdirAll(raid, 0o755))
	for i, f := range []string{"CLIPS/A001C001.MOV", "CLIPS/A001C002.MOV"} {
		p := filepath.Join(card, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(f, 1_500_000/len(f)+i)), 0o644))
	}

	s := New(cat, Options{Poll: 50 * time.Millisecond})
	ctx, cancel := running(t, s)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/events", nil)
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(nil, 1<<20)
	next := func() Status {
		t.Helper()
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var st Status
				require.NoError(t, json.Unmarshal([]byte(data), &st))
				return st
			}
		}
		t.Fatalf("event stream ended: %v", sc.Err())
		return Status{}
	}

	// The card's last clip trickles until serve has shown the live
	// figures (on a fast machine a 3 MB card can end before the first
	// event): an event decides, not the machine's speed.
	seen := make(chan struct{})
	fs := trickleFS{OS: fsys.OS{}, path: filepath.Join(card, "CLIPS/A001C002.MOV"), until: seen, opened: new(atomic.Int32)}
	ran, jobDone := make(chan error, 1), make(chan struct{})
	t.Cleanup(func() { cancel(); <-jobDone }) // the job stopped before the catalog closes
	go func() {
		defer close(jobDone)
		p, err := assembly.Prepare(ctx, assembly.Settings{Name: "day08", Cards: []string{card}, Dests: []string{raid}, Catalog: cat,
			Copying: assembly.Copying{Hashes: []hashing.Algo{hashing.XXH64}, BlockSize: 64 << 10, Throttle: 1e6}, Drives: assembly.DrivesOff, FS: fs})
		if err != nil {
			ran <- err
			return
		}
		j, err := p.Open(ctx)
		if err != nil {
			ran <- err
			return
		}
		sum, err := j.Run(ctx)
		j.Finish(ctx, sum, err)
		ran <- err
	}()

	// While it copies: the engine's figures, rendered.
	var st Status
	for {
		st = next()
		if len(st.Jobs) == 1 && st.Jobs[0].State.Ended() {
			t.Fatalf("the job ended before serve showed its live figures: %+v", st.Jobs[0])
		}
		if len(st.Jobs) == 1 && len(st.Jobs[0].Cards) == 1 {
			// The card's recorded state and its live run are two reads
			// of the catalog: the next event has both once either lags.
			if l := st.Jobs[0].Cards[0].Live; l != nil && l.Rate > 0 && l.ETA.Safe.Known && st.Jobs[0].Live.TBPerHour > 0 &&
				st.Jobs[0].Cards[0].Status == verdict.Copying {
				break
			}
		}
	}
	close(seen)
	js, c := st.Jobs[0], st.Jobs[0].Cards[0]
	require.True(t, js.Active)
	require.Equal(t, verdict.Copying, c.Status)
	require.Equal(t, units.FormatRate(c.Live.Rate), c.Shown.Rate)
	require.Contains(t, c.Shown.ETA, "safe to format in "+c.Live.ETA.Safe.String())
	require.Equal(t, units.FormatTBPerHour(js.Live.TBPerHour), js.Shown.TBPerHour)
	require.Equal(t, c.Bytes, c.Live.Bytes, "the summary's card and its live run")

	// Ended: safe to format, nothing live.
	for st = next(); len(st.Jobs) != 1 || st.Jobs[0].State != verdict.Done; st = next() {
	}
	require.NoError(t, <-ran)
	require.NotZero(t, fs.opened.Load(), "the card was read through the test's filesystem")
	c = st.Jobs[0].Cards[0]
	require.Equal(t, verdict.Safe, c.Status)
	require.Nil(t, c.Live)
	require.Nil(t, st.Jobs[0].Live)
	require.Equal(t, "safe to format", c.Shown.State)
	require.Equal(t, []string{"A001"}, []string{st.SafeToFormat[0].Card})
}

// trickleFS reads the file at path 4 KB at a time, 20 ms apart, until
// the channel until is closed; every other file as the OS reads it.
type trickleFS struct {
	fsys.OS
	path   string
	until  <-chan struct{}
	opened *atomic.Int32
}

func (f trickleFS) Open(name string) (fsys.File, error) {
	r, err := f.OS.Open(name)
	if err != nil || filepath.Clean(name) != f.path {
		return r, err
	}
	f.opened.Add(1)
	return trickleFile{File: r, until: f.until}, nil
}

type trickleFile struct {
	fsys.File
	until <-chan struct{}
}

func (f trickleFile) Read(p []byte) (int, error) {
	select {
	case <-f.until:
	case <-time.After(20 * time.Millisecond):
		p = p[:min(len(p), 4096)]
	}
	return f.File.Read(p)
}

// running runs s.Run until the test ends (or cancel) and, in a cleanup,
// waits for it to return: the catalog, closed by a cleanup registered
// before, is closed only once no poll of the server is in flight. A
// poll's read (which flushes the catalog's queued writes) racing the
// catalog's Close could leave the catalog's writer looping on its closed
// queue: Close never returned and the writer's batch grew until the
// machine ran out of memory (a race run, 22 GB after 10 minutes).
func running(t *testing.T, s *Server) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ctx, cancel
}
