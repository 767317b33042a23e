package mhl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

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
	bin := e2e.ReferenceTool(t)
	ascmhl := filepath.Join(bin, "ascmhl-debug")
	schemas := filepath.Join(e2e.Root(t), "testdata", "mhl")
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--style", "mixed", "--seed", "11")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, c := range []string{"A001", "A002"} {
		oddNames(t, filepath.Join(cards, c))
	}
	d1, d2, d3 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle"), filepath.Join(dir, "post house")
	for _, d := range []string{d1, d2, d3} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	r = e2e.Dit(t, db, "offload", "--name", "Day 01", "--mhl", "both", "--hash", "md5,xxh64,c4", "-d", d1, "-d", d2,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.NotContains(t, r.Stdout+r.Stderr, "warning")

	checkFolder := func(folder string, generations int) {
		t.Helper()
		for _, args := range [][]string{{"verify", folder}, {"verify", "-dh", folder}} {
			res := e2e.RunTool(t, ascmhl, args...)
			require.Equal(t, 0, res.Code, "ascmhl-debug %s:\n%s", strings.Join(args, " "), res.Out)
		}
		manifests, err := filepath.Glob(filepath.Join(folder, "ascmhl", "*.mhl"))
		require.NoError(t, err)
		require.Len(t, manifests, generations)
		for _, m := range manifests {
			res := e2e.RunTool(t, ascmhl, "xsd-schema-check", m, "-xsd", filepath.Join(schemas, "ASCMHL.xsd"))
			require.Equal(t, 0, res.Code, "schema check of %s:\n%s", m, res.Out)
			require.Contains(t, res.Out, "validated")
		}
		chain := filepath.Join(folder, "ascmhl", "ascmhl_chain.xml")
		res := e2e.RunTool(t, ascmhl, "xsd-schema-check", chain, "-xsd", filepath.Join(schemas, "ASCMHLDirectory_local.xsd"))
		require.Equal(t, 0, res.Code, "schema check of %s:\n%s", chain, res.Out)
		v := e2e.Dit(t, db, "mhl", "verify", "--directory-hashes", "--all-hashes", folder)
		require.Equal(t, 0, v.Code, "dit mhl verify %s:\n%s%s", folder, v.Stdout, v.Stderr)
	}
	for _, d := range []string{d1, d2} {
		for _, c := range []string{"A001", "A002"} {
			folder := filepath.Join(d, "Day 01", c)
			checkFolder(folder, 1)
			// The MHL v1.1 file is valid against its schema, except that
			// the schema cannot express a zero-byte file (size 0).
			v1, _ := filepath.Glob(filepath.Join(folder, c+"_*.mhl"))
			require.Len(t, v1, 1)
			res := e2e.RunTool(t, filepath.Join(bin, "python"), "-c", `
import sys
from lxml import etree
xsd = etree.XMLSchema(etree.parse(sys.argv[1]))
ok = xsd.validate(etree.parse(sys.argv[2]))
bad = [e.message for e in xsd.error_log if not ("'0'" in e.message and "size" in e.message)]
print("\n".join(bad))
sys.exit(1 if bad else 0)`, filepath.Join(schemas, "MediaHashList_v1_1.xsd"), v1[0])
			require.Equal(t, 0, res.Code, "MHL v1.1 schema:\n%s", res.Out)
		}
	}

	// The next hop: a copy with a history is offloaded again (to the post
	// house); the history is appended to there, never on the source.
	src := filepath.Join(d1, "Day 01", "A001")
	before := e2e.Tree(t, src)
	r = e2e.Dit(t, db, "offload", "--name", "Hop 2", "-d", d3, src)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "carries an ASC MHL history (1 generation(s)")
	require.Equal(t, before, e2e.Tree(t, src), "the source of the second hop is not written to")
	checkFolder(filepath.Join(d3, "Hop 2", "A001"), 2)
	info := e2e.Dit(t, db, "mhl", "info", filepath.Join(d3, "Hop 2", "A001"))
	require.Equal(t, 0, info.Code, info.Stderr)
	require.Contains(t, info.Stdout, "2 generation(s)")

	// On a dit array the history is written into the array's logical
	// folders: the extracted tree passes the reference tool too.
	blades := []string{filepath.Join(dir, "b1"), filepath.Join(dir, "b2"), filepath.Join(dir, "b3")}
	for _, b := range blades {
		require.NoError(t, os.Mkdir(b, 0o755))
	}
	r = e2e.Dit(t, db, append([]string{"array", "create", "--level", "4", "--label", "interop"}, blades...)...)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "offload", "--again", "--name", "On Array", "-d", blades[0], filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.NotContains(t, r.Stdout+r.Stderr, "warning")
	ents, err := os.ReadDir(blades[0])
	require.NoError(t, err)
	for _, e := range ents {
		require.Equal(t, "dit-array", e.Name(), "nothing but the array's own folder in a blade folder")
	}
	extracted := filepath.Join(dir, "extracted")
	r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", extracted)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	checkFolder(filepath.Join(extracted, "On Array", "A002"), 1)
	require.FileExists(t, filepath.Join(extracted, "On Array", "reports", "dit-report_job3_On Array.pdf"))

	// Negative: a flipped byte in a copy.
	victim := filepath.Join(d2, "Day 01", "A001", "Deep", "er", "and deeper", "\u00fcml\u00e4ut & co", "clip.mov")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	data[len(data)/2] ^= 0x01
	require.NoError(t, os.WriteFile(victim, data, 0o644))
	folder := filepath.Join(d2, "Day 01", "A001")
	res := e2e.RunTool(t, ascmhl, "verify", folder)
	require.NotEqual(t, 0, res.Code, "the reference tool must catch the flipped byte:\n%s", res.Out)
	require.Contains(t, res.Out, "hash mismatch")
	res = e2e.RunTool(t, ascmhl, "verify", "-dh", folder)
	require.NotEqual(t, 0, res.Code, "directory hashes must catch the flipped byte:\n%s", res.Out)
	v := e2e.Dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "CHANGED Deep/er/and deeper/\u00fcml\u00e4ut & co/clip.mov")

	// Negative: an edited manifest.
	folder = filepath.Join(d2, "Day 01", "A002")
	manifests, _ := filepath.Glob(filepath.Join(folder, "ascmhl", "0001_*.mhl"))
	require.Len(t, manifests, 1)
	mb, err := os.ReadFile(manifests[0])
	require.NoError(t, err)
	edited := bytes.Replace(mb, []byte(`action="original"`), []byte(`action="verified"`), 1)
	require.NotEqual(t, mb, edited)
	require.NoError(t, os.WriteFile(manifests[0], edited, 0o644))
	res = e2e.RunTool(t, ascmhl, "verify", folder)
	require.NotEqual(t, 0, res.Code, "the reference tool must catch the edited manifest:\n%s", res.Out)
	v = e2e.Dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "was changed after it was written")
}
