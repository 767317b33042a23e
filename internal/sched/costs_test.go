package sched

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/raid"
)

// costJob records a finished one-run job in a real catalog: card A001
// (verified) read in 0.2 s to its first file, then 98 files of 1 kB at
// 10 ms each and two of 100 MB at 1 s each (100 MB/s), to two folders;
// its last file read back 1.005 s after its copy, sealed 0.3 s later.
// Card B001 failed. Times are exact, so what is learned is too. The
// files' names are not in the order they were copied (the 100 MB ones
// are C026 and C063).
func costJob(t *testing.T, dests []string) (*catalog.Catalog, int64, time.Time) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	j := &catalog.Job{Name: "day01", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	for i, p := range dests {
		require.NoError(t, cat.AddDest(&catalog.Dest{JobID: j.ID, Seq: i, Path: p, Hop: 1}))
	}
	_, err = cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	a := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "pending", Files: 100, Hop: 1}
	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "B001", Path: "/cards/B001", State: "pending", Files: 30, Hop: 1}
	require.NoError(t, cat.AddCard(a))
	require.NoError(t, cat.AddCard(b))
	at := t0.Add(200 * time.Millisecond)
	for i := range 100 {
		f := &catalog.File{CardID: a.ID, Rel: fmt.Sprintf("C%03d", i*37%100), Size: 1000, State: "verified", CopyStarted: at}
		d := 10 * time.Millisecond
		if i >= 98 {
			f.Size, d = 100e6, time.Second
		}
		at = at.Add(d)
		f.CopyFinished = at
		a.Bytes += f.Size
		cat.PutFile(f)
	}
	a.State, a.CopyStarted, a.CopyFinished = "verified", t0, at
	a.VerifyStarted, a.VerifyFinished = t0.Add(300*time.Millisecond), at.Add(1005*time.Millisecond)
	a.DoneAt = a.VerifyFinished.Add(300 * time.Millisecond)
	cat.UpdateCard(a)
	b.State, b.CopyStarted, b.CopyFinished, b.Error = "failed", t0, at, "1 file(s) failed"
	cat.UpdateCard(b)
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, a.DoneAt, ""))
	return cat, j.ID, a.DoneAt
}

// What a finished job's cards cost beyond their bytes, from its
// catalog, against the definitions: the byte rate from its large files,
// each file's share of the copy's time beyond its start and its bytes,
// the read-back's tail beyond the last file (it kept up: the last
// file's own), the time from the last file read back to sealed.
func TestLearnCostsFromAFinishedJob(t *testing.T) {
	dests := []string{t.TempDir(), t.TempDir()}
	cat, id, done := costJob(t, dests)
	rows, err := LearnCosts(cat, id)
	require.NoError(t, err)
	vols := map[string]bool{CostVolume(dests[0]): true, CostVolume(dests[1]): true}
	require.Len(t, rows, len(vols), "A001 on each destination volume; the failed card teaches nothing")
	copyTime := 0.2 + 98*0.01 + 2*1.0
	bytes := 98*1000 + 2*100e6
	perFile := (copyTime - 0.2 - bytes/100e6) / 100
	for i, r := range rows {
		require.Equal(t, dests[i], r.Path)
		require.Equal(t, CostVolume(dests[i]), r.Volume)
		require.True(t, vols[r.Volume])
		require.Equal(t, plan.CostFolder, r.Kind)
		require.Equal(t, "A001", r.Card)
		require.Equal(t, 100, r.Files)
		require.Equal(t, done, r.T.UTC())
		// Folders made and the card sealed on one destination after the
		// other: each its half.
		require.InDelta(t, 0.2/2, *r.Start, 1e-9)
		require.InDelta(t, perFile, *r.PerFile, 1e-9)
		require.InDelta(t, 0.005, *r.VerifyPerFile, 1e-9)
		require.InDelta(t, 0.3/2, *r.Fixed, 1e-9)
		require.Contains(t, r.Detail, "0.100 GB/s (its 2 files of 8.00 MB or more)")
	}
	again, err := cat.RecentCosts(CostVolume(dests[0]), 5)
	require.NoError(t, err)
	require.Len(t, again, 1, "recorded")

	// A resumed job's card times span its runs: nothing is learned.
	_, err = cat.StartRun(id, done.Add(time.Hour))
	require.NoError(t, err)
	rows, err = LearnCosts(cat, id)
	require.NoError(t, err)
	require.Empty(t, rows)
}

// The plan takes a destination's measured costs (the median of its
// recent ones) in place of its kind's defaults, and says so; a dit
// array's blade is of kind array, a cloud remote of kind cloud.
func TestApplyCosts(t *testing.T) {
	dests := []string{t.TempDir(), t.TempDir()}
	cat, id, _ := costJob(t, dests)
	_, err := LearnCosts(cat, id)
	require.NoError(t, err)
	var blades []string
	for i := range 3 {
		blades = append(blades, filepath.Join(t.TempDir(), fmt.Sprintf("blade%d", i+1)))
		require.NoError(t, os.Mkdir(blades[i], 0o755))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "costs"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	top := topo(t, fmt.Sprintf(`
sources:
  - {name: A001, read_rate: 0.5GB/s, size: 1GB, files: 1000}
destinations:
  - {name: shuttle, path: %s, write_rate: 1GB/s, read_rate: 1GB/s}
  - {name: raid, path: %s, write_rate: 2GB/s, read_rate: 2GB/s}
  - {name: b2, path: "rclone:b2:show/day1"}
`, dests[0], blades[0]))
	notes := ApplyCosts(top, cat.RecentCosts)
	require.Len(t, notes, 1, "one destination measured")
	require.Contains(t, notes[0], "shuttle: measured costs used (1 card run(s)")
	d := top.Destinations
	require.Equal(t, plan.CostFolder, d[0].CostKind)
	require.Equal(t, plan.CostArray, d[1].CostKind)
	require.Equal(t, plan.CostCloud, plan.CostKindOf(d[2]))
	require.NotNil(t, d[0].Costs)
	def := plan.DefaultCosts[plan.CostFolder]
	require.InDelta(t, 0.15-100*def.SealPerFile, d[0].Costs.Fixed, 1e-9, "one file count: the default per file, the rest per card")
	require.InDelta(t, def.SealPerFile, d[0].Costs.SealPerFile, 1e-12)
	require.Nil(t, d[1].Costs, "the array was never measured: its kind's defaults")
	require.Equal(t, plan.DefaultCosts[plan.CostArray], top.DestCosts(1))
	require.Equal(t, "rclone:b2", CostVolume(d[2].Path))
}

// A real job's catalog teaches the costs of its destinations: every
// figure measured, none negative, each as LearnCosts defines it from the
// catalog's times.
func TestLearnCostsFromARealJob(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "c.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	card := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	for i := range 40 {
		size := 2000
		if i%10 == 0 {
			size = 9 << 20
		}
		b := make([]byte, size)
		for k := range b {
			b[k] = byte(k*7 + i)
		}
		require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", fmt.Sprintf("C%03d.mov", i)), b, 0o644))
	}
	dests := []string{filepath.Join(dir, "d1"), filepath.Join(dir, "d2")}
	for _, d := range dests {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "j", Cards: []string{card}, Dests: dests},
		Env:     offload.Env{Catalog: cat}})
	require.NoError(t, err)
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	rows, err := LearnCosts(cat, job.ID())
	require.NoError(t, err)
	require.Len(t, rows, 1, "both folders are on one volume here")
	ks, err := cat.Cards(job.ID())
	require.NoError(t, err)
	k := ks[0]
	for _, r := range rows {
		require.Equal(t, 40, r.Files)
		for _, v := range []*float64{r.PerFile, r.VerifyPerFile, r.Start, r.Fixed} {
			require.NotNil(t, v)
			require.GreaterOrEqual(t, *v, 0.0)
		}
		require.InDelta(t, k.DoneAt.Sub(k.VerifyFinished).Seconds()/2, *r.Fixed, 1e-9, "each destination's half")
		// The files' share is at most the copy's whole time.
		require.LessOrEqual(t, *r.PerFile*40+*r.Start, k.CopyFinished.Sub(k.CopyStarted).Seconds()+1e-9)
		t.Logf("per file %.2f ms, read back %.2f ms, start %.3f s, fixed %.3f s; %s", *r.PerFile*1e3, *r.VerifyPerFile*1e3, *r.Start, *r.Fixed, r.Detail)
	}
}

// A destination's sealing is a fixed part and a part per file: from runs
// of different file counts, the line through them; from one count, the
// default per file and the rest fixed.
func TestSealCosts(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []catalog.Costs{{Files: 10, Fixed: f(0.02 + 0.0002*10)}, {Files: 3000, Fixed: f(0.02 + 0.0002*3000)},
		{Files: 500, Fixed: f(0.02 + 0.0002*500)}, {Files: 7}}
	fixed, per := sealCosts(rows, 1, 1)
	require.InDelta(t, 0.02, fixed, 1e-9)
	require.InDelta(t, 0.0002, per, 1e-12)
	same := []catalog.Costs{{Files: 3000, Fixed: f(0.62)}, {Files: 1000, Fixed: f(0.22)}, {Files: 2000, Fixed: f(0.42)}}
	fixed, per = sealCosts(same, 1, 0.0001)
	require.InDelta(t, 0.0001, per, 1e-12, "1000 to 3000 files: too close to tell")
	require.InDelta(t, 0.22, fixed, 1e-9, "the median of what is left: 0.32, 0.12, 0.22")
	fixed, per = sealCosts(nil, 0.5, 0.001)
	require.Equal(t, 0.5, fixed)
	require.Equal(t, 0.001, per)
}

// What is left to read back when a copy ends: about its last large file.
func TestLeftToReadBack(t *testing.T) {
	require.Equal(t, int64(100e6-4000), LeftToReadBack([]int64{4000, 4000, 4000, 100e6, 2000, 2000}))
	require.Equal(t, int64(300), LeftToReadBack([]int64{300, 300, 300}))
	require.Zero(t, LeftToReadBack(nil))
}

// A card whose files took no longer than their bytes at its rate (its
// reads hid its files' costs) says nothing of them.
func TestHiddenFileCostsAreNotMeasured(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	k := &catalog.Card{ID: 1, Files: 40, Bytes: 40 * 10e6, CopyStarted: t0}
	var files runTimes
	at := t0
	for range 40 {
		files.add(at, 10e6)
		at = at.Add(100 * time.Millisecond) // 100 MB/s, nothing more
	}
	k.CopyFinished = at.Add(time.Millisecond)
	files.endLast(k.CopyFinished)
	c, ok := measureRun(k, files, nil, false, false, 0.001)
	require.True(t, ok)
	require.Nil(t, c.PerFile)
	require.Contains(t, c.Detail, "100.0 MB/s (its 40 files")
}
