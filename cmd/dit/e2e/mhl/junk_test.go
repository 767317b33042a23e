package mhl

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// ocopyVersion is the o/COPY release the interop tests run.
const ocopyVersion = "0.9.2"

// ocopyTool returns the path of ocopy in a venv under .cache, installing it
// from PyPI on first use; the test is skipped where python3 is missing.
func ocopyTool(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the interop test with ocopy")
	}
	root := e2e.Root(t)
	venv := filepath.Join(root, ".cache", "ocopy-venv")
	bin := filepath.Join(venv, "bin", "ocopy")
	marker := filepath.Join(venv, ".dit-ocopy-"+ocopyVersion)
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): %v\n%s", venv, err, out)
	}
	if out, err := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "-q", "--disable-pip-version-check", "ocopy=="+ocopyVersion).CombinedOutput(); err != nil {
		t.Fatalf("pip install ocopy==%s failed (PyPI must be reachable): %v\n%s", ocopyVersion, err, out)
	}
	require.NoError(t, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644))
	return bin
}

// junkCard writes a camera card with the OS metadata a Mac leaves on it.
func junkCard(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{
		"CLIPS/A001C001.mov":               "clip one",
		"CLIPS/A001C002.mov":               "clip two, a little longer",
		"CLIPS/._A001C001.mov":             "appledouble",
		"._CLIPS":                          "appledouble of a folder",
		".Spotlight-V100/Store-V2/journal": "spotlight",
		".fseventsd/0000000000f1":          "fsevents",
		".Trashes/501/deleted.mov":         "trash",
	}
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// A card whose earlier hop (the reference tool, or ocopy) recorded OS junk
// files in its ASC MHL history: dit copies what the history lists, so the
// history verifies on the copy, in both tools, when dit says verified.
func TestMHLJunkFilesListedByAnEarlierHop(t *testing.T) {
	tool := e2e.ReferenceTool(t)
	for _, maker := range []string{"ascmhl", "ocopy"} {
		t.Run(maker, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "catalog.db")
			card := filepath.Join(dir, "cam", "A001")
			junkCard(t, card)
			switch maker {
			case "ascmhl":
				r := e2e.RunTool(t, filepath.Join(tool, "ascmhl"), "create", "-h", "xxh64", card)
				require.Equal(t, 0, r.Code, r.Out)
			case "ocopy":
				hop := filepath.Join(dir, "hop1")
				require.NoError(t, os.Mkdir(hop, 0o755))
				r := e2e.RunTool(t, ocopyTool(t), card, hop)
				require.Equal(t, 0, r.Code, r.Out)
				card = filepath.Join(hop, "A001") // the earlier hop's copy is this job's card
			}
			require.DirExists(t, filepath.Join(card, "ascmhl"))
			d := filepath.Join(dir, "raid")
			require.NoError(t, os.Mkdir(d, 0o755))
			r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", d, card)
			require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
			require.Contains(t, r.Stdout, "Verified: safe to format")
			cp := filepath.Join(d, "day01", "A001")
			tr := e2e.RunTool(t, filepath.Join(tool, "ascmhl-debug"), "verify", cp)
			require.Equal(t, 0, tr.Code, "ascmhl-debug verify:\n%s", tr.Out)
			if maker == "ascmhl" {
				// (ocopy 0.9.2 writes no root hash, on which ascmhl-debug
				// verify -dh 1.2 crashes, on ocopy's own folder too.)
				tr = e2e.RunTool(t, filepath.Join(tool, "ascmhl-debug"), "verify", "-dh", cp)
				require.Equal(t, 0, tr.Code, "ascmhl-debug verify -dh:\n%s", tr.Out)
			}
			r = e2e.Dit(t, db, "mhl", "verify", cp)
			require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		})
	}
}
