package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ascmhlVersion is the ASC reference tool the interop test runs.
const ascmhlVersion = "1.2"

// referenceTool returns the bin folder of a venv holding ascmhl, creating
// it under the repository's .cache (gitignored) on first use. It skips the
// test only where python3 is absent.
func referenceTool(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the interop test with the ASC MHL reference tool (install python3 to run it)")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	venv := filepath.Join(root, ".cache", "ascmhl-venv")
	bin := filepath.Join(venv, "bin")
	marker := filepath.Join(venv, ".dit-ascmhl-"+ascmhlVersion)
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	t.Logf("installing ascmhl==%s into %s (once)", ascmhlVersion, venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): %v\n%s", venv, err, out)
	}
	cmd := exec.Command(filepath.Join(bin, "pip"), "install", "-q", "--disable-pip-version-check", "ascmhl=="+ascmhlVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pip install ascmhl==%s failed (PyPI must be reachable): %v\n%s", ascmhlVersion, err, out)
	}
	require.NoError(t, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644))
	return bin
}

type toolRun struct {
	out  string
	code int
}

func runTool(t *testing.T, name string, args ...string) toolRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return toolRun{b.String(), code}
}

// oddNames adds the names that break naive tools to a card.
func oddNames(t *testing.T, card string) {
	t.Helper()
	files := map[string]string{
		"caf\u00e9 NFC & \"quoted\" 'single' <angle>.txt":   "nfc",
		"cafe\u0301 NFD.txt":                                "nfd",
		"with  two spaces .txt":                             "spaces",
		"Empty Clip.mov":                                    "",
		"Deep/er/and deeper/\u00fcml\u00e4ut & co/clip.mov": strings.Repeat("deep", 5000),
		"Deep/er/and deeper/zero.bin":                       "",
		"\u65e5\u672c\u8a9e/\u30af\u30ea\u30c3\u30d7.mxf":   "cjk",
	}
	mt := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	for rel, content := range files {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(card, "Empty Folder & Co"), 0o755))
}

// TestASCMHLInteropWithReferenceTool offloads generated cards with odd
// names through the real binary and has the ASC reference tool verify
// every card folder (files, and directory hashes), schema-check every
// manifest and chain, and catch a flipped byte and an edited manifest, as
// dit mhl verify does.
func TestASCMHLInteropWithReferenceTool(t *testing.T) {
	bin := referenceTool(t)
	ascmhl := filepath.Join(bin, "ascmhl-debug")
	schemas, err := filepath.Abs("../../testdata/mhl")
	require.NoError(t, err)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--style", "mixed", "--seed", "11")
	require.Equal(t, 0, r.code, r.stderr)
	for _, c := range []string{"A001", "A002"} {
		oddNames(t, filepath.Join(cards, c))
	}
	d1, d2, d3 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle"), filepath.Join(dir, "post house")
	for _, d := range []string{d1, d2, d3} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	r = dit(t, db, "offload", "--name", "Day 01", "--mhl", "both", "--hash", "md5,xxh64,c4", "-d", d1, "-d", d2,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	require.NotContains(t, r.stdout+r.stderr, "warning")

	checkFolder := func(folder string, generations int) {
		t.Helper()
		for _, args := range [][]string{{"verify", folder}, {"verify", "-dh", folder}} {
			res := runTool(t, ascmhl, args...)
			require.Equal(t, 0, res.code, "ascmhl-debug %s:\n%s", strings.Join(args, " "), res.out)
		}
		manifests, err := filepath.Glob(filepath.Join(folder, "ascmhl", "*.mhl"))
		require.NoError(t, err)
		require.Len(t, manifests, generations)
		for _, m := range manifests {
			res := runTool(t, ascmhl, "xsd-schema-check", m, "-xsd", filepath.Join(schemas, "ASCMHL.xsd"))
			require.Equal(t, 0, res.code, "schema check of %s:\n%s", m, res.out)
			require.Contains(t, res.out, "validated")
		}
		chain := filepath.Join(folder, "ascmhl", "ascmhl_chain.xml")
		res := runTool(t, ascmhl, "xsd-schema-check", chain, "-xsd", filepath.Join(schemas, "ASCMHLDirectory_local.xsd"))
		require.Equal(t, 0, res.code, "schema check of %s:\n%s", chain, res.out)
		v := dit(t, db, "mhl", "verify", "--directory-hashes", "--all-hashes", folder)
		require.Equal(t, 0, v.code, "dit mhl verify %s:\n%s%s", folder, v.stdout, v.stderr)
	}
	for _, d := range []string{d1, d2} {
		for _, c := range []string{"A001", "A002"} {
			folder := filepath.Join(d, "Day 01", c)
			checkFolder(folder, 1)
			// The MHL v1.1 file is valid against its schema, except that
			// the schema cannot express a zero-byte file (size 0).
			v1, _ := filepath.Glob(filepath.Join(folder, c+"_*.mhl"))
			require.Len(t, v1, 1)
			res := runTool(t, filepath.Join(bin, "python"), "-c", `
import sys
from lxml import etree
xsd = etree.XMLSchema(etree.parse(sys.argv[1]))
ok = xsd.validate(etree.parse(sys.argv[2]))
bad = [e.message for e in xsd.error_log if not ("'0'" in e.message and "size" in e.message)]
print("\n".join(bad))
sys.exit(1 if bad else 0)`, filepath.Join(schemas, "MediaHashList_v1_1.xsd"), v1[0])
			require.Equal(t, 0, res.code, "MHL v1.1 schema:\n%s", res.out)
		}
	}

	// The next hop: a copy with a history is offloaded again (to the post
	// house); the history is appended to there, never on the source.
	src := filepath.Join(d1, "Day 01", "A001")
	before := tree(t, src)
	r = dit(t, db, "offload", "--name", "Hop 2", "-d", d3, src)
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "carries an ASC MHL history (1 generation(s)")
	require.Equal(t, before, tree(t, src), "the source of the second hop is not written to")
	checkFolder(filepath.Join(d3, "Hop 2", "A001"), 2)
	info := dit(t, db, "mhl", "info", filepath.Join(d3, "Hop 2", "A001"))
	require.Equal(t, 0, info.code, info.stderr)
	require.Contains(t, info.stdout, "2 generation(s)")

	// On a dit array the history is written into the array's logical
	// folders: the extracted tree passes the reference tool too.
	blades := []string{filepath.Join(dir, "b1"), filepath.Join(dir, "b2"), filepath.Join(dir, "b3")}
	for _, b := range blades {
		require.NoError(t, os.Mkdir(b, 0o755))
	}
	r = dit(t, db, append([]string{"array", "create", "--level", "4", "--label", "interop"}, blades...)...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = dit(t, db, "offload", "--again", "--name", "On Array", "-d", blades[0], filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	require.NotContains(t, r.stdout+r.stderr, "warning")
	ents, err := os.ReadDir(blades[0])
	require.NoError(t, err)
	for _, e := range ents {
		require.Equal(t, "dit-array", e.Name(), "nothing but the array's own folder in a blade folder")
	}
	extracted := filepath.Join(dir, "extracted")
	r = dit(t, db, "array", "extract", blades[0], "--to", extracted)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	checkFolder(filepath.Join(extracted, "On Array", "A002"), 1)
	require.FileExists(t, filepath.Join(extracted, "On Array", "reports", "dit-report_job3_On Array.pdf"))

	// Negative: a flipped byte in a copy.
	victim := filepath.Join(d2, "Day 01", "A001", "Deep", "er", "and deeper", "\u00fcml\u00e4ut & co", "clip.mov")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	data[len(data)/2] ^= 0x01
	require.NoError(t, os.WriteFile(victim, data, 0o644))
	folder := filepath.Join(d2, "Day 01", "A001")
	res := runTool(t, ascmhl, "verify", folder)
	require.NotEqual(t, 0, res.code, "the reference tool must catch the flipped byte:\n%s", res.out)
	require.Contains(t, res.out, "hash mismatch")
	res = runTool(t, ascmhl, "verify", "-dh", folder)
	require.NotEqual(t, 0, res.code, "directory hashes must catch the flipped byte:\n%s", res.out)
	v := dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 3, v.code, v.stdout+v.stderr)
	require.Contains(t, v.stdout, "CHANGED Deep/er/and deeper/\u00fcml\u00e4ut & co/clip.mov")

	// Negative: an edited manifest.
	folder = filepath.Join(d2, "Day 01", "A002")
	manifests, _ := filepath.Glob(filepath.Join(folder, "ascmhl", "0001_*.mhl"))
	require.Len(t, manifests, 1)
	mb, err := os.ReadFile(manifests[0])
	require.NoError(t, err)
	edited := bytes.Replace(mb, []byte(`action="original"`), []byte(`action="verified"`), 1)
	require.NotEqual(t, mb, edited)
	require.NoError(t, os.WriteFile(manifests[0], edited, 0o644))
	res = runTool(t, ascmhl, "verify", folder)
	require.NotEqual(t, 0, res.code, "the reference tool must catch the edited manifest:\n%s", res.out)
	v = dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 3, v.code, v.stdout+v.stderr)
	require.Contains(t, v.stdout, "was changed after it was written")
}
