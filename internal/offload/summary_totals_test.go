package offload

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/summary"
)

// checkTotals compares, for every job of cat, the summary read from the
// cards' totals (LoadSummary) with the one read file by file: the same
// verdicts from the same facts. newEnv runs it when each test of this
// package ends, so every job they make (clean, failed, interrupted,
// resumed, cascades, faults) is compared.
func checkTotals(t *testing.T, cat *catalog.Catalog) {
	t.Helper()
	jobs, err := cat.Jobs()
	if err != nil {
		t.Errorf("checkTotals: %v", err)
		return
	}
	for _, j := range jobs {
		a, err := LoadSummary(cat, j.ID)
		if err != nil {
			t.Errorf("job %d: %v", j.ID, err)
			continue
		}
		b, err := summary.LoadFileByFile(cat, j.ID)
		if err != nil {
			t.Errorf("job %d per file: %v", j.ID, err)
			continue
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("job %d: the summary from the totals differs from the one read file by file:\ntotals   %s\nper file %s", j.ID, ja, jb)
		}
	}
}

// On PostgreSQL too: a clean job, one with a failed file, one
// interrupted (compared) then resumed, and a cascade, in one catalog on
// a real server; each job's summary from the totals is the one read file
// by file.
func TestTotalsSummaryOnPostgres(t *testing.T) {
	srv := pgtest.ForTest(t)
	url, err := srv.NewDatabase("totals")
	require.NoError(t, err)
	cat, err := catalog.Open(url)
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	e := &env{t: t, dir: t.TempDir(), cat: cat}
	a, b := twoCards(t, e)

	s, err := e.run(e.opts([]string{a, b}, []string{e.dest("clean1"), e.dest("clean2")}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)

	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: "A001/CLIPS/C002.mov", ReadErrAt: 70_000})
	o := e.opts([]string{a, b}, []string{e.dest("fail1"), e.dest("fail2")})
	o.FS = f
	s, err = e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)

	o = e.opts([]string{a}, []string{e.dest("int1"), e.dest("int2")})
	o.BlockSize, o.Throttle = 16<<10, 200_000
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile && ev.State == StateVerified {
			once.Do(cancel)
		}
	}
	j, err := New(ctx, o)
	require.NoError(t, err)
	s, err = j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	checkTotals(t, cat)
	j, err = Resume(context.Background(), cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s, err = j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)

	o = e.opts([]string{b}, []string{e.dest("raid")})
	o.Then = []string{e.dest("shuttle")}
	s, err = e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	checkTotals(t, cat)
}
