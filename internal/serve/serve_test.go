package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid"
)

// fixture is a running job of station cart-a: card A001 copying (files:
// two copied, one verified, one failed, with one copy failed on the
// second destination), card A002 verified.
type fixture struct {
	cat              *catalog.Catalog
	job              *catalog.Job
	a001, a002       *catalog.Card
	copied, failures int64
	live             live.Progress // the engine's latest live snapshot
}

func newFixture(t *testing.T, loc string) *fixture {
	cat, err := catalog.Open(loc)
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	cat.SetStation("cart-a")
	host, _ := os.Hostname()
	f := &fixture{cat: cat}
	f.job = &catalog.Job{Name: "day03", State: catalog.JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
		VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, cat.CreateJob(f.job))
	d1, d2 := &catalog.Dest{JobID: f.job.ID, Path: "/raid"}, &catalog.Dest{JobID: f.job.ID, Seq: 1, Path: "/shuttle"}
	require.NoError(t, cat.AddDest(d1))
	require.NoError(t, cat.AddDest(d2))
	f.a001 = &catalog.Card{JobID: f.job.ID, Label: "A001", Path: "/cards/A001", State: "copying", Bytes: 10_000, Files: 4}
	f.a002 = &catalog.Card{JobID: f.job.ID, Seq: 1, Label: "A002", Path: "/cards/A002", State: "verified", Bytes: 500, Files: 1, DoneAt: time.Now()}
	require.NoError(t, cat.AddCard(f.a001))
	require.NoError(t, cat.AddCard(f.a002))
	cat.UpdateCard(f.a002)
	for _, x := range []struct {
		card  *catalog.Card
		rel   string
		size  int64
		state string
		cp    [2]string
	}{
		{f.a001, "C001.mov", 1000, "verified", [2]string{"verified", "verified"}},
		{f.a001, "C002.mov", 2000, "copied", [2]string{"copied", "copied"}},
		{f.a001, "C003.mov", 3000, "failed", [2]string{"verified", "failed"}},
		{f.a001, "C004.mov", 4000, "pending", [2]string{"pending", "pending"}},
		{f.a002, "C001.mov", 500, "verified", [2]string{"verified", "verified"}},
	} {
		cat.PutFile(&catalog.File{CardID: x.card.ID, Rel: x.rel, Size: x.size, State: x.state, Mtime: time.Now()})
		for i, d := range []*catalog.Dest{d1, d2} {
			cat.PutCopy(x.card.ID, x.rel, &catalog.Copy{DestID: d.ID, Path: "day03/" + x.rel, State: x.cp[i]})
			if x.cp[i] == "failed" {
				f.failures++
			}
		}
		if x.state == "verified" || x.state == "copied" {
			f.copied += x.size
		}
	}
	// The engine's live snapshot: A001 copying at 1000 B/s, 3000 of
	// its 10,000 bytes copied (A002 ended before: not in it).
	f.live = f.play(t, time.Now().Add(-3*time.Second), 3, func(i int) []live.Counters {
		return []live.Counters{copying("A001", 1, 4, 10_000, int64(i+1)*1000, "/raid", "/shuttle")}
	})
	return f
}

// copying is the engine's counters of run label (hop) copying, copied of
// bytes read and written to every destination of dests.
func copying(label string, hop, files int, bytes, copied int64, dests ...string) live.Counters {
	c := live.Counters{Key: label + strconv.Itoa(hop), Label: label, Hop: hop, Phase: live.Copying, Files: files, Bytes: bytes,
		BytesCopied: copied, FilesCopied: int(copied * int64(files) / bytes), VerifyTotal: bytes * int64(len(dests)), VerifyFiles: files * len(dests)}
	for _, d := range dests {
		c.Dests = append(c.Dests, live.DestCounters{Dest: d, State: live.DestWriting, Bytes: bytes, BytesWritten: copied,
			VerifyTotal: bytes, VerifyFiles: files})
	}
	return c
}

// play runs the engine's live model (package live) over ticks seconds
// from start, fed runs(i) at tick i (planned at 1000 B/s), records its
// last snapshot in the catalog as the engine does (offload: once a
// second, table live) and returns it as a front end reads it back.
func (f *fixture) play(t *testing.T, start time.Time, ticks int, runs func(i int) []live.Counters) live.Progress {
	t.Helper()
	m := live.NewModel(live.Config{Verify: true, Prior: func(string, int) live.Prior { return live.Prior{Rate: 1000, VerifyRate: 4000} }}, start)
	var p live.Progress
	for i := range ticks {
		p = m.Tick(start.Add(time.Duration(i+1)*time.Second), runs(i))
	}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	f.cat.PutLive(f.job.ID, p.Job.At, b)
	require.NoError(t, f.cat.Flush())
	got, at, ok, err := offload.LiveProgress(f.cat, f.job.ID)
	require.NoError(t, err)
	require.True(t, ok)
	require.WithinDuration(t, p.Job.At, at, time.Millisecond)
	return got
}

func forBackends(t *testing.T, f func(t *testing.T, loc string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "c.db")) })
	t.Run("postgres", func(t *testing.T) {
		u, err := pgtest.ForTest(t).NewDatabase("serve")
		require.NoError(t, err)
		f(t, u)
	})
}

func get(t *testing.T, method, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader("x=1"))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// Without the token every endpoint answers 401; with it, every method but
// GET and HEAD is refused and the catalog is left as it was.
func TestTokenAndReadOnly(t *testing.T) {
	forBackends(t, func(t *testing.T, loc string) {
		f := newFixture(t, loc)
		s := New(f.cat, Options{Token: "s3cret"})
		ts := httptest.NewServer(s.Handler())
		defer ts.Close()
		before, err := s.Snapshot()
		require.NoError(t, err)
		paths := []string{"/", "/api/status", "/events", "/metrics", "/nothing"}
		for _, p := range paths {
			for _, tok := range []string{"", "wrong"} {
				r := get(t, "GET", ts.URL+p, tok)
				r.Body.Close()
				require.Equal(t, http.StatusUnauthorized, r.StatusCode, "GET %s with token %q", p, tok)
			}
			r := get(t, "GET", ts.URL+p+"?token=nope", "")
			r.Body.Close()
			require.Equal(t, http.StatusUnauthorized, r.StatusCode)
			for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"} {
				r := get(t, m, ts.URL+p, "s3cret")
				r.Body.Close()
				require.Equal(t, http.StatusMethodNotAllowed, r.StatusCode, "%s %s", m, p)
				r = get(t, m, ts.URL+p, "")
				r.Body.Close()
				require.Equal(t, http.StatusUnauthorized, r.StatusCode, "%s %s without the token", m, p)
			}
		}
		r := get(t, "GET", ts.URL+"/api/status?token=s3cret", "")
		require.Equal(t, http.StatusOK, r.StatusCode)
		var st Status
		require.NoError(t, json.NewDecoder(r.Body).Decode(&st))
		r.Body.Close()
		after, err := s.Snapshot()
		require.NoError(t, err)
		before.Generated, after.Generated, st.Generated = time.Time{}, time.Time{}, time.Time{}
		require.Equal(t, before, after, "nothing changed")
		require.Equal(t, *before, st)
		require.Len(t, st.Jobs, 1)
		require.Equal(t, "cart-a", st.Jobs[0].Station)
		require.True(t, st.Jobs[0].Active)
		// The API's card is the engine's summary of it, with the live
		// model's run while it is at work.
		sum, err := offload.LoadSummary(f.cat, f.job.ID)
		require.NoError(t, err)
		a001, a002 := st.Jobs[0].Cards[0], st.Jobs[0].Cards[1]
		require.Equal(t, sum.Cards[0].Label, a001.Label)
		require.Equal(t, verdict.Copying, a001.Status)
		require.Equal(t, "Copying: NOT safe to format yet", a001.Verdict)
		require.Equal(t, f.live.Cards[0], *a001.Live)
		require.Equal(t, f.live.Job, *st.Jobs[0].Live)
		require.Equal(t, "copying — NOT safe yet", a001.Shown.State)
		require.Equal(t, "3.00 kB of 10.0 kB", a001.Shown.Progress)
		require.Equal(t, units.FormatRate(f.live.Cards[0].Rate), a001.Shown.Rate)
		require.Nil(t, a002.Live, "an ended card has no live run")
		require.Equal(t, "safe to format", a002.Shown.State)
		require.Equal(t, ToneSafe, a002.Shown.Tone)
		require.Equal(t, []string{"A002"}, []string{st.SafeToFormat[0].Card})
		require.Len(t, st.SafeToFormat, 1)
	})
}

// /metrics parses with Prometheus's own text parser, and its figures are
// the catalog's.
func TestMetrics(t *testing.T) {
	forBackends(t, func(t *testing.T, loc string) {
		f := newFixture(t, loc)
		ts := httptest.NewServer(New(f.cat, Options{}).Handler())
		defer ts.Close()
		r := get(t, "GET", ts.URL+"/metrics", "")
		defer r.Body.Close()
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.Contains(t, r.Header.Get("Content-Type"), "text/plain; version=0.0.4")
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(r.Body)
		require.NoError(t, err)
		value := func(name string, labels map[string]string) float64 {
			t.Helper()
			fam := fams[name]
			require.NotNil(t, fam, name)
		next:
			for _, m := range fam.Metric {
				for _, l := range m.Label {
					if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
						continue next
					}
				}
				switch fam.GetType() {
				case dto.MetricType_COUNTER:
					return m.GetCounter().GetValue()
				default:
					return m.GetGauge().GetValue()
				}
			}
			t.Fatalf("%s%v: no such sample", name, labels)
			return 0
		}
		st := map[string]string{"station": "cart-a"}
		require.Equal(t, float64(f.copied), value("dit_bytes_copied_total", st), "C001+C002 of A001, C001 of A002")
		require.Equal(t, float64(f.failures), value("dit_verify_failures_total", st))
		require.Equal(t, 2.0, value("dit_files_verified_total", st))
		require.Equal(t, 1.0, value("dit_files_failed_total", st))
		require.Equal(t, 1.0, value("dit_jobs", map[string]string{"station": "cart-a", "state": "running"}))
		// The live model's figures, as the engine recorded them.
		a001 := map[string]string{"card": "A001"}
		require.Equal(t, f.live.Cards[0].Rate, value("dit_card_rate_bytes_per_second", a001))
		require.Equal(t, 3000.0, value("dit_card_done_bytes", map[string]string{"card": "A001", "phase": "copying"}))
		require.True(t, f.live.Cards[0].ETA.Safe.Known)
		require.Equal(t, f.live.Cards[0].ETA.Safe.Seconds, value("dit_card_eta_seconds", map[string]string{"card": "A001", "until": "safe_to_format"}))
		require.Equal(t, 0.0, value("dit_card_stalled", a001))
		require.Equal(t, f.live.Job.TBPerHour, value("dit_job_tb_per_hour", map[string]string{"station": "cart-a"}))
		require.Equal(t, 10000.0, value("dit_card_bytes", a001))
		require.Equal(t, 500.0, value("dit_card_bytes", map[string]string{"card": "A002"}))
	})
}

// The event stream sends the status at once, then again when the
// catalog changes (a new sample, written as another process would).
func TestEventsFollowTheCatalog(t *testing.T) {
	forBackends(t, func(t *testing.T, loc string) {
		f := newFixture(t, loc)
		s := New(f.cat, Options{Poll: 20 * time.Millisecond})
		ctx, _ := running(t, s) // stopped before the fixture's catalog closes
		ts := httptest.NewServer(s.Handler())
		defer ts.Close()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/events", nil)
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer r.Body.Close()
		require.Equal(t, "text/event-stream", r.Header.Get("Content-Type"))
		sc := bufio.NewScanner(r.Body)
		sc.Buffer(nil, 1<<20)
		next := func() Status {
			t.Helper()
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					require.NotContains(t, data, "0001-01-01", "no zero time in an event")
					var st Status
					require.NoError(t, json.Unmarshal([]byte(data), &st))
					return st
				}
			}
			t.Fatalf("event stream ended: %v", sc.Err())
			return Status{}
		}
		first := next()
		require.Equal(t, int64(3000), first.Jobs[0].Cards[0].Live.BytesCopied)
		require.WithinDuration(t, time.Now(), first.Generated, time.Hour, "the first event carries the time it was read")
		// The figures as people read them, by the shared formatter.
		require.Equal(t, "3.00 kB of 10.0 kB", first.Jobs[0].Cards[0].Shown.Progress)
		require.Equal(t, "500 B", first.Jobs[0].Cards[1].Shown.Progress)
		require.Empty(t, first.Jobs[0].Cards[1].Shown.Rate, "no rate once verified")
		// The engine, in another process, records its next snapshot.
		other, err := catalog.Open(loc)
		require.NoError(t, err)
		o := &fixture{cat: other, job: f.job}
		now := o.play(t, time.Now().Add(-5*time.Second), 5, func(i int) []live.Counters {
			return []live.Counters{copying("A001", 1, 4, 10_000, int64(i+1)*1400, "/raid", "/shuttle")}
		})
		require.NoError(t, other.Close())
		second := next()
		require.Equal(t, int64(7000), second.Jobs[0].Cards[0].Live.BytesCopied)
		require.Equal(t, now.Cards[0], *second.Jobs[0].Cards[0].Live, "the engine's snapshot, not a figure of serve's")
		require.Equal(t, units.FormatRate(now.Cards[0].Rate), second.Jobs[0].Cards[0].Shown.Rate)
		require.False(t, second.Generated.Before(first.Generated))
	})
}

// A cascade's card whose first run is verified while its second run
// copies is "card free", never "verified" or safe: in the JSON (state,
// card_free), the safe-to-format list and the metrics. Once the second run
// is verified too, the same card is safe to format everywhere, and a job
// whose process is gone never shows a state of work.
func TestCascadeCardFreeIsNotSafe(t *testing.T) {
	forBackends(t, func(t *testing.T, loc string) {
		cat, err := catalog.Open(loc)
		require.NoError(t, err)
		defer cat.Close()
		host, _ := os.Hostname()
		job := &catalog.Job{Name: "day04", State: catalog.JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
			Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
		require.NoError(t, cat.CreateJob(job))
		raid, shuttle := &catalog.Dest{JobID: job.ID, Path: "/raid"}, &catalog.Dest{JobID: job.ID, Seq: 1, Path: "/shuttle", Hop: 2}
		require.NoError(t, cat.AddDest(raid))
		require.NoError(t, cat.AddDest(shuttle))
		k := &catalog.Card{JobID: job.ID, Label: "A002", Path: "/cards/A002", State: "verified", Bytes: 300, Files: 1, DoneAt: time.Now()}
		require.NoError(t, cat.AddCard(k))
		cat.UpdateCard(k)
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: "C001.mov", Size: 300, State: "verified", Mtime: time.Now()})
		cat.PutCopy(k.ID, "C001.mov", &catalog.Copy{DestID: raid.ID, Path: "day04/A002/C001.mov", State: "verified"})
		h := &catalog.Card{JobID: job.ID, Seq: 1, Label: "A002", Path: "/raid/day04/A002", State: "copying", Bytes: 300, Files: 1, Hop: 2, FromCard: k.ID}
		require.NoError(t, cat.AddCard(h))
		cat.UpdateCard(h)
		cat.PutFile(&catalog.File{CardID: h.ID, Rel: "C001.mov", Size: 300, State: "pending", Mtime: time.Now()})
		require.NoError(t, cat.Flush())
		// The engine's snapshot: the first run done, the second copying.
		f := &fixture{cat: cat, job: job}
		f.play(t, time.Now().Add(-3*time.Second), 3, func(i int) []live.Counters {
			first := copying("A002", 1, 1, 300, 300, "/raid")
			first.Phase, first.BytesVerified, first.FilesVerified = live.Done, 300, 1
			first.Dests[0].State, first.Dests[0].BytesVerified, first.Dests[0].FilesVerified = live.DestVerified, 300, 1
			return []live.Counters{first, copying("A002", 2, 1, 300, int64(i+1)*40, "/shuttle")}
		})

		s := New(cat, Options{})
		st, err := s.Snapshot()
		require.NoError(t, err)
		require.Len(t, st.Jobs, 1)
		require.Len(t, st.Jobs[0].Cards, 1, "one entry per card: its second run in then")
		c1 := st.Jobs[0].Cards[0]
		require.Equal(t, verdict.CardFree, c1.Status)
		require.True(t, c1.CardFree)
		require.False(t, c1.SafeToFormat)
		require.Contains(t, c1.Verdict, "NOT safe to format")
		require.Equal(t, verdict.Copying, c1.Then.Status)
		require.Equal(t, 2, c1.Live.Hop, "the run at work: the second")
		require.Equal(t, int64(120), c1.Live.BytesCopied)
		require.Equal(t, "card free — NOT safe to format yet", c1.Shown.State)
		require.Equal(t, ToneFree, c1.Shown.Tone)
		require.Equal(t, "second run: copying", c1.Shown.Phase)
		require.True(t, st.Jobs[0].Cascade)
		require.Empty(t, st.SafeToFormat, "a free card is not safe to format")
		ts := httptest.NewServer(s.Handler())
		defer ts.Close()
		metric := func(name string) string {
			r := get(t, "GET", ts.URL+"/metrics", "")
			defer r.Body.Close()
			b, _ := io.ReadAll(r.Body)
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, name+"{") && strings.Contains(l, `card="A002"`) {
					return l[strings.LastIndex(l, " ")+1:]
				}
			}
			return "missing"
		}
		require.Equal(t, "1", metric("dit_card_free"))
		require.Equal(t, "0", metric("dit_card_safe_to_format"))

		// The second run verified: safe to format, in every view.
		h.State, h.DoneAt = "verified", time.Now()
		cat.UpdateCard(h)
		cat.PutFile(&catalog.File{CardID: h.ID, Rel: "C001.mov", Size: 300, State: "verified", Mtime: time.Now()})
		cat.PutCopy(h.ID, "C001.mov", &catalog.Copy{DestID: shuttle.ID, Path: "day04/A002/C001.mov", State: "verified"})
		require.NoError(t, cat.SetJobState(job.ID, catalog.JobDone, time.Now(), ""))
		require.NoError(t, cat.Flush())
		st, err = s.Snapshot()
		require.NoError(t, err)
		require.Equal(t, verdict.Done, st.Jobs[0].State)
		require.Equal(t, verdict.Safe, st.Jobs[0].Cards[0].Status)
		require.Equal(t, verdict.Verified, st.Jobs[0].Cards[0].Then.Status)
		require.Nil(t, st.Jobs[0].Cards[0].Live, "an ended job shows no live figures")
		require.Nil(t, st.Jobs[0].Live)
		require.Len(t, st.SafeToFormat, 1)
		require.Equal(t, "1", metric("dit_card_safe_to_format"))

		// Its process gone mid-way (the job recorded running, its pid
		// dead): interrupted, not copying.
		h.State = "copying"
		cat.UpdateCard(h)
		require.NoError(t, cat.Flush())
		_, err = cat.Exec(`UPDATE jobs SET state='running', pid=? WHERE id=?`, deadPID(t), job.ID)
		require.NoError(t, err)
		st, err = s.Snapshot()
		require.NoError(t, err)
		require.Equal(t, verdict.Interrupted, st.Jobs[0].State)
		require.Equal(t, verdict.Interrupted, st.Jobs[0].Cards[0].Status)
		for _, c := range st.Jobs[0].Cards {
			require.True(t, c.Status.Ended(), "%s shows %s", c.Label, c.Status)
			require.True(t, c.Then.Status.Ended(), "%s's second run shows %s", c.Label, c.Then.Status)
			require.Nil(t, c.Live, "no process: its last snapshot is not live")
		}
		require.Nil(t, st.Jobs[0].Live)
	})
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

// A verified card whose copy was found bad since (dit verify, a cascade's
// second run: its row still says verified) is not listed safe to format:
// at the next poll without the verdicts' cache, and once the cache of a
// running job's verdicts (5 s) has run out with it.
func TestWithdrawnCopyNotSafe(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "c.db"))
	now := time.Now()
	clock := func() time.Time { return now }
	s := New(f.cat, Options{Now: clock})
	fresh := New(f.cat, Options{Now: clock, Verdicts: -1})
	st, err := s.Snapshot()
	require.NoError(t, err)
	require.Len(t, st.SafeToFormat, 1)
	dests, err := f.cat.Dests(f.job.ID)
	require.NoError(t, err)
	f.cat.FailCopy(f.a002.ID, "C001.mov", dests[1].ID, "dit verify: xxh64 differs")
	st, err = fresh.Snapshot()
	require.NoError(t, err)
	require.Empty(t, st.SafeToFormat)
	now = now.Add(6 * time.Second)
	st, err = s.Snapshot()
	require.NoError(t, err)
	require.Empty(t, st.SafeToFormat, "a running job's cached verdicts are read again after 5 s")

	// An ended job's: at the next poll after a copy changed.
	require.NoError(t, f.cat.SetJobState(f.job.ID, catalog.JobDone, now, ""))
	st, err = s.Snapshot()
	require.NoError(t, err)
	require.NotEqual(t, verdict.Safe, st.Jobs[0].Cards[1].Status)
	f.cat.PutCopy(f.a001.ID, "C004.mov", &catalog.Copy{DestID: dests[0].ID, Path: "day03/C004.mov", State: "verified"})
	require.NoError(t, f.cat.Flush())
	counts, err := f.cat.JobCounts(f.job.ID)
	require.NoError(t, err)
	v, _ := s.sums.Load(f.job.ID)
	require.NotEqual(t, v.(sumCache).counts, counts, "a copy's change changes the counts")
	_, err = s.Snapshot()
	require.NoError(t, err)
	v, _ = s.sums.Load(f.job.ID)
	require.Equal(t, counts, v.(sumCache).counts, "so the ended job's verdicts are read again at once")
	for _, c := range st.Jobs[0].Cards {
		require.False(t, c.SafeToFormat, c.Label)
	}
}

// An array destination whose scrub found a stripe it cannot read is
// "damaged", the file named: the health record, not only the members.
func TestArrayHealthShowsRecordedDamage(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range []string{"b1", "b2", "b3"} {
		d := filepath.Join(root, n)
		require.NoError(t, os.Mkdir(d, 0o755))
		dirs = append(dirs, d)
	}
	a, err := raid.Create(dirs, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10})
	require.NoError(t, err)
	w, err := a.Create(raid.FileSpec{Path: "A001/C001.mov", Mtime: time.Now()})
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 300_000))
	require.NoError(t, err)
	_, err = w.Commit()
	require.NoError(t, err)
	require.NoError(t, a.Close())
	s := &Server{}
	got, ok := s.array(dirs[0])
	require.True(t, ok)
	require.Equal(t, "healthy", got.Health)
	// Stripe 0 of both data blades flipped: the file cannot be read.
	for _, d := range dirs[:2] {
		require.NoError(t, filepath.Walk(filepath.Join(d, raid.Dir, "chunks"), func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && fi.Size() > 10 {
				b, _ := os.ReadFile(p)
				b[10] ^= 1
				return os.WriteFile(p, b, 0o644)
			}
			return err
		}))
	}
	a, err = raid.Open(dirs[:1], raid.OpenOptions{})
	require.NoError(t, err)
	rep, err := a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.False(t, rep.Clean())
	a.Close()
	s = &Server{}
	got, _ = s.array(dirs[1])
	require.Equal(t, "damaged", got.Health)
	require.Equal(t, []string{"A001/C001.mov"}, got.Unreadable)
	require.Greater(t, got.DamagedUnits, 1)
}
