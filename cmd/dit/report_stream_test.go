package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// brokenReportFixture records a done job of one card, "A001 🎬", of 300
// files, each verified on one destination, whose 150th file's row cannot
// be read back (a modification time that is no number, as a damaged
// catalog may hold).
func brokenReportFixture(t *testing.T, db string) int64 {
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	j := &catalog.Job{Name: "Día 1 🎬", State: catalog.JobDone, Host: "h", Hashes: "xxh64", VerifyMode: "dest",
		VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Unix(1e9, 0), Finished: time.Unix(1e9+60, 0)}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Path: "/raid"}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Label: "A001 🎬", Path: "/media/A001", State: "verified", Files: 300, Hop: 1}
	require.NoError(t, cat.AddCard(k))
	for i := 0; i < 300; i++ {
		f := &catalog.File{CardID: k.ID, Rel: fmt.Sprintf("東京/C%04d.mov", i), Size: 1000, Mtime: time.Unix(1e9, 0), State: "verified"}
		cat.PutFile(f)
		cat.PutCopy(k.ID, f.Rel, &catalog.Copy{DestID: d.ID, Path: "x/" + f.Rel, State: "verified", VerifyAlgos: "xxh64"})
	}
	require.NoError(t, cat.Flush())
	_, err = cat.Exec(`UPDATE files SET mtime_ns='not a time' WHERE card_id=? AND rel_path=?`, k.ID, "東京/C0150.mov")
	require.NoError(t, err)
	return j.ID
}

// dit report of a job whose catalog read fails midway: an error, and no
// file at --out (not a file cut short that looks complete, nor its
// temporary); to stdout, the error says the output is INCOMPLETE.
func TestReportThatFailsMidwayLeavesNoFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	id := brokenReportFixture(t, db)
	for _, format := range []string{"csv", "json", "html"} {
		out := t.TempDir()
		p := filepath.Join(out, "day1."+format)
		var stdout bytes.Buffer
		g := &GlobalOptions{DB: db, stdout: &stdout, stderr: os.Stderr}
		err := runReport(ReportOptions{Format: format, Out: p}, g, id)
		require.Error(t, err, format)
		require.Contains(t, err.Error(), "reading the files of card A001 🎬 from the catalog", format)
		require.Contains(t, err.Error(), p, format)
		left, _ := os.ReadDir(out)
		require.Empty(t, left, "%s: nothing written, no temporary file left", format)
		require.Empty(t, stdout.String(), "%s: no path printed", format)

		stdout.Reset()
		err = runReport(ReportOptions{Format: format}, g, id)
		require.Error(t, err, format)
		require.Contains(t, err.Error(), "INCOMPLETE", format)
		require.NotContains(t, stdout.String(), "C0150.mov", format)
		if format == "csv" {
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			require.True(t, strings.HasPrefix(lines[len(lines)-1], "# INCOMPLETE: "), lines[len(lines)-1])
			require.Len(t, lines, 1+1+150+1)
		}
	}
	// Every format into a folder: the ones that read the files are not
	// written; the PDF (no file listed) is.
	out := t.TempDir()
	var stdout bytes.Buffer
	err := runReport(ReportOptions{Out: out}, &GlobalOptions{DB: db, stdout: &stdout, stderr: os.Stderr}, id)
	require.Error(t, err)
	left, _ := os.ReadDir(out)
	require.Len(t, left, 1)
	require.True(t, strings.HasSuffix(left[0].Name(), ".pdf"), left[0].Name())
}
