package mhl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// --ignore / --ignore-file: matching files are not copied, are listed as
// skipped, and each card's history records the patterns, so both
// verifiers accept the copy; a resume keeps the patterns.
func TestOffloadIgnorePatterns(t *testing.T) {
	tool := e2e.ReferenceTool(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "A001")
	for rel, body := range map[string]string{
		"CLIPS/A001C001.R3D": "clip", "CLIPS/A001C001.RMD": "metadata sidecar", "CACHE/thumb.jpg": "cache",
		"CACHE/sub/x.bin": "cache", "NOTES.txt": "notes",
	} {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	ignoreFile := filepath.Join(dir, "ignore.txt")
	require.NoError(t, os.WriteFile(ignoreFile, []byte("# caches\nCACHE/\n\n"), 0o644))
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "--ignore", "*.RMD", "--ignore-file", ignoreFile, "-d", d, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "Verified: safe to format")
	cp := filepath.Join(d, "day01", "A001")
	require.FileExists(t, filepath.Join(cp, "CLIPS", "A001C001.R3D"))
	require.NoFileExists(t, filepath.Join(cp, "CLIPS", "A001C001.RMD"))
	require.NoDirExists(t, filepath.Join(cp, "CACHE"))
	m, _ := filepath.Glob(filepath.Join(cp, "ascmhl", "0001_*.mhl"))
	require.Len(t, m, 1)
	b, err := os.ReadFile(m[0])
	require.NoError(t, err)
	require.Contains(t, string(b), "<pattern>*.RMD</pattern>")
	require.Contains(t, string(b), "<pattern>CACHE/</pattern>")
	tr := e2e.RunTool(t, filepath.Join(tool, "ascmhl-debug"), "verify", cp)
	require.Equal(t, 0, tr.Code, tr.Out)
	r = e2e.Dit(t, db, "mhl", "verify", cp)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 2, strings.Count(r.Stdout, `"ignored"`), "both left-out entries are listed as skipped: %s", r.Stdout)

	r = e2e.Dit(t, db, "offload", "--resume", "1", "--ignore", "*.txt")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "ignore patterns [*.RMD CACHE/]")
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NoFileExists(t, filepath.Join(cp, "CLIPS", "A001C001.RMD"), "a resume skips the same files")
}
