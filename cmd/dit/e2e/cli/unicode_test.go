package cli

import (
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// nfcSquash is s in NFC, without white space and bidi controls (pdftotext
// lays text out, and marks right-to-left text).
func nfcSquash(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(norm.NFC.String(s)), "")
}

// TestUnicodeNamesEndToEnd: emoji, CJK, Arabic, Greek, Cyrillic, combining
// marks and NFD in the job's name, the card's path, the card's file names
// and the destination: the job ends done and safe, with every report
// written and readable, and no lock left (issue 25, item 5: one emoji used
// to crash the PDF and leave the job finishing for good).
func TestUnicodeNamesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	gen := filepath.Join(dir, "gen")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", gen, "--cards", "1", "--size", "2MB", "--style", "clips", "--seed", "25")
	require.Equal(t, 0, r.Code, r.Stderr)
	card := filepath.Join(dir, "卡 مرحبا Zoë NFD", "A001 🎬")
	require.NoError(t, os.MkdirAll(filepath.Dir(card), 0o755))
	require.NoError(t, os.Rename(filepath.Join(gen, "A001"), card))
	files := []string{"東京ロケ 撮影 🎬.txt", "مرحبا بالعالم.txt", "e\u0301te\u0301 NFD.txt", "Ελληνικά Кириллица.txt", "👩‍💻 ❤️ 카메라.txt"}
	require.NoError(t, os.MkdirAll(filepath.Join(card, "NOTES"), 0o755))
	for i, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(card, "NOTES", f), []byte(strings.Repeat("x", i+1)), 0o644))
	}
	dest := filepath.Join(dir, "Raid 🎬 Ελληνικά Кириллица Café")
	require.NoError(t, os.Mkdir(dest, 0o755))
	name := "Day 1 🎬 東京 مرحبا Ελληνικά Кириллица Ame\u0301lie"

	r = e2e.Dit(t, db, "offload", "--name", name, "-d", dest, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout+r.Stderr, "panic")
	require.NotContains(t, r.Stdout+r.Stderr, "reports not written")

	r = e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var jobs []struct {
		Name  string `json:"name"`
		State string `json:"state"`
		Cards []struct {
			Label string `json:"label"`
			Safe  bool   `json:"safe_to_format"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	require.Len(t, jobs, 1)
	require.Equal(t, "done", jobs[0].State)
	require.Equal(t, name, jobs[0].Name)
	require.Len(t, jobs[0].Cards, 1)
	require.Equal(t, "A001 🎬", jobs[0].Cards[0].Label)
	require.True(t, jobs[0].Cards[0].Safe)

	// Every format, in the job's folder on the destination.
	reports, err := filepath.Glob(filepath.Join(dest, "*", "reports", "dit-report_job1_*"))
	require.NoError(t, err)
	byKind := map[string]string{}
	for _, p := range reports {
		switch {
		case strings.HasSuffix(p, "_clips.csv"):
			byKind["clips"] = p
		default:
			byKind[strings.TrimPrefix(filepath.Ext(p), ".")] = p
		}
	}
	require.Len(t, byKind, 5, "%v", reports)
	read := func(kind string) string {
		b, err := os.ReadFile(byKind[kind])
		require.NoError(t, err, kind)
		require.NotEmpty(t, b, kind)
		return string(b)
	}
	for _, kind := range []string{"csv", "clips"} {
		rd := csv.NewReader(strings.NewReader(read(kind)))
		rd.FieldsPerRecord = -1
		rows, err := rd.ReadAll()
		require.NoError(t, err, kind)
		require.Greater(t, len(rows), 1, kind)
	}
	var v any
	require.NoError(t, json.Unmarshal([]byte(read("json")), &v))
	csvText, jsonText := nfcSquash(read("csv")), nfcSquash(read("json"))
	for _, f := range files {
		require.Contains(t, csvText, nfcSquash(f), "csv")
		require.Contains(t, jsonText, nfcSquash(f), "json")
	}
	require.Contains(t, jsonText, nfcSquash(name))
	html := nfcSquash(read("html"))
	require.Contains(t, html, nfcSquash(name))
	require.Contains(t, html, nfcSquash("A001 🎬"))
	require.True(t, strings.HasPrefix(read("pdf"), "%PDF-"))

	// No lock left on the destination.
	require.NoError(t, filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		require.NotEqual(t, ".dit.lock", d.Name(), p)
		return nil
	}))

	// A resume of the done job has nothing to do and says so calmly.
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (Debian: apt-get install poppler-utils): the PDF's text is not checked")
	}
	out, err := exec.Command("pdftotext", byKind["pdf"], "-").Output()
	require.NoError(t, err)
	text := nfcSquash(string(out))
	for _, w := range append(strings.Fields(name), "A001🎬", "卡", "Zoë", "Raid", "Café") {
		require.Contains(t, text, nfcSquash(w), "pdftotext:\n%s", out)
	}
}
