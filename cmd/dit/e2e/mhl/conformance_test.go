package mhl

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// Conformance of dit mhl verify with the ASC MHL specification, checked
// against histories the ASC reference tool (ascmhl 1.2) writes, through the
// real binary: renames (previousPath), folders recorded and gone, a chain
// with a malformed c4, nested histories and their references, and MHL
// v1.1 lists.

// refCard writes files (path -> content) and folders into a new card
// folder and returns it.
func refCard(t *testing.T, files map[string]string, dirs ...string) string {
	t.Helper()
	card := filepath.Join(t.TempDir(), "A001")
	mt := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	for rel, content := range files {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(card, filepath.FromSlash(d)), 0o755))
	}
	return card
}

// ascmhlCreate runs the reference tool's create on folder.
func ascmhlCreate(t *testing.T, bin string, args ...string) string {
	t.Helper()
	res := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), append([]string{"create", "-h", "xxh64"}, args...)...)
	require.Equal(t, 0, res.Code, "ascmhl create %s:\n%s", strings.Join(args, " "), res.Out)
	return res.Out
}

// refVerify runs the reference tool's verify on folder.
func refVerify(t *testing.T, bin, folder string) e2e.ToolRun {
	t.Helper()
	return e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", folder)
}

// A file and a folder renamed, recorded with ascmhl create -dr
// (previousPath): both tools verify, and dit names neither the old paths
// missing nor the new ones new; a renamed file that then changes is
// caught against its first record.
func TestMHLConformanceRename(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	card := refCard(t, map[string]string{"Clips/A001C001.mov": "clip one", "Old/sub/b.mov": "bee", "notes.txt": "n"})
	ascmhlCreate(t, bin, card)
	require.NoError(t, os.Rename(filepath.Join(card, "Clips", "A001C001.mov"), filepath.Join(card, "Clips", "A001C001_renamed.mov")))
	require.NoError(t, os.Rename(filepath.Join(card, "Old"), filepath.Join(card, "New")))
	out := ascmhlCreate(t, bin, "-dr", card)
	require.Contains(t, out, "a renamed file was detected")
	manifests, _ := filepath.Glob(filepath.Join(card, "ascmhl", "0002_*.mhl"))
	require.Len(t, manifests, 1)
	data, err := os.ReadFile(manifests[0])
	require.NoError(t, err)
	require.Contains(t, string(data), "<previousPath>Clips/A001C001.mov</previousPath>")
	require.Contains(t, string(data), "<previousPath>Old</previousPath>")

	require.Equal(t, 0, refVerify(t, bin, card).Code)
	v := e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "3 files match the ASC MHL history (2 generation(s)); nothing missing, changed or new")
	v = e2e.Dit(t, db, "mhl", "verify", "--all-hashes", "--directory-hashes", card)
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)

	require.NoError(t, os.WriteFile(filepath.Join(card, "Clips", "A001C001_renamed.mov"), []byte("clip One"), 0o644))
	require.NotEqual(t, 0, refVerify(t, bin, card).Code)
	v = e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "CHANGED Clips/A001C001_renamed.mov: xxh64 ")
	require.NotContains(t, v.Stdout, "MISSING")
}

// An empty folder recorded in the history and then deleted: the reference
// tool fails, and so does dit mhl verify (without --directory-hashes), on
// a history of either tool.
func TestMHLConformanceDeletedEmptyFolder(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")

	card := refCard(t, map[string]string{"Clips/A001C001.mov": "clip"}, "Empty Folder & Co")
	ascmhlCreate(t, bin, card)
	require.Equal(t, 0, refVerify(t, bin, card).Code)
	require.Equal(t, 0, e2e.Dit(t, db, "mhl", "verify", card).Code)
	require.NoError(t, os.Remove(filepath.Join(card, "Empty Folder & Co")))
	ref := refVerify(t, bin, card)
	require.NotEqual(t, 0, ref.Code, ref.Out)
	require.Contains(t, ref.Out, "missing")
	v := e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "MISSING Empty Folder & Co: folder recorded in the history, not in the folder")

	// The same on a copy dit offloaded.
	src := refCard(t, map[string]string{"Clips/A001C001.mov": "clip"}, "Empty Folder & Co")
	dest := filepath.Join(dir, "dest")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "Day 01", "-d", dest, src)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	copyDir := filepath.Join(dest, "Day 01", "A001")
	require.Equal(t, 0, refVerify(t, bin, copyDir).Code)
	require.NoError(t, os.Remove(filepath.Join(copyDir, "Empty Folder & Co")))
	require.NotEqual(t, 0, refVerify(t, bin, copyDir).Code)
	v = e2e.Dit(t, db, "mhl", "verify", copyDir)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "MISSING Empty Folder & Co: folder recorded in the history")
}

// A chain whose c4 is malformed is a damaged history: a finding (exit 3),
// not a failure to run (exit 1); the reference tool fails on it too.
func TestMHLConformanceMalformedChainC4(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	card := refCard(t, map[string]string{"a.mov": "a"})
	ascmhlCreate(t, bin, card)
	chain := filepath.Join(card, "ascmhl", "ascmhl_chain.xml")
	data, err := os.ReadFile(chain)
	require.NoError(t, err)
	bad := bytes.Replace(data, []byte("<c4>c4"), []byte("<c4>c4!0OIl"), 1) // not base58, not 90 characters
	require.NotEqual(t, data, bad)
	require.NoError(t, os.WriteFile(chain, bad, 0o644))
	require.NotEqual(t, 0, refVerify(t, bin, card).Code)
	v := e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "HISTORY: ascmhl/ascmhl_chain.xml is damaged: generation 1")
	require.Contains(t, v.Stdout, "the chain's c4 is malformed")
	info := e2e.Dit(t, db, "mhl", "info", card)
	require.Equal(t, 3, info.Code, info.Stdout+info.Stderr)
	require.Contains(t, info.Stdout, "PROBLEM: ascmhl/ascmhl_chain.xml is damaged")
}

// Nested histories: a card folder with its own history inside a folder
// that has one; the parent's manifest references the card's manifest by
// c4. A card manifest forged together with its own chain passes the card's
// history alone, but not the parent's reference: dit fails (exit 3). The
// reference tool only logs the mismatch (and exits 0).
func TestMHLConformanceNestedReference(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	roll := refCard(t, map[string]string{"A001/Clips/c1.mov": "one", "B/b.mov": "two"})
	ascmhlCreate(t, bin, filepath.Join(roll, "A001"))
	ascmhlCreate(t, bin, roll)
	parent, _ := filepath.Glob(filepath.Join(roll, "ascmhl", "0001_*.mhl"))
	require.Len(t, parent, 1)
	pdata, err := os.ReadFile(parent[0])
	require.NoError(t, err)
	require.Contains(t, string(pdata), "<hashlistreference>")
	require.Equal(t, 0, refVerify(t, bin, roll).Code)
	v := e2e.Dit(t, db, "mhl", "verify", roll)
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "2 files match")

	// Forge the referenced card manifest and make the card's chain agree.
	ref := regexp.MustCompile(`<path>(A001/ascmhl/[^<]+)</path>`).FindSubmatch(pdata)
	require.NotNil(t, ref)
	child := filepath.Join(roll, filepath.FromSlash(string(ref[1])))
	cdata, err := os.ReadFile(child)
	require.NoError(t, err)
	forged := regexp.MustCompile(`<hostname>[^<]*</hostname>`).ReplaceAll(cdata, []byte("<hostname>forged</hostname>"))
	require.NotEqual(t, cdata, forged)
	require.NoError(t, os.WriteFile(child, forged, 0o644))
	h := e2e.Dit(t, db, "hash", "--hash", "c4", child)
	require.Equal(t, 0, h.Code, h.Stderr)
	newC4 := strings.Fields(h.Stdout)[1]
	chain := filepath.Join(roll, "A001", "ascmhl", "ascmhl_chain.xml")
	cb, err := os.ReadFile(chain)
	require.NoError(t, err)
	entry := regexp.MustCompile(`(?s)(<path>` + regexp.QuoteMeta(filepath.Base(child)) + `</path>\s*<c4>)[^<]+(</c4>)`)
	require.True(t, entry.Match(cb))
	require.NoError(t, os.WriteFile(chain, entry.ReplaceAll(cb, []byte("${1}"+newC4+"${2}")), 0o644))

	v = e2e.Dit(t, db, "mhl", "verify", filepath.Join(roll, "A001"))
	require.Equal(t, 0, v.Code, "the card's history alone cannot tell: %s", v.Stdout+v.Stderr)
	v = e2e.Dit(t, db, "mhl", "verify", roll)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "HISTORY "+string(ref[1])+": nested history's manifest changed after it was referenced: its c4 is "+newC4)
	res := refVerify(t, bin, roll)
	require.Contains(t, res.Out, "but file has hash: "+newC4, "the reference tool sees it too (it only logs it)")
}

// A folder with only an MHL v1.1 list verifies against it: dit's own
// (offload --mhl v1) and o/COPY's --legacy-mhl format; a changed file fails
// (exit 3) and is named.
func TestMHLConformanceV1List(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	src := refCard(t, map[string]string{"Clips/A001C001.mov": strings.Repeat("frame", 2000), "Clips/A001C002.mov": "two", "zero.bin": ""})
	dest := filepath.Join(dir, "dest")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "Day 01", "--mhl", "v1", "--hash", "md5,xxh64,sha1", "-d", dest, src)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	copyDir := filepath.Join(dest, "Day 01", "A001")
	require.NoDirExists(t, filepath.Join(copyDir, "ascmhl"))
	lists, _ := filepath.Glob(filepath.Join(copyDir, "A001_*.mhl"))
	require.Len(t, lists, 1)
	v := e2e.Dit(t, db, "mhl", "verify", copyDir)
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "3 files match the MHL v1.1 list(s) "+filepath.Base(lists[0])+" (no ASC MHL history); nothing missing or changed")

	victim := filepath.Join(copyDir, "Clips", "A001C001.mov")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	data[len(data)/2] ^= 1
	require.NoError(t, os.WriteFile(victim, data, 0o644))
	require.NoError(t, os.Remove(filepath.Join(copyDir, "Clips", "A001C002.mov")))
	v = e2e.Dit(t, db, "mhl", "verify", copyDir)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "CHANGED Clips/A001C001.mov: md5 ")
	require.Contains(t, v.Stdout, "MISSING Clips/A001C002.mov: listed in the MHL v1.1 list, not in the folder")
	require.Contains(t, v.Stdout, "2 problem(s) above: NOT verified")
	j := e2e.Dit(t, db, "mhl", "verify", "--json", copyDir)
	require.Equal(t, 3, j.Code)
	require.Contains(t, j.Stdout, `"format": "mhl-1.1"`)

	// o/COPY 0.9.2 --legacy-mhl writes this into the card's folder.
	card := refCard(t, map[string]string{"Clips/a.mov": "hello\n", "empty.bin": "", "A001_2026-11-23_111032.mhl": ocopyLegacyList(t)})
	v = e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "2 files match the MHL v1.1 list(s)")
	require.NoError(t, os.WriteFile(filepath.Join(card, "Clips", "a.mov"), []byte("hellO\n"), 0o644))
	v = e2e.Dit(t, db, "mhl", "verify", card)
	require.Equal(t, 3, v.Code, v.Stdout+v.Stderr)
	require.Contains(t, v.Stdout, "CHANGED Clips/a.mov: xxhash64be ")

	// Neither history nor list: exit 1, as before.
	v = e2e.Dit(t, db, "mhl", "verify", src)
	require.Equal(t, 1, v.Code, v.Stdout+v.Stderr)
}

// ocopyLegacyList is the MHL v1.1 list o/COPY 0.9.2 --legacy-mhl writes
// (the fixture of internal/format/mhlv1's tests).
func ocopyLegacyList(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e2e.Root(t), "internal", "format", "mhlv1", "testdata", "ocopy-legacy.mhl"))
	require.NoError(t, err)
	return string(b)
}
