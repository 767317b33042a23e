package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// dit report JOB without --format: the format of --out's extension, or all
// four formats into a folder; a name it cannot tell is a usage error.
func TestReportDefaultFormat(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--seed", "8")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "d1")
	require.NoError(t, os.Mkdir(d1, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", d1, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	pdf := filepath.Join(dir, "day01.pdf")
	r = e2e.Dit(t, db, "report", "1", "--out", pdf)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(pdf)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "%PDF-"), "a PDF from the .pdf name")

	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	r = e2e.Dit(t, db, "report", "1", "--out", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	for _, ext := range []string{"csv", "json", "html", "pdf"} {
		p := filepath.Join(out, "dit-report_job1_day01."+ext)
		require.FileExists(t, p)
		require.Contains(t, r.Stdout, p, "the paths written are printed")
	}
	r = e2e.Dit(t, db, "report", "1", "--out", filepath.Join(dir, "report.txt"))
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "give --format")
}
