package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/speedtest"
)

// A simulated job records its plan beside what it did, and learns its
// destination's costs; dit job show sets the one against the other, by
// their definitions: the plan in the run's units, each time from the
// first card's copy start, the ratio ran / planned. (How close they
// land is make bench's: a busy machine lags by any amount.)
func TestJobShowPlanAgainstARealJob(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "40MB", "--seed", "21")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), `
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-a}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid-tb3}
`)
	r = e2e.Dit(t, db, "offload", "--topology", topo, "--simulate", "--simulate-scale", "0.04", "--hash", "xxh64", "--block-size", "256KiB",
		"-d", raid, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sj := loadSim(t, db)
	var run struct {
		Cards []struct {
			Name string   `json:"name"`
			ETA  *float64 `json:"eta_s"`
			Safe *float64 `json:"safe_to_format_s"`
		} `json:"cards"`
		ETA  *float64 `json:"eta_s"`
		Safe *float64 `json:"safe_to_format_s"`
	}
	require.NoError(t, json.Unmarshal([]byte(sj.plans[0].RunDetail), &run))

	r = e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	type pv struct {
		Planned *float64 `json:"planned_s"`
		Ran     *float64 `json:"ran_s"`
		Ratio   *float64 `json:"ratio"`
	}
	var show struct {
		PlanVsRun struct {
			Started time.Time `json:"started_at"`
			Scale   float64   `json:"scale"`
			Cards   []struct {
				Card   string `json:"card"`
				Copied pv     `json:"copied"`
				Safe   pv     `json:"safe_to_format"`
			} `json:"cards"`
			Copied pv `json:"copied"`
			Safe   pv `json:"safe_to_format"`
		} `json:"plan_vs_run"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show), r.Stdout)
	pr := show.PlanVsRun
	require.Equal(t, 0.04, pr.Scale)
	ks, err := sj.cat.Cards(sj.job)
	require.NoError(t, err)
	start := ks[0].CopyStarted
	for _, k := range ks {
		if k.CopyStarted.Before(start) {
			start = k.CopyStarted
		}
	}
	require.True(t, start.Equal(pr.Started), "from the first copy start")
	check := func(got pv, planned *float64, ran time.Time, what string) {
		t.Helper()
		require.NotNil(t, planned, what)
		require.NotNil(t, got.Planned, what)
		require.InDelta(t, *planned, *got.Planned, 1e-9, what)
		require.InDelta(t, ran.Sub(start).Seconds(), *got.Ran, 1e-6, what)
		require.InDelta(t, *got.Ran / *got.Planned, *got.Ratio, 1e-9, what)
		t.Logf("%s: planned %.2f s, ran %.2f s (x %.2f)", what, *got.Planned, *got.Ran, *got.Ratio)
	}
	var lastCopy, lastSafe time.Time
	for i, k := range ks {
		c := pr.Cards[i]
		require.Equal(t, k.Label, c.Card)
		require.Equal(t, k.Label, run.Cards[i].Name)
		check(c.Copied, run.Cards[i].ETA, k.CopyFinished, k.Label+" copied")
		check(c.Safe, run.Cards[i].Safe, k.DoneAt, k.Label+" safe to format")
		if k.CopyFinished.After(lastCopy) {
			lastCopy = k.CopyFinished
		}
		if k.DoneAt.After(lastSafe) {
			lastSafe = k.DoneAt
		}
	}
	check(pr.Copied, run.ETA, lastCopy, "job copied")
	check(pr.Safe, run.Safe, lastSafe, "job safe to format")

	// The job taught the plan its destination's costs.
	rows, err := sj.cat.RecentCosts(speedtest.PathVolume(raid), 5)
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	r = e2e.Dit(t, db, "plan", "--topology", topo, "--no-cpu", "-d", raid, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "raid: measured costs used (")
}
