package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/")

// genShowJob records a generated job of n files on card A001 and none on
// B001, two destinations: sizes of every unit, files with no hash, two
// or all seven, failed files and copies, a file with one copy, paths
// with folders, non-ASCII letters and characters JSON escapes, skipped
// entries; every value a function of the file's number.
func genShowJob(t *testing.T, db string, n int) int64 {
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	j := &catalog.Job{Name: "Gen", State: catalog.JobRunning, Host: "cart-1", PID: 1 << 30, Hashes: "md5,xxh64", VerifyMode: "dest",
		VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	var dests []*catalog.Dest
	for i, p := range []string{"/Volumes/RAID", "/Volumes/SHUTTLE 2"} {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: p, Hop: 1}
		require.NoError(t, cat.AddDest(d))
		dests = append(dests, d)
	}
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/Volumes/A001", State: "failed", Files: n, Hop: 1}
	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "B001", Path: "/Volumes/B001", State: "pending", Hop: 1}
	require.NoError(t, cat.AddCard(a))
	require.NoError(t, cat.AddCard(b))
	_, err = cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	names := []string{"CLIPS/A001C%03d_%d.mov", "DCIM/100EOS/IMG_%04d_%d.CR3", "Ünïcödé/ファイル_%03d_%d.wav", "odd/<a & b> \"%d\" %d.txt"}
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf(names[i%len(names)], i, i%3)
		size := int64(i*i*i*7919) % (1 << (i % 44))
		f := &catalog.File{CardID: a.ID, Rel: rel, Size: size, Mtime: t0.Add(-time.Duration(i) * time.Minute), State: "verified",
			CopyStarted: t0.Add(time.Duration(i) * time.Second), CopyFinished: t0.Add(time.Duration(i)*time.Second + time.Millisecond)}
		switch {
		case i%11 == 0: // no hash
		case i%7 == 0:
			for k, al := range hashing.All {
				f.Sums.Set(al, fmt.Sprintf("%0*x", 8+4*k, i*31+k))
			}
		default:
			f.Sums.Set(hashing.MD5, fmt.Sprintf("%032x", i))
			f.Sums.Set(hashing.XXH64, fmt.Sprintf("%016x", i*i))
		}
		if i%13 == 0 {
			f.State, f.Error = "failed", fmt.Sprintf("read: input/output error at byte %d", i*4096)
		}
		cat.PutFile(f)
		for di, d := range dests {
			if i%19 == 0 && di == 1 {
				continue // not copied there yet
			}
			cp := &catalog.Copy{DestID: d.ID, Path: "Gen/A001/" + rel, State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: t0.Add(time.Hour)}
			switch {
			case i%13 == 0:
				cp.State, cp.VerifyAlgos, cp.VerifiedAt, cp.Error = "failed", "", time.Time{}, f.Error
			case i%17 == 0 && di == 1:
				cp.State, cp.VerifiedAt, cp.Error = "failed", time.Time{}, "read back: xxh64 differs from the card's"
			case i%5 == 0:
				cp.State, cp.VerifyAlgos, cp.VerifiedAt = "copied", "", time.Time{}
			}
			cat.PutCopy(a.ID, rel, cp)
		}
	}
	cat.PutSkipped(a.ID, catalog.Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"})
	cat.PutSkipped(a.ID, catalog.Skip{Rel: "broken", Kind: "unreadable", Reason: "permission denied"})
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, t0.Add(2*time.Hour), ""))
	return j.ID
}

// dit job show, text and --json, prints of a generated job of 400
// files what it printed before it was made faster (testdata/*.golden,
// written by the code of commit 724a6cb with -update), byte for byte.
func TestJobShowIsTheGolden(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	defer func() { time.Local = local }()
	db := filepath.Join(t.TempDir(), "c.db")
	id := genShowJob(t, db, 400)
	for _, o := range []JobShowOptions{{}, {JSON: true}} {
		var out bytes.Buffer
		g := &GlobalOptions{DB: db, stdout: &out, stderr: os.Stderr}
		require.NoError(t, runJobShow(o, g, id))
		got := strings.ReplaceAll(out.String(), db, "CATALOG")
		golden := filepath.Join("testdata", "job_show.golden")
		if o.JSON {
			golden = filepath.Join("testdata", "job_show_json.golden")
		}
		if *updateGolden {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err)
		if got != string(want) {
			// The first line that differs, not 400 files of diff.
			g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
			for i := 0; i < min(len(g), len(w)); i++ {
				require.Equal(t, w[i], g[i], "%s, line %d", golden, i+1)
			}
			require.Equal(t, len(w), len(g), "%s: lines", golden)
		}
	}
}
