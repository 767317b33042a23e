package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/plan"
)

// planRunJob records a finished job in a real catalog with the plan it
// ran with: cards A001 and A002 to one folder (and, cascading, their
// second runs to a shuttle), each card's times set so that what it did
// is known to the millisecond. The plan (detail, and the run's units in
// runDetail when given) is recorded as the scheduler records it.
func planRunJob(t *testing.T, db string, cascade bool, detail, runDetail *plan.Result) (int64, time.Time) {
	t.Helper()
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	j := &catalog.Job{Name: "day01", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	require.NoError(t, cat.AddDest(&catalog.Dest{JobID: j.ID, Path: "/Volumes/RAID", Hop: 1}))
	if cascade {
		require.NoError(t, cat.AddDest(&catalog.Dest{JobID: j.ID, Seq: 1, Path: "/Volumes/SHUTTLE", Hop: 2}))
	}
	_, err = cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	// copy start, copied, read back, done (sealed) in ms from t0.
	times := map[string][4]int{"A001": {500, 10_500, 11_000, 12_500}, "A002": {600, 20_600, 21_000, 23_000}}
	var last time.Time
	for i, label := range []string{"A001", "A002"} {
		tm := times[label]
		k := &catalog.Card{JobID: j.ID, Seq: i, Label: label, Path: "/cards/" + label, Files: 10, Bytes: 1e9, Hop: 1, State: "pending"}
		require.NoError(t, cat.AddCard(k))
		k.State, k.CopyStarted, k.CopyFinished, k.VerifyStarted, k.VerifyFinished, k.DoneAt = "verified", ms(tm[0]), ms(tm[1]), ms(tm[0]), ms(tm[2]), ms(tm[3])
		cat.UpdateCard(k)
		last = ms(tm[3])
		if cascade {
			h := &catalog.Card{JobID: j.ID, Seq: 2 + i, Label: label, Path: "/Volumes/RAID/day01/" + label, Files: 10, Bytes: 1e9, Hop: 2, FromCard: k.ID, State: "pending"}
			require.NoError(t, cat.AddCard(h))
			h.State, h.CopyStarted, h.CopyFinished, h.VerifyFinished, h.DoneAt = "verified", ms(tm[3]), ms(tm[3]+30_000), ms(tm[3]+30_500), ms(tm[3]+31_000+i*40_000)
			cat.UpdateCard(h)
			last = h.DoneAt
		}
	}
	d, err := json.Marshal(detail)
	require.NoError(t, err)
	p := &catalog.Plan{JobID: j.ID, T: t0, Reason: "start", Total: 1e9, Detail: string(d)}
	if runDetail != nil {
		r, err := json.Marshal(runDetail)
		require.NoError(t, err)
		p.RunDetail, p.Simulated, p.Scale = string(r), true, 0.1
	}
	for _, c := range detail.Cards {
		p.Cards = append(p.Cards, catalog.PlanCard{Name: c.Name, Rate: c.Rate, LimitedBy: c.LimitedBy, ETASeconds: c.ETASeconds})
	}
	require.NoError(t, cat.AddPlan(p))
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, last, ""))
	return j.ID, ms(500)
}

func f64(v float64) *float64 { return &v }

// showPlanRun runs dit job show (text and --json) on the job.
func showPlanRun(t *testing.T, db string, id int64) (string, *planRun) {
	t.Helper()
	var text, js bytes.Buffer
	require.NoError(t, runJobShow(JobShowOptions{}, &GlobalOptions{DB: db, stdout: &text, stderr: os.Stderr}, id))
	require.NoError(t, runJobShow(JobShowOptions{JSON: true}, &GlobalOptions{DB: db, stdout: &js, stderr: os.Stderr}, id))
	var out struct {
		PlanVsRun *planRun `json:"plan_vs_run"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &out), js.String())
	return text.String(), out.PlanVsRun
}

// checkTime checks one time against its definitions: planned as the
// plan says, ran from the job's first copy start, ratio ran / planned.
func checkTime(t *testing.T, pv planVsRun, planned float64, ran time.Duration, what string) {
	t.Helper()
	require.NotNil(t, pv.Planned, what)
	require.NotNil(t, pv.Ran, what)
	require.InDelta(t, planned, *pv.Planned, 1e-9, what)
	require.InDelta(t, ran.Seconds(), *pv.Ran, 1e-9, what)
	require.InDelta(t, ran.Seconds()/planned, *pv.Ratio, 1e-9, what)
}

// dit job show sets the plan the job started with against what it did:
// each card's time to copied and to safe to format, and the job's (its
// last card's), from the first copy start, with their ratios.
func TestJobShowPlanAgainstRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	res := &plan.Result{Cards: []plan.CardPlan{
		{Name: "A001", Rate: 0.1e9, ETASeconds: f64(10), SafeSeconds: f64(11)},
		{Name: "A002", Rate: 0.05e9, ETASeconds: f64(20), SafeSeconds: f64(21)},
	}, ETASeconds: f64(20), SafeSeconds: f64(21)}
	id, start := planRunJob(t, db, false, res, nil)
	text, pr := showPlanRun(t, db, id)
	require.NotNil(t, pr)
	require.Equal(t, start, pr.Started.UTC())
	require.Len(t, pr.Cards, 2)
	// A001: copied at 10.5 s, safe at 12.5 s from t0; the job started
	// copying at 0.5 s.
	checkTime(t, pr.Cards[0].Copied, 10, 10*time.Second, "A001 copied")
	checkTime(t, pr.Cards[0].Safe, 11, 12*time.Second, "A001 safe")
	checkTime(t, pr.Cards[1].Copied, 20, 20100*time.Millisecond, "A002 copied")
	checkTime(t, pr.Cards[1].Safe, 21, 22500*time.Millisecond, "A002 safe")
	checkTime(t, pr.Copied, 20, 20100*time.Millisecond, "job copied")
	checkTime(t, pr.Safe, 21, 22500*time.Millisecond, "job safe")
	require.Nil(t, pr.Cards[0].Free)
	for _, want := range []string{"Plan against run (seconds from the first copy start",
		"CARD  COPIED: PLAN  RAN     RATIO  SAFE TO FORMAT: PLAN  RAN     RATIO",
		"A001  10.0 s        10.0 s  1.00   11.0 s                12.0 s  1.09",
		"job   20.0 s        20.1 s  1.01   21.0 s                22.5 s  1.07"} {
		require.Contains(t, text, want)
	}

	// A job without a plan (no bus budget) has no such section.
	plain := filepath.Join(t.TempDir(), "c.db")
	pid := genShowJob(t, plain, 3)
	text, pr = showPlanRun(t, plain, pid)
	require.Nil(t, pr)
	require.NotContains(t, text, "Plan against run")
}

// A cascade: each card's time to card free (its first run sealed) and to
// safe to format (its second run sealed); a simulated job's plan is read
// in the units of the run.
func TestJobShowPlanAgainstRunCascade(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	field := &plan.Result{Cards: []plan.CardPlan{
		{Name: "A001", ETASeconds: f64(1), FreeSeconds: f64(1.2), SafeSeconds: f64(3)},
		{Name: "A002", ETASeconds: f64(2), FreeSeconds: f64(2.2), SafeSeconds: f64(7)},
	}, ETASeconds: f64(2), SafeSeconds: f64(7), Cascade: &plan.Cascade{}}
	run := &plan.Result{Cards: []plan.CardPlan{
		{Name: "A001", ETASeconds: f64(10), FreeSeconds: f64(12), SafeSeconds: f64(40)},
		{Name: "A002", ETASeconds: f64(20), FreeSeconds: f64(22), SafeSeconds: f64(80)},
	}, ETASeconds: f64(20), SafeSeconds: f64(80), Cascade: &plan.Cascade{}}
	id, _ := planRunJob(t, db, true, field, run)
	text, pr := showPlanRun(t, db, id)
	require.NotNil(t, pr)
	require.Equal(t, 0.1, pr.Scale)
	a, b := pr.Cards[0], pr.Cards[1]
	require.NotNil(t, a.Free)
	checkTime(t, a.Copied, 10, 10*time.Second, "A001 copied")
	checkTime(t, *a.Free, 12, 12*time.Second, "A001 free: its first run sealed")
	checkTime(t, a.Safe, 40, 43*time.Second, "A001 safe: its second run sealed")
	checkTime(t, *b.Free, 22, 22500*time.Millisecond, "A002 free")
	checkTime(t, b.Safe, 80, 93500*time.Millisecond, "A002 safe")
	checkTime(t, pr.Safe, 80, 93500*time.Millisecond, "job safe")
	require.Contains(t, text, "simulated at 0.1 x the field rates, the plan in the run's units")
	require.Contains(t, text, "CARD FREE: PLAN")
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "A002 ") && strings.Contains(l, "1m20s") {
			line = l
		}
	}
	require.NotEmpty(t, line, text)
	require.Contains(t, line, "1m34s") // 93.5 s ran
	require.Contains(t, line, "1.17")
}
