package serve

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/units"
)

// stalledFixture is the fixture's running job with a third card, A003,
// whose copy to /shuttle has not moved for 15 s (the storage refuses
// connections; dit is at retry 3 of 10), while A001 copies at 1000 B/s:
// the engine's live snapshot of it in the catalog.
func stalledFixture(t *testing.T, loc string) *fixture {
	f := newFixture(t, loc)
	a003 := &catalog.Card{JobID: f.job.ID, Seq: 2, Label: "A003", Path: "/cards/A003", State: "copying", Bytes: 20_000, Files: 2}
	require.NoError(t, f.cat.AddCard(a003))
	f.cat.PutFile(&catalog.File{CardID: a003.ID, Rel: "C001.mov", Size: 20_000, State: "pending", Mtime: time.Now()})
	start := time.Now().Add(-20 * time.Second)
	f.live = f.play(t, start, 20, func(i int) []live.Counters {
		a := copying("A001", 1, 4, 10_000, min(int64(i+1)*400, 9000), "/raid", "/shuttle")
		s := copying("A003", 1, 2, 20_000, 3000, "/raid", "/shuttle")
		if i < 5 {
			s = copying("A003", 1, 2, 20_000, int64(i+1)*600, "/raid", "/shuttle")
		}
		d := &s.Dests[1]
		d.LastError, d.ErrorAt, d.Retries, d.Retry, d.RetryOf = "s3: connection refused", start.Add(time.Duration(i)*time.Second), 3, 3, 10
		return []live.Counters{a, s}
	})
	return f
}

// A running job's snapshot in the catalog: the API and the page show the
// engine's estimates (a card's time to safe, the job's: unknown while a
// card is stalled), its live TB/hour and rate, and the stall in the
// engine's words, each rendered from the model, never computed here.
func TestLiveFiguresOfARunningJob(t *testing.T) {
	forBackends(t, func(t *testing.T, loc string) {
		f := stalledFixture(t, loc)
		p := f.live
		require.Len(t, p.Cards, 2)
		a, s := p.Cards[0], p.Cards[1]
		require.NotNil(t, s.Stall, "the model saw the stall")
		require.Nil(t, a.Stall)
		require.True(t, a.ETA.Safe.Known)
		require.False(t, p.Job.ETA.Safe.Known, "unknown while a card is stalled")

		ts := httptest.NewServer(New(f.cat, Options{}).Handler())
		defer ts.Close()
		r := get(t, "GET", ts.URL+"/api/status", "")
		var st Status
		require.NoError(t, json.NewDecoder(r.Body).Decode(&st))
		r.Body.Close()
		js := st.Jobs[0]
		require.Equal(t, p.Job, *js.Live)
		require.Equal(t, units.FormatTBPerHour(p.Job.TBPerHour), js.Shown.TBPerHour)
		require.Equal(t, units.FormatRate(p.Job.Rate), js.Shown.Rate)
		require.Equal(t, "1 card(s) stalled", js.Shown.Stalled)
		require.Contains(t, js.Shown.ETA, "all safe to format: unknown")
		cards := map[string]Card{}
		for _, c := range js.Cards {
			cards[c.Label] = c
		}
		c1, c3 := cards["A001"], cards["A003"]
		require.Equal(t, a, *c1.Live)
		require.Contains(t, c1.Shown.ETA, "safe to format in "+a.ETA.Safe.String())
		require.Contains(t, c1.Shown.ETA, "copied in "+a.ETA.Copied.String())
		require.Empty(t, c1.Shown.Stall)
		require.Equal(t, s, *c3.Live)
		require.Equal(t, s.Stall.String(), c3.Shown.Stall)
		require.Regexp(t, `^s3: connection refused, retry 3 of 10, since 1\ds$`, c3.Shown.Stall)
		require.Equal(t, "/shuttle", c3.Live.Stall.Where)
		require.Contains(t, c3.Shown.ETA, "safe to format: unknown")
		require.Empty(t, c3.Shown.Rate, "a stalled run shows its stall, not a rate")

		// The page carries the same words.
		r = get(t, "GET", ts.URL+"/", "")
		page, _ := io.ReadAll(r.Body)
		r.Body.Close()
		for _, want := range []string{s.Stall.String(), "safe to format in " + a.ETA.Safe.String(), js.Shown.TBPerHour} {
			require.Contains(t, string(page), want)
		}
	})
}

// Another cart's running job is known to run only by its snapshots: one
// older than LiveStale is not shown as live; a fresh one is. A job of
// this machine whose process is gone shows none, however fresh.
func TestStaleSnapshotIsNotLive(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "c.db"))
	_, err := f.cat.Exec(`UPDATE jobs SET host='cart-b.local', pid=4242 WHERE id=?`, f.job.ID)
	require.NoError(t, err)
	at := f.live.Job.At
	now := at.Add(30 * time.Second)
	s := New(f.cat, Options{Now: func() time.Time { return now }})
	st, err := s.Snapshot()
	require.NoError(t, err)
	require.True(t, st.Jobs[0].Active, "the catalog cannot see another cart's process")
	require.Nil(t, st.Jobs[0].Live, "a snapshot 30 s old of another cart's job")
	require.Nil(t, st.Jobs[0].Cards[0].Live)
	require.Empty(t, st.Jobs[0].Shown.Rate)
	require.Empty(t, st.Jobs[0].Cards[0].Shown.ETA)
	now = at.Add(2 * time.Second)
	st, err = s.Snapshot()
	require.NoError(t, err)
	require.NotNil(t, st.Jobs[0].Live, "a fresh one is live")
	require.Equal(t, f.live.Cards[0], *st.Jobs[0].Cards[0].Live)

	host, _ := os.Hostname()
	_, err = f.cat.Exec(`UPDATE jobs SET host=?, pid=? WHERE id=?`, host, deadPID(t), f.job.ID)
	require.NoError(t, err)
	st, err = s.Snapshot()
	require.NoError(t, err)
	require.Nil(t, st.Jobs[0].Live, "its process is gone")
	require.Nil(t, st.Jobs[0].Cards[0].Live)
}

// pageScript is the status page's script run by Node.js over a minimal
// document: what the page renders from status JSON st, as text.
func pageScript(t *testing.T, ts *httptest.Server) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH: the page's script is not run (the headless-browser test in cmd/dit/e2e/frontends runs it)")
	}
	r := get(t, "GET", ts.URL+"/", "")
	page, _ := io.ReadAll(r.Body)
	r.Body.Close()
	m := regexp.MustCompile(`(?s)<script>(.*)</script>`).FindSubmatch(page)
	require.NotNil(t, m)
	shim := `const els={};
const el=id=>els[id]||(els[id]={innerHTML:"",textContent:""});
globalThis.document={getElementById:el,body:{dataset:{}}};
globalThis.location={search:""};
globalThis.EventSource=function(){this.addEventListener=()=>{};};
globalThis.window=globalThis;
`
	js := filepath.Join(t.TempDir(), "page.js")
	require.NoError(t, os.WriteFile(js, []byte(shim+string(m[1])+"\nconsole.log(el(\"main\").innerHTML);\n"), 0o644))
	out, err := exec.Command(node, js).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(out), " ")
}

// The page's script renders the model's words as given: the stall, the
// estimates, the live TB/hour; no raw number, nothing undefined.
func TestPageRendersTheModel(t *testing.T) {
	f := stalledFixture(t, filepath.Join(t.TempDir(), "c.db"))
	ts := httptest.NewServer(New(f.cat, Options{}).Handler())
	defer ts.Close()
	text := pageScript(t, ts)
	s := f.live.Cards[1]
	for _, want := range []string{"stalled: " + s.Stall.String(), "safe to format in " + f.live.Cards[0].ETA.Safe.String(),
		"live " + units.FormatTBPerHour(f.live.Job.TBPerHour), "1 card(s) stalled", "all safe to format: unknown",
		"copying — NOT safe yet · 8.00 kB of 10.0 kB", "safe to format"} {
		require.Contains(t, text, want)
	}
	for _, bad := range []string{"undefined", "NaN", "null"} {
		require.NotContains(t, text, bad)
	}
	require.NotRegexp(t, `\d+\.\d{4,}`, text, "a figure printed raw")
	require.False(t, strings.Contains(text, "0001-01-01"))
}
