package reports

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestReportsAndAlreadyOffloaded runs an offload through the binary and
// checks the reports it leaves on every destination, dit report, and the
// already-offloaded check on a second run.
func TestReportsAndAlreadyOffloaded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--style", "clips", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")

	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", d1, "-d", d2, a, b)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "Reports:")
	for _, d := range []string{d1, d2} {
		for _, ext := range []string{"csv", "json", "html", "pdf"} {
			p := filepath.Join(d, "day01", "reports", "dit-report_job1_day01."+ext)
			require.FileExists(t, p)
			require.Contains(t, r.Stdout, p)
		}
		for _, c := range []string{"A001", "A002"} {
			require.DirExists(t, filepath.Join(d, "day01", c, "ascmhl"), "ASC MHL is the default")
		}
	}

	// dit report: every format; csv and json agree with the catalog.
	r = e2e.Dit(t, db, "report", "1", "--format", "json")
	require.Equal(t, 0, r.Code, r.Stderr)
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
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rep))
	require.Equal(t, "day01", rep.Job.Name)
	require.Len(t, rep.Cards, 2)
	show := e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, show.Code)
	var js struct {
		Files int   `json:"files"`
		Bytes int64 `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &js))
	require.Equal(t, js.Files, rep.Totals.Files)
	require.Equal(t, js.Bytes, rep.Totals.Bytes)

	r = e2e.Dit(t, db, "report", "1", "--format", "csv")
	require.Equal(t, 0, r.Code, r.Stderr)
	// The destinations' block before the header is '#' rows: a reader
	// that skips comments gets the header, then only files.
	require.True(t, strings.HasPrefix(r.Stdout, "# dest1,"+d1+",") && strings.Contains(r.Stdout, "\n# dest2,"+d2+","), r.Stdout)
	cr := csv.NewReader(strings.NewReader(r.Stdout))
	cr.Comment = '#'
	rows, err := cr.ReadAll()
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
	r = e2e.Dit(t, db, "report", "1", "--format", "pdf", "--out", pdf)
	require.Equal(t, 0, r.Code, r.Stderr)
	data, err := os.ReadFile(pdf)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), "%PDF-"))
	r = e2e.Dit(t, db, "report", "1", "--format", "html")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "<svg")

	// Bad input.
	r = e2e.Dit(t, db, "report", "42", "--format", "csv")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "job 42")
	r = e2e.Dit(t, db, "report", "1", "--format", "docx")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "use csv, json, html, pdf")
	r = e2e.Dit(t, db, "offload", "--mhl", "v2", "-d", d1, a)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `--mhl: "v2": use asc (the default), v1, both or none`)
	r = e2e.Dit(t, db, "offload", "--mhl", "v1", "--hash", "xxh128", "-d", d1, a)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "MHL v1.1 needs md5, sha1 or xxh64")

	// The same cards again: skipped, said so, nothing new in the catalog.
	r = e2e.Dit(t, db, "offload", "--name", "day01-again", "-d", d1, a, b)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "A001 was offloaded in job 1 on ")
	require.Contains(t, r.Stdout, "verified")
	require.Contains(t, r.Stdout, "Nothing to copy")
	jobs := e2e.Dit(t, db, "jobs", "--json")
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(jobs.Stdout), &list))
	require.Len(t, list, 1)

	// JSON mode says it as an event.
	r = e2e.Dit(t, db, "offload", "--json", "--name", "x", "-d", d1, a)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"type":"already_offloaded"`)

	// --again copies it anyway.
	r = e2e.Dit(t, db, "offload", "--again", "--name", "day01-again", "--mhl", "none", "-d", d1, a)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "copying it again (--again)")
	require.NoDirExists(t, filepath.Join(d1, "day01-again", "A001", "ascmhl"), "--mhl none")
	require.FileExists(t, filepath.Join(d1, "day01-again", "reports", "dit-report_job2_day01-again.pdf"))
}
