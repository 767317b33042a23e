package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReportsAndAlreadyOffloaded runs an offload through the binary and
// checks the reports it leaves on every destination, dit report, and the
// already-offloaded check on a second run.
func TestReportsAndAlreadyOffloaded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--style", "clips", "--seed", "5")
	require.Equal(t, 0, r.code, r.stderr)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")

	r = dit(t, db, "offload", "--name", "day01", "-d", d1, "-d", d2, a, b)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "Reports:")
	for _, d := range []string{d1, d2} {
		for _, ext := range []string{"csv", "json", "html", "pdf"} {
			p := filepath.Join(d, "day01", "reports", "dit-report_job1_day01."+ext)
			require.FileExists(t, p)
			require.Contains(t, r.stdout, p)
		}
		for _, c := range []string{"A001", "A002"} {
			require.DirExists(t, filepath.Join(d, "day01", c, "ascmhl"), "ASC MHL is the default")
		}
	}

	// dit report: every format; csv and json agree with the catalog.
	r = dit(t, db, "report", "1", "--format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Job struct {
			Name string `json:"name"`
		} `json:"job"`
		Totals struct {
			Files int   `json:"files"`
			Bytes int64 `json:"bytes"`
		} `json:"totals"`
		Cards []struct {
			Label         string  `json:"label"`
			Bytes         int64   `json:"bytes"`
			CopyTBPerHour float64 `json:"copy_tb_per_hour"`
			EndToEnd      float64 `json:"end_to_end_tb_per_hour"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Equal(t, "day01", rep.Job.Name)
	require.Len(t, rep.Cards, 2)
	show := dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, show.code)
	var js struct {
		Files int   `json:"files"`
		Bytes int64 `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(show.stdout), &js))
	require.Equal(t, js.Files, rep.Totals.Files)
	require.Equal(t, js.Bytes, rep.Totals.Bytes)

	r = dit(t, db, "report", "1", "--format", "csv")
	require.Equal(t, 0, r.code, r.stderr)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"card", "path", "size_bytes", "modified_utc", "state", "error", "md5", "xxh64"}, rows[0][:8])
	files := 0
	for _, row := range rows[1:] {
		if row[4] == "verified" {
			files++
			require.Len(t, row[6], 32)
			require.Len(t, row[7], 16)
		}
	}
	require.Equal(t, js.Files, files)

	pdf := filepath.Join(dir, "out", "report.pdf")
	require.NoError(t, os.Mkdir(filepath.Dir(pdf), 0o755))
	r = dit(t, db, "report", "1", "--format", "pdf", "--out", pdf)
	require.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(pdf)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), "%PDF-"))
	r = dit(t, db, "report", "1", "--format", "html")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "<svg")

	// Bad input.
	r = dit(t, db, "report", "42", "--format", "csv")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "job 42")
	r = dit(t, db, "report", "1", "--format", "docx")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "use csv, json, html, pdf")
	r = dit(t, db, "offload", "--mhl", "v2", "-d", d1, a)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "invalid --mhl")
	r = dit(t, db, "offload", "--mhl", "v1", "--hash", "xxh128", "-d", d1, a)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "MHL v1.1 needs md5, sha1 or xxh64")

	// The same cards again: skipped, said so, nothing new in the catalog.
	r = dit(t, db, "offload", "--name", "day01-again", "-d", d1, a, b)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "A001 was offloaded in job 1 on ")
	require.Contains(t, r.stdout, "verified")
	require.Contains(t, r.stdout, "Nothing to copy")
	jobs := dit(t, db, "jobs", "--json")
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(jobs.stdout), &list))
	require.Len(t, list, 1)

	// JSON mode says it as an event.
	r = dit(t, db, "offload", "--json", "--name", "x", "-d", d1, a)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"type":"already_offloaded"`)

	// --again copies it anyway.
	r = dit(t, db, "offload", "--again", "--name", "day01-again", "--mhl", "none", "-d", d1, a)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "copying it again (--again)")
	require.NoDirExists(t, filepath.Join(d1, "day01-again", "A001", "ascmhl"), "--mhl none")
	require.FileExists(t, filepath.Join(d1, "day01-again", "reports", "dit-report_job2_day01-again.pdf"))
}

// withoutHistory drops the ascmhl/ folder dit writes into each card's
// folder on a destination (--mhl asc, the default) from a tree.
func withoutHistory(m map[string][32]byte) map[string][32]byte {
	out := map[string][32]byte{}
	for k, v := range m {
		if !strings.HasPrefix(k, "ascmhl/") {
			out[k] = v
		}
	}
	return out
}
