package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/units"
)

// figuresFixture records a job interrupted then resumed: its first run
// was killed (never finished; a destination's sample is its last), the
// second ran 30 s; two cards copied at once, one verified; samples that
// cover a whole second, part of one, and one recorded before samples had
// an interval (seconds NULL: one second).
func figuresFixture(t *testing.T, cat *catalog.Catalog) int64 {
	t0 := time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	j := &catalog.Job{Name: "Resumed", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "/raid", Hop: 1}
	require.NoError(t, cat.AddDest(d))
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/media/A001", State: "verified", Bytes: 15e9, Hop: 1}
	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "B001", Path: "/media/B001", State: "copied", Bytes: 5e9 + 100007, Hop: 1}
	require.NoError(t, cat.AddCard(a))
	require.NoError(t, cat.AddCard(b))
	_, err := cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	for s := 1; s <= 9; s++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(s)), Bytes: int64(s) * 1e9, Rate: 1e9, Phase: "copy", Seconds: 1})
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, DestID: d.ID, T: at(float64(s)), Bytes: int64(s) * 1e9, Rate: 1e9, Phase: "copy", Seconds: 1})
	}
	// The card's read stopped 0.4 s into its tenth second; the
	// destination's row covers that whole second, and is the run's last.
	cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(9.4), Bytes: 10e9, Rate: 2.5e9, Phase: "copy", Seconds: 0.4})
	cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, DestID: d.ID, T: at(11), Bytes: 10e9, Rate: 1e9, Phase: "copy", Seconds: 1})
	// Killed; resumed at t0+100 s for 30 s.
	seq, err := cat.StartRun(j.ID, at(100))
	require.NoError(t, err)
	for s := 101; s <= 105; s++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(s)), Rate: 1e9, Phase: "copy", Seconds: 1})
	}
	for s := 106; s <= 120; s++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(s)), Rate: 1e9, Phase: "verify", Seconds: 1})
	}
	for s := 101; s <= 110; s++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(float64(s)), Rate: 5e8, Phase: "copy", Seconds: 1})
	}
	cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(110.3), Rate: 333333.3, Phase: "copy", Seconds: 0.3})
	cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(111.3), Rate: 7, Phase: "copy"}) // seconds NULL
	require.NoError(t, cat.EndRun(j.ID, seq, at(130)))
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(130), ""))
	require.NoError(t, cat.Flush())
	return j.ID
}

// rowFigures are a job's figures computed from its rows by their
// definition (offload.Activity): bytes copied, the sum over the cards'
// own copy samples of rate x seconds (a NULL interval one second); active
// time, the runs summed, a killed run ending at the job's last sample
// (any card's or destination's) before the next run started; paused, the
// rest of the span from the first start to the last end; the size, the
// cards' bytes.
type rowFigures struct {
	bytes, copied  int64
	active, paused time.Duration
}

func figuresFromRows(t *testing.T, cat *catalog.Catalog, id int64) rowFigures {
	var f rowFigures
	sum, err := cat.Query(`SELECT SUM(bytes) FROM cards WHERE job_id=?`, id)
	require.NoError(t, err)
	require.True(t, sum.Next())
	require.NoError(t, sum.Scan(&f.bytes))
	sum.Close()
	rows, err := cat.Query(`SELECT dest_id, t, rate, seconds, phase FROM samples WHERE job_id=?`, id)
	require.NoError(t, err)
	var ts []time.Time
	for rows.Next() {
		var dest sql.NullInt64
		var secs sql.NullFloat64
		var tt, phase string
		var rate float64
		require.NoError(t, rows.Scan(&dest, &tt, &rate, &secs, &phase))
		at, err := time.Parse(time.RFC3339Nano, tt)
		require.NoError(t, err)
		ts = append(ts, at)
		if !dest.Valid && phase == "copy" {
			s := 1.0
			if secs.Valid {
				s = secs.Float64
			}
			f.copied += int64(rate*s + 0.5)
		}
	}
	require.NoError(t, rows.Err())
	rows.Close()
	runs, err := cat.Query(`SELECT started, COALESCE(finished,'') FROM runs WHERE job_id=? ORDER BY seq`, id)
	require.NoError(t, err)
	type run struct{ from, to time.Time }
	var rs []run
	for runs.Next() {
		var a, b string
		require.NoError(t, runs.Scan(&a, &b))
		r := run{}
		r.from, _ = time.Parse(time.RFC3339Nano, a)
		r.to, _ = time.Parse(time.RFC3339Nano, b)
		rs = append(rs, r)
	}
	runs.Close()
	for i, r := range rs {
		if r.to.IsZero() {
			r.to = r.from
			for _, at := range ts {
				if at.After(r.to) && (i+1 == len(rs) || at.Before(rs[i+1].from)) {
					r.to = at
				}
			}
		}
		f.active += r.to.Sub(r.from)
		rs[i] = r
	}
	f.paused = rs[len(rs)-1].to.Sub(rs[0].from) - f.active
	return f
}

// What dit jobs and dit job show print of a job interrupted then
// resumed (its TB/hour, size, time active and paused) is what its rows
// give by the figures' definitions, on SQLite and PostgreSQL.
func TestJobsFiguresAreTheRowsFigures(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "c.db")
			if backend == "postgres" {
				u, err := pgtest.ForTest(t).NewDatabase("figures")
				require.NoError(t, err)
				db = u
			}
			cat, err := catalog.Open(db)
			require.NoError(t, err)
			id := figuresFixture(t, cat)
			want := figuresFromRows(t, cat, id)
			require.NoError(t, cat.Close())
			// The fixture's figures, by hand: 10+5+5 GB and 100,007 bytes
			// copied; 11 s (the killed run, to the destination's sample)
			// and 30 s active, of 130 s.
			require.Equal(t, int64(20e9+100007), want.copied)
			require.Equal(t, 41*time.Second, want.active)
			require.Equal(t, 89*time.Second, want.paused)
			tbPerHour := units.TBPerHour(want.copied, want.active)

			var out bytes.Buffer
			g := &GlobalOptions{DB: db, stdout: &out, stderr: os.Stderr}
			require.NoError(t, runJobs(JobsOptions{JSON: true}, g))
			var list []jobListEntry
			require.NoError(t, json.Unmarshal(out.Bytes(), &list))
			require.Len(t, list, 1)
			require.Equal(t, want.bytes, list[0].Bytes)
			require.Equal(t, tbPerHour, list[0].TBPerHour)

			out.Reset()
			require.NoError(t, runJobs(JobsOptions{}, g))
			require.Contains(t, out.String(), "  "+units.FormatBytes(want.bytes)+"  ")
			require.Contains(t, out.String(), "  "+strings.TrimSuffix(tbh(tbPerHour), " TB/hour")+"  ")

			out.Reset()
			require.NoError(t, runJobShow(JobShowOptions{JSON: true}, g, id))
			var show struct {
				Bytes         int64   `json:"bytes"`
				BytesCopied   int64   `json:"bytes_copied"`
				TBPerHour     float64 `json:"tb_per_hour"`
				Seconds       float64 `json:"seconds"`
				ActiveSeconds float64 `json:"active_seconds"`
				PausedSeconds float64 `json:"paused_seconds"`
				Runs          int     `json:"runs"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &show))
			require.Equal(t, want.bytes, show.Bytes)
			require.Equal(t, want.copied, show.BytesCopied)
			require.Equal(t, tbPerHour, show.TBPerHour)
			require.Equal(t, want.active.Seconds(), show.ActiveSeconds)
			require.Equal(t, want.paused.Seconds(), show.PausedSeconds)
			require.Equal(t, 130.0, show.Seconds)
			require.Equal(t, 2, show.Runs)
		})
	}
}
