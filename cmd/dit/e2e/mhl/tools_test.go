package mhl

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/hashing"
)

// schemaCheck validates files against an ASC MHL schema of testdata/mhl
// with xmllint; without xmllint it says so and checks nothing.
func schemaCheck(t *testing.T, xsd string, files ...string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Logf("xmllint is not installed (Debian: apt-get install libxml2-utils): %d file(s) not checked against %s", len(files), xsd)
		return
	}
	schemas := filepath.Join(e2e.Root(t), "testdata", "mhl")
	out, err := exec.Command(xmllint, append([]string{"--noout", "--schema", filepath.Join(schemas, xsd)}, files...)...).CombinedOutput()
	require.NoError(t, err, "xmllint --schema %s:\n%s", xsd, out)
}

// historyValid checks every manifest and the chain of folder's history
// against the schemas.
func historyValid(t *testing.T, folder string) {
	t.Helper()
	ms := e2e.Manifests(t, folder)
	require.NotEmpty(t, ms)
	schemaCheck(t, "ASCMHL.xsd", ms...)
	schemaCheck(t, "ASCMHLDirectory_local.xsd", filepath.Join(folder, "ascmhl", "ascmhl_chain.xml"))
}

// refAccepts has the reference tool verify folder, files and directory
// hashes, and dit too.
func refAccepts(t *testing.T, bin, db, folder string) {
	t.Helper()
	for _, args := range [][]string{{"verify", folder}, {"verify", "-dh", folder}} {
		res := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), args...)
		require.Equal(t, 0, res.Code, "ascmhl-debug %s:\n%s", strings.Join(args, " "), res.Out)
	}
	v := e2e.Dit(t, db, "mhl", "verify", "--directory-hashes", "--verify-hashes", "all", folder)
	require.Equal(t, 0, v.Code, "dit mhl verify:\n%s%s", v.Stdout, v.Stderr)
}

func latestManifest(t *testing.T, folder string) string {
	t.Helper()
	ms := e2e.Manifests(t, folder)
	require.NotEmpty(t, ms)
	b, err := os.ReadFile(ms[len(ms)-1])
	require.NoError(t, err)
	return string(b)
}

func xxh64Of(s string) string {
	return hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(s)).Get(hashing.XXH64)
}

// dit mhl create on a folder copied by hand: the reference tool accepts
// the history (files and directory hashes) and the creator info (ascmhl
// info); --ignore is recorded; after a rename (mv a b, and a folder) the
// next generation carries previousPath and both tools verify; after a
// change dit mhl create exits 3 naming the file and both hashes.
func TestMHLToolsCreateRenameAndChange(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	card := refCard(t, map[string]string{
		"Clips/A001C001.mov": strings.Repeat("clip one", 1000),
		"Clips/A001C002.mov": "clip two",
		"a":                  "the file a",
		"notes & <odd>.txt":  "notes",
		"scratch.tmp":        "scratch",
		"CACHE/x.bin":        "cache",
	}, "Empty Folder")
	oddNames(t, card)

	r := e2e.Dit(t, db, "mhl", "create", "--hash", "xxh64,md5", "--ignore", "*.tmp", "--ignore", "CACHE/",
		"--author-name", "Jane Doe", "--author-email", "jane@example.org", "--author-phone", "+49 30 1234", "--author-role", "DIT",
		"--location", "Stage 5, Babelsberg", "--comment", "drive copied by hand", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "generation 1 written (ascmhl/0001_A001_")
	require.Contains(t, r.Stdout, "0 failed")
	refAccepts(t, bin, db, card)
	historyValid(t, card)

	m := latestManifest(t, card)
	require.Contains(t, m, "<process>in-place</process>")
	require.Contains(t, m, `<author email="jane@example.org" phone="+49 30 1234" role="DIT">Jane Doe</author>`)
	require.Contains(t, m, "<location>Stage 5, Babelsberg</location>")
	require.Contains(t, m, "<comment>drive copied by hand</comment>")
	require.Contains(t, m, "<pattern>*.tmp</pattern>")
	require.Contains(t, m, "<pattern>CACHE/</pattern>")
	require.NotContains(t, m, "scratch.tmp")
	require.NotContains(t, m, "x.bin")
	info := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "info", "-v", card)
	require.Equal(t, 0, info.Code, info.Out)
	require.Contains(t, info.Out, "Jane Doe [DIT] (jane@example.org, +49 30 1234)")
	require.Contains(t, info.Out, "at/in Stage 5, Babelsberg")
	require.Contains(t, info.Out, `"drive copied by hand"`)
	di := e2e.Dit(t, db, "mhl", "info", card)
	require.Equal(t, 0, di.Code, di.Stderr)
	require.Contains(t, di.Stdout, "author: Jane Doe [DIT] (jane@example.org, +49 30 1234)")
	require.Contains(t, di.Stdout, "location: Stage 5, Babelsberg")
	require.Contains(t, di.Stdout, "ignored: .DS_Store, ascmhl, ascmhl/, *.tmp, CACHE/")

	// Renamed: a file (mv a b) and a folder.
	require.NoError(t, os.Rename(filepath.Join(card, "a"), filepath.Join(card, "b")))
	require.NoError(t, os.Rename(filepath.Join(card, "Clips"), filepath.Join(card, "Footage")))
	r = e2e.Dit(t, db, "mhl", "create", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "RENAMED a -> b\n")
	require.Contains(t, r.Stdout, "RENAMED Clips/ -> Footage/ (folder)\n")
	require.Contains(t, r.Stdout, "RENAMED Clips/A001C001.mov -> Footage/A001C001.mov\n")
	require.Contains(t, r.Stdout, "generation 2 written")
	m = latestManifest(t, card)
	require.Regexp(t, regexp.MustCompile(`(?s)<path [^>]*>b</path>\s*<xxh64 [^>]*>`+xxh64Of("the file a")+`</xxh64>\s*<previousPath>a</previousPath>`), m)
	require.Regexp(t, regexp.MustCompile(`(?s)<path [^>]*>Footage</path>.*?<previousPath>Clips</previousPath>`), m)
	refAccepts(t, bin, db, card)
	historyValid(t, card)
	d := e2e.Dit(t, db, "mhl", "diff", card)
	require.Equal(t, 0, d.Code, d.Stdout+d.Stderr)

	// Changed: dit mhl create fails (exit 3), naming the file and both
	// hashes; the generation records it failed, and the reference tool
	// catches it too.
	require.NoError(t, os.WriteFile(filepath.Join(card, "b"), []byte("the file A"), 0o644))
	r = e2e.Dit(t, db, "mhl", "create", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "FAILED b: xxh64 "+xxh64Of("the file A")+", recorded "+xxh64Of("the file a")+": recorded as failed")
	require.Contains(t, r.Stdout, "generation 3 written")
	require.Contains(t, r.Stdout, "1 failed")
	require.Contains(t, r.Stdout, "NOT verified")
	require.Regexp(t, regexp.MustCompile(`<xxh64 action="failed"[^>]*>`+xxh64Of("the file A")+`</xxh64>`), latestManifest(t, card))
	historyValid(t, card)
	res := refVerify(t, bin, card)
	require.NotEqual(t, 0, res.Code, res.Out)
	require.Contains(t, res.Out, "hash mismatch")

	// Gone: named, exit 3.
	require.NoError(t, os.Remove(filepath.Join(card, "notes & <odd>.txt")))
	r = e2e.Dit(t, db, "mhl", "create", "--json", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, `"kind": "missing"`)
	require.Contains(t, r.Stdout, `"path": "notes \u0026 \u003codd\u003e.txt"`)
}

// dit and the reference tool extend each other's histories: a history
// begun by ascmhl create gets a dit generation (verified, renames found),
// then an ascmhl generation again; both tools verify each step.
func TestMHLToolsExtendTheReferenceToolsHistory(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	card := refCard(t, map[string]string{"Clips/c1.mov": "one", "Clips/c2.mov": "two", "x.txt": "x"})
	ascmhlCreate(t, bin, card)
	require.NoError(t, os.Rename(filepath.Join(card, "x.txt"), filepath.Join(card, "y.txt")))
	r := e2e.Dit(t, db, "mhl", "create", "--hash", "md5", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "RENAMED x.txt -> y.txt")
	require.Contains(t, r.Stdout, "0 original, 3 verified, 0 failed")
	m := latestManifest(t, card)
	require.Contains(t, m, `<md5 action="original"`)   // a format new to the history
	require.Contains(t, m, `<xxh64 action="verified"`) // checked in the history's own
	refAccepts(t, bin, db, card)
	historyValid(t, card)
	out := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "create", "-h", "xxh64", card)
	require.Equal(t, 0, out.Code, out.Out)
	refAccepts(t, bin, db, card)
	r = e2e.Dit(t, db, "mhl", "create", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "generation 4 written")
	refAccepts(t, bin, db, card)
}

// dit mhl diff names new, missing and resized files without reading or
// writing anything (exit 3), as ascmhl diff does; --hash finds a change of
// the same size too; nothing differing is exit 0.
func TestMHLToolsDiff(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	card := refCard(t, map[string]string{"a.mov": "aaaa", "b.mov": "bbbb", "c.mov": "cccc", "sub/d.mov": "dddd"})
	r := e2e.Dit(t, db, "mhl", "create", card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	d := e2e.Dit(t, db, "mhl", "diff", card)
	require.Equal(t, 0, d.Code, d.Stdout+d.Stderr)
	require.Contains(t, d.Stdout, "4 files as the ASC MHL history records them (by size); nothing new or missing")
	require.Equal(t, 0, e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "diff", card).Code)

	require.NoError(t, os.WriteFile(filepath.Join(card, "new.mov"), []byte("new"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(card, "sub", "d.mov")))
	require.NoError(t, os.WriteFile(filepath.Join(card, "a.mov"), []byte("aaaaaa"), 0o644)) // resized
	require.NoError(t, os.WriteFile(filepath.Join(card, "b.mov"), []byte("BBBB"), 0o644))   // same size
	before := e2e.Tree(t, card)
	d = e2e.Dit(t, db, "mhl", "diff", card)
	require.Equal(t, 3, d.Code, d.Stdout+d.Stderr)
	require.Contains(t, d.Stdout, "NEW new.mov: not recorded in the history\n")
	require.Contains(t, d.Stdout, "MISSING sub/d.mov: recorded in the history, not in the folder\n")
	require.Contains(t, d.Stdout, "CHANGED a.mov: size 6, recorded 4\n")
	require.NotContains(t, d.Stdout, "b.mov")
	require.Contains(t, d.Stdout, "differs from the ASC MHL history: 1 new, 1 missing, 1 changed")
	require.Equal(t, before, e2e.Tree(t, card), "dit mhl diff writes nothing")
	ref := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "diff", card)
	require.NotEqual(t, 0, ref.Code, ref.Out)

	d = e2e.Dit(t, db, "mhl", "diff", "--hash", card)
	require.Equal(t, 3, d.Code, d.Stdout+d.Stderr)
	require.Contains(t, d.Stdout, "CHANGED b.mov: xxh64 "+xxh64Of("BBBB")+", recorded "+xxh64Of("bbbb")+"\n")
	d = e2e.Dit(t, db, "mhl", "diff", "--json", "--ignore", "new.*", card)
	require.Equal(t, 3, d.Code)
	require.NotContains(t, d.Stdout, "new.mov")
	require.Contains(t, d.Stdout, `"same": false`)

	noHist := t.TempDir()
	d = e2e.Dit(t, db, "mhl", "diff", noHist)
	require.Equal(t, 1, d.Code)
	require.Contains(t, d.Stderr, "has no ASC MHL history")
}

// dit mhl flatten writes every file of the history, nested ones
// included, into one manifest that validates against the schema; renames
// keep previousPath; --out FOLDER gets the reference tool's name.
func TestMHLToolsFlatten(t *testing.T) {
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("xmllint is not installed (Debian: apt-get install libxml2-utils): the flattened manifest cannot be checked against the schema")
	}
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	day := filepath.Join(t.TempDir(), "Day01")
	card := filepath.Join(day, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "Clips"), 0o755))
	for p, c := range map[string]string{"A001/Clips/c1.mov": "one", "A001/c2.mov": "two", "notes.txt": "notes", "old.txt": "old"} {
		require.NoError(t, os.WriteFile(filepath.Join(day, filepath.FromSlash(p)), []byte(c), 0o644))
	}
	ascmhlCreate(t, bin, card) // the card's own history, by the reference tool
	r := e2e.Dit(t, db, "mhl", "create", "--hash", "xxh64,md5", day)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "1 nested history extended too")
	require.NoError(t, os.Rename(filepath.Join(day, "old.txt"), filepath.Join(day, "new.txt")))
	r = e2e.Dit(t, db, "mhl", "create", day)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	historyValid(t, day)
	historyValid(t, card)
	res := refVerify(t, bin, day)
	require.Equal(t, 0, res.Code, res.Out)

	out := t.TempDir()
	f := e2e.Dit(t, db, "mhl", "flatten", day, "--out", out, "--author-name", "Jane Doe", "--location", "Stage 5")
	require.Equal(t, 0, f.Code, "%s\n%s", f.Stdout, f.Stderr)
	require.Contains(t, f.Stdout, "4 files from 5 generation(s) of the history and 1 nested history flattened into")
	flat, err := filepath.Glob(filepath.Join(out, "packinglist_Day01_*Z.mhl"))
	require.NoError(t, err)
	require.Len(t, flat, 1)
	schemaCheck(t, "ASCMHL.xsd", flat[0])
	b, err := os.ReadFile(flat[0])
	require.NoError(t, err)
	m := string(b)
	require.Contains(t, m, "<process>flatten</process>")
	require.Contains(t, m, "<author>Jane Doe</author>")
	for _, p := range []string{"A001/Clips/c1.mov", "A001/c2.mov", "notes.txt", "new.txt"} {
		require.Contains(t, m, ">"+p+"</path>")
	}
	require.NotContains(t, m, ">old.txt</path>")
	require.Contains(t, m, "<previousPath>old.txt</previousPath>")
	require.NotContains(t, m, "directoryhash")
	require.Regexp(t, regexp.MustCompile(`(?s)>notes.txt</path>\s*<md5 action="original"[^>]*>[0-9a-f]{32}</md5>\s*<xxh64 action="original"`), m)

	// --out FILE; an existing file is not replaced; the history folder is
	// refused; the reference tool's flatten lists the same files.
	file := filepath.Join(out, "day01.mhl")
	f = e2e.Dit(t, db, "mhl", "flatten", day, "--out", file, "--json")
	require.Equal(t, 0, f.Code, "%s\n%s", f.Stdout, f.Stderr)
	require.Contains(t, f.Stdout, `"files": 4`)
	schemaCheck(t, "ASCMHL.xsd", file)
	f = e2e.Dit(t, db, "mhl", "flatten", day, "--out", file)
	require.Equal(t, 1, f.Code)
	require.Contains(t, f.Stderr, "exists: not replaced")
	f = e2e.Dit(t, db, "mhl", "flatten", day, "--out", filepath.Join(day, "ascmhl"))
	require.Equal(t, 2, f.Code)
	f = e2e.Dit(t, db, "mhl", "flatten", day)
	require.Equal(t, 2, f.Code)
	refOut := t.TempDir()
	rf := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "flatten", day, refOut)
	require.Equal(t, 0, rf.Code, rf.Out)
	refFlat, _ := filepath.Glob(filepath.Join(refOut, "packinglist_Day01_*.mhl"))
	require.Len(t, refFlat, 1)
	rb, err := os.ReadFile(refFlat[0])
	require.NoError(t, err)
	for _, p := range []string{"A001/Clips/c1.mov", "A001/c2.mov", "notes.txt", "new.txt"} {
		require.Contains(t, string(rb), ">"+p+"</path>")
	}
}

// dit offload writes the DIT's creator info into each card's manifest
// (--author-*, --location, --comment after dit's own comment), and with
// --no-directory-hashes lists the folders without hashes; the reference
// tool accepts both (ascmhl info shows the author); a bad email is a usage
// error before anything is copied.
func TestMHLToolsOffloadCreatorInfo(t *testing.T) {
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := refCard(t, map[string]string{"Clips/A001C001.mov": "clip", "b.txt": "bee"})
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "Day 01", "-d", dest, "--author-name", "Jane Doe", "--author-email", "jane@example.org",
		"--author-role", "DIT", "--location", "Stage 5", "--comment", "second unit", "--no-directory-hashes", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	folder := filepath.Join(dest, "Day 01", "A001")
	m := latestManifest(t, folder)
	require.Contains(t, m, `<author email="jane@example.org" role="DIT">Jane Doe</author>`)
	require.Contains(t, m, "<location>Stage 5</location>")
	require.Regexp(t, `<comment>dit job 1 [^<]*; second unit</comment>`, m)
	require.Contains(t, m, "<roothash>\n      <content/>\n      <structure/>\n    </roothash>")
	require.Regexp(t, regexp.MustCompile(`(?s)<directoryhash>\s*<path [^>]*>Clips</path>\s*<content/>\s*<structure/>`), m)
	refAccepts(t, bin, db, folder)
	historyValid(t, folder)
	info := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "info", "-v", folder)
	require.Equal(t, 0, info.Code, info.Out)
	require.Contains(t, info.Out, "Jane Doe [DIT] (jane@example.org), at/in Stage 5")

	// dit mhl create on the copy later: a generation with directory
	// hashes again; both tools still verify.
	c := e2e.Dit(t, db, "mhl", "create", "--hash", "xxh64,md5", folder)
	require.Equal(t, 0, c.Code, "%s\n%s", c.Stdout, c.Stderr)
	require.Contains(t, c.Stdout, "0 original, 2 verified, 0 failed")
	refAccepts(t, bin, db, folder)

	bad := e2e.Dit(t, db, "offload", "-d", dest, "--author-email", "jane", card)
	require.Equal(t, 2, bad.Code, bad.Stderr)
	require.Contains(t, bad.Stderr, `author email "jane" is not an address the ASC MHL schema accepts`)
	bad = e2e.Dit(t, db, "mhl", "create", "--hash", "blake3", folder)
	require.Equal(t, 2, bad.Code, bad.Stderr)
}

// dit mhl create killed (kill -9) at every step of writing (the nested
// history's generation, then the folder's): the next dit mhl create
// recovers what the crash left (no temp stays), writes its generation,
// and both tools verify.
func TestMHLToolsCreateKilledAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dit mhl create at every step of writing")
	}
	bin := e2e.ReferenceTool(t)
	db := filepath.Join(t.TempDir(), "catalog.db")
	setup := func() string {
		day := refCard(t, map[string]string{"A001/Clips/c1.mov": "one", "A001/c2.mov": "two", "notes.txt": "notes"})
		r := e2e.Dit(t, db, "mhl", "create", filepath.Join(day, "A001"))
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		r = e2e.Dit(t, db, "mhl", "create", day)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		require.NoError(t, os.WriteFile(filepath.Join(day, "A001", "c3.mov"), []byte("three"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(day, "more.txt"), []byte("more"), 0o644))
		return day
	}
	list := filepath.Join(t.TempDir(), "steps")
	day := setup()
	r, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_LIST=" + list}, "mhl", "create", day)
	require.False(t, killed)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(list)
	require.NoError(t, err)
	steps := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.GreaterOrEqual(t, len(steps), 6, "%q", steps) // manifest temp, manifest, chain temp: nested, then the folder
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			day := setup()
			_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=" + step}, "mhl", "create", day)
			require.True(t, killed, "not killed at %q", step)
			r := e2e.Dit(t, db, "mhl", "create", day)
			require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
			for _, folder := range []string{day, filepath.Join(day, "A001")} {
				ents, err := os.ReadDir(filepath.Join(folder, "ascmhl"))
				require.NoError(t, err)
				for _, e := range ents {
					require.False(t, strings.HasSuffix(e.Name(), ".dit-tmp"), "temp left: %s", e.Name())
				}
				historyValid(t, folder)
			}
			res := refVerify(t, bin, day)
			require.Equal(t, 0, res.Code, res.Out)
			v := e2e.Dit(t, db, "mhl", "verify", day)
			require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
		})
	}
}
