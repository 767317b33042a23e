package ascmhl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

func xxh(s string) string {
	return hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(s)).Get(hashing.XXH64)
}

func fileRec(path, content string, action Action) File {
	return File{Path: path, Size: int64(len(content)), Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh(content), Action: action}}}
}

// scopeWith makes a folder holding files (path -> content) and folders.
func scopeWith(t *testing.T, files map[string]string, dirs ...string) (string, *OSStore) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return dir, st
}

func appendGen(t *testing.T, st Store, m *Manifest) string {
	t.Helper()
	h, err := LoadHistory(st)
	if err == ErrNoHistory {
		h = nil
	} else {
		require.NoError(t, err)
	}
	if m.Created.IsZero() {
		m.Created, m.Host, m.Tool, m.Process = t0, "h", "t", ProcessInPlace
	}
	name, err := Append(st, h, m, "X")
	require.NoError(t, err)
	return name
}

func verifyAll(t *testing.T, st Store) *VerifyResult {
	t.Helper()
	res, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true})
	require.NoError(t, err)
	return res
}

// A file renamed between generations carries previousPath: it is checked
// under its new name against what the old name recorded, and the old name
// is not expected any more; renames chain.
func TestVerifyFollowsPreviousPath(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"Clips/c.mov": "clip", "keep.mov": "keep"})
	appendGen(t, st, &Manifest{Files: []File{fileRec("Clips/a.mov", "clip", Original), fileRec("keep.mov", "keep", Original)}})
	b := fileRec("Clips/b.mov", "clip", Original)
	b.PreviousPath = "Clips/a.mov"
	appendGen(t, st, &Manifest{Files: []File{b, fileRec("keep.mov", "keep", Verified)}})
	c := fileRec("Clips/c.mov", "clip", Verified)
	c.PreviousPath = "Clips/b.mov"
	name := appendGen(t, st, &Manifest{Files: []File{c}})

	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	require.Contains(t, string(data), "<previousPath>Clips/b.mov</previousPath>")
	res := verifyAll(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 2, res.Files)
	recs := res.History.Records()
	require.True(t, recs.Has("Clips/c.mov"))
	require.False(t, recs.Has("Clips/a.mov"))
	require.False(t, recs.Has("Clips/b.mov"))
	require.Equal(t, 1, recs.Get("Clips/c.mov").FirstSeq, "the record began with the first name")
	h, err := LoadHistory(st)
	require.NoError(t, err)
	require.Equal(t, recs.Get("Clips/c.mov"), h.Records().Get("Clips/c.mov"), "LoadHistory's records follow renames too")

	// The renamed file changed: named, against the first record.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Clips/c.mov"), []byte("CLIP"), 0o644))
	res = verifyAll(t, st)
	require.Equal(t, []Finding{{Kind: FindChanged, Path: "Clips/c.mov", Detail: fmt.Sprintf("xxh64 %s, recorded %s", xxh("CLIP"), xxh("clip"))}}, res.Findings)

	// Gone: the new name is missing, never the old ones.
	require.NoError(t, os.Remove(filepath.Join(dir, "Clips/c.mov")))
	res = verifyAll(t, st)
	require.Equal(t, []Finding{{Kind: FindMissing, Path: "Clips/c.mov", Detail: "recorded in the history, not in the folder"}}, res.Findings)
}

// A previousPath that leaves the folder makes the manifest invalid.
func TestParseRefusesBadPreviousPath(t *testing.T) {
	m := &Manifest{Created: t0, Host: "h", Tool: "t", Process: ProcessInPlace}
	f := fileRec("a.mov", "a", Original)
	f.PreviousPath = "../../etc/passwd"
	m.Files = []File{f}
	data, err := m.Marshal()
	require.NoError(t, err)
	_, _, err = ParseManifest(data)
	require.ErrorContains(t, err, "previousPath")
	f.PreviousPath = "old.mov"
	m.Files = []File{f}
	m.Dirs = []Dir{{Path: "New", PreviousPath: "Old", Hashes: []DirHash{{hashing.XXH64, xxh("c"), xxh("s")}}}}
	data, err = m.Marshal()
	require.NoError(t, err)
	got, _, err := ParseManifest(data)
	require.NoError(t, err)
	require.Equal(t, "old.mov", got.Files[0].PreviousPath)
	require.Equal(t, "Old", got.Dirs[0].PreviousPath)
}

// A folder recorded in the history (a <directoryhash>) and gone is named,
// without --directory-hashes; an ignored one is not; a renamed one is
// expected under its new name only.
func TestVerifyNamesAMissingFolder(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"Clips/a.mov": "a"}, "Empty", "Logs", "New")
	dh := []DirHash{{hashing.XXH64, xxh("c"), xxh("s")}}
	appendGen(t, st, &Manifest{Ignore: append([]string{"Logs/"}, DefaultIgnore...),
		Files: []File{fileRec("Clips/a.mov", "a", Original)},
		Dirs:  []Dir{{Path: "Clips", Hashes: dh}, {Path: "Empty", Hashes: dh}, {Path: "Logs", Hashes: dh}, {Path: "Old", Hashes: dh}}})
	appendGen(t, st, &Manifest{Ignore: append([]string{"Logs/"}, DefaultIgnore...), Dirs: []Dir{{Path: "New", PreviousPath: "Old", Hashes: dh}}})
	res := verifyAll(t, st)
	require.True(t, res.OK(), "%v", res.Findings)

	require.NoError(t, os.Remove(filepath.Join(dir, "Empty")))
	require.NoError(t, os.Remove(filepath.Join(dir, "Logs")))
	res = verifyAll(t, st)
	require.Equal(t, []Finding{{Kind: FindMissing, Path: "Empty", Detail: "folder recorded in the history, not in the folder"}}, res.Findings)

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "Clips")))
	res = verifyAll(t, st)
	require.Equal(t, []Finding{
		{Kind: FindMissing, Path: "Clips", Detail: "folder recorded in the history, not in the folder"},
		{Kind: FindMissing, Path: "Clips/a.mov", Detail: "recorded in the history, not in the folder"},
		{Kind: FindMissing, Path: "Empty", Detail: "folder recorded in the history, not in the folder"},
	}, res.Findings)
}

// A parent history's reference to a nested history's manifest is checked
// against that manifest's c4: a nested manifest changed together with its
// own chain (which the nested history alone cannot tell) is caught.
func TestVerifyChecksNestedReferences(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"A001/clip.mov": "clip", "notes.txt": "n"})
	child := &subStore{Store: st, prefix: "A001/"}
	childName := appendGen(t, child, &Manifest{Files: []File{fileRec("clip.mov", "clip", Original)}})
	childPath := filepath.Join(dir, "A001", filepath.FromSlash(childName))
	data, err := os.ReadFile(childPath)
	require.NoError(t, err)
	ref := Reference{Path: "A001/" + childName, C4: C4(data)}
	appendGen(t, st, &Manifest{Files: []File{fileRec("notes.txt", "n", Original)}, References: []Reference{ref}})
	res := verifyAll(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 2, res.Files)

	// The nested manifest forged, its chain made to agree.
	forged := bytes.Replace(data, []byte("<hostname>h</hostname>"), []byte("<hostname>forged</hostname>"), 1)
	require.NotEqual(t, data, forged)
	require.NoError(t, os.WriteFile(childPath, forged, 0o644))
	chain := MarshalChain([]ChainEntry{{1, filepath.Base(childName), C4(forged)}})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "A001", HistoryDir, ChainFile), chain, 0o644))
	cres, err := Verify(context.Background(), child, VerifyOptions{})
	require.NoError(t, err)
	require.True(t, cres.OK(), "the nested history alone verifies: %v", cres.Findings)
	res = verifyAll(t, st)
	require.Len(t, res.Findings, 1, "%v", res.Findings)
	require.Equal(t, FindHistory, res.Findings[0].Kind)
	require.Equal(t, "A001/"+childName, res.Findings[0].Path)
	require.Contains(t, res.Findings[0].Detail, "changed after it was referenced: its c4 is "+C4(forged))

	// The nested manifest gone.
	require.NoError(t, os.Remove(childPath))
	res = verifyAll(t, st)
	var details []string
	for _, f := range res.Findings {
		details = append(details, f.String())
	}
	require.Contains(t, strings.Join(details, "\n"), "references this nested history's manifest, which is missing")
}

// A damaged chain is a problem of the history (a finding), not an error:
// a malformed c4, an entry out of count, a chain that is not one.
func TestDamagedChainIsAProblem(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a"})
	name := appendGen(t, st, &Manifest{Files: []File{fileRec("a.mov", "a", Original)}})
	chainPath := filepath.Join(dir, HistoryDir, ChainFile)
	good, err := os.ReadFile(chainPath)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	for what, chain := range map[string]string{
		"the chain's c4 is malformed":   strings.Replace(string(good), C4(data), "c4!"+C4(data)[3:], 1),
		"c4 too short":                  strings.Replace(string(good), C4(data), "c4abc", 1),
		"a continuous count from 1":     strings.Replace(string(good), `sequencenr="1"`, `sequencenr="7"`, 1),
		"not valid XML":                 string(good[:len(good)/2]),
		"not an ASC MHL chain":          strings.ReplaceAll(string(good), "ascmhldirectory", "other"),
		"not a file name in the ascmhl": strings.Replace(string(good), filepath.Base(name), "../x.mhl", 1),
	} {
		require.NoError(t, os.WriteFile(chainPath, []byte(chain), 0o644))
		h, err := LoadHistory(st)
		require.NoError(t, err, what)
		require.NotEmpty(t, h.Problems, what)
		res, err := Verify(context.Background(), st, VerifyOptions{})
		require.NoError(t, err, what)
		require.False(t, res.OK(), what)
		require.Equal(t, FindHistory, res.Findings[0].Kind, what)
		if what != "c4 too short" {
			require.Contains(t, res.Findings[0].Detail, what)
		}
		_, err = ParseChain([]byte(chain))
		require.Error(t, err, "ParseChain stays strict: %s", what)
		did, err := Recover(st, ditScope)
		require.NoError(t, err, what)
		require.Empty(t, did, "Recover touches no damaged chain: %s", what)
	}
}

// Warnings are capped: a manifest with an unknown hash format on every one
// of many files does not hold a warning for each.
func TestWarningsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0"><creatorinfo><creationdate>2026-11-20T09:30:00Z</creationdate>
<hostname>h</hostname><tool>t</tool></creatorinfo><processinfo><process>transfer</process></processinfo><hashes>`)
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, `<hash><path size="1">f%d</path><xxh64 action="original">0123456789abcdef</xxh64><sha256 action="original">ff</sha256></hash>`, i)
	}
	b.WriteString(`</hashes></hashlist>`)
	m, warns, err := ParseManifest([]byte(b.String()))
	require.NoError(t, err)
	require.Len(t, m.Files, 500)
	require.Len(t, warns, maxWarnings+1)
	require.Equal(t, "... and 400 more warning(s)", warns[maxWarnings])
}

// The streaming reader and the record index agree with ParseManifest on
// hostile input: never a panic, never a path that leaves the folder.
func FuzzParseManifest(f *testing.F) {
	m := &Manifest{Created: t0, Host: "h", Tool: "t", Process: ProcessTransfer, Ignore: DefaultIgnore,
		References: []Reference{{Path: "A001/ascmhl/0001_A001.mhl", C4: C4([]byte("x"))}}}
	a := fileRec("a & b/c\xff.mov", "a", Original)
	a.PreviousPath = "old.mov"
	m.Files = []File{a, fileRec("z.mov", "z", Failed)}
	m.Dirs = []Dir{{Path: "a & b", Hashes: []DirHash{{hashing.XXH64, xxh("c"), xxh("s")}}}}
	data, err := m.Marshal()
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0"><hashes><hash><path>../x</path></hash></hashes></hashlist>`))
	f.Add([]byte(`<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0"><creatorinfo><creationdate>2026-11-20T09:30:00Z</creationdate><hostname>h</hostname><tool>t</tool></creatorinfo><processinfo><process>in-place</process></processinfo><hashes><hash><path>a</path><previousPath>/etc</previousPath></hash><hash><path>a</path></hash></hashes></hashlist>`))
	f.Add([]byte("<hashlist"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := ParseManifest(data)
		if err == nil {
			for _, fl := range m.Files {
				require.True(t, ValidName(fl.Path) && fl.Path != ".", fl.Path)
				require.True(t, fl.PreviousPath == "" || ValidName(fl.PreviousPath), fl.PreviousPath)
			}
			for _, r := range m.References {
				require.True(t, ValidName(r.Path), r.Path)
			}
		}
		x := newIndex()
		_, ierr := parseManifest(bytes.NewReader(data), &warnList{},
			func(f *File) error { return x.addFile(1, f) }, func(d *Dir) error { return x.addDir(1, d) })
		require.Equal(t, err == nil, ierr == nil, "ParseManifest: %v, streamed into the index: %v", err, ierr)
		if err == nil {
			require.Equal(t, len(m.Files), (&Records{x: x}).Len(), "within one generation a rename copies")
		}
	})
}

// A manifest replaced by a link is damage (a finding), never followed.
func TestManifestThatIsALinkIsAProblem(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a"})
	name := appendGen(t, st, &Manifest{Files: []File{fileRec("a.mov", "a", Original)}})
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.Rename(p, filepath.Join(dir, "moved.mhl")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "moved.mhl"), p))
	res, err := Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	require.False(t, res.OK())
	require.Contains(t, res.Findings[0].Detail, "is not a regular file")
}

// Values of several algorithms, recorded over generations, are all kept
// (the earliest of each not marked failed) and all checked.
func TestVerifyValuesAcrossGenerations(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a"})
	all := hashing.Bytes([]hashing.Algo{hashing.C4, hashing.MD5, hashing.SHA1, hashing.XXH128}, []byte("a"))
	appendGen(t, st, &Manifest{Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{
		{Algo: hashing.C4, Value: all.Get(hashing.C4), Action: Original}, {Algo: hashing.MD5, Value: all.Get(hashing.MD5), Action: Original}}}}})
	appendGen(t, st, &Manifest{Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{
		{Algo: hashing.MD5, Value: strings.Repeat("0", 32), Action: Failed},
		{Algo: hashing.SHA1, Value: all.Get(hashing.SHA1), Action: Verified}, {Algo: hashing.XXH128, Value: all.Get(hashing.XXH128), Action: Original}}}}})
	res := verifyAll(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	rec := res.History.Records().Get("a.mov")
	require.Equal(t, map[hashing.Algo]string{hashing.C4: all.Get(hashing.C4), hashing.MD5: all.Get(hashing.MD5),
		hashing.SHA1: all.Get(hashing.SHA1), hashing.XXH128: all.Get(hashing.XXH128)}, rec.Values)
	require.False(t, rec.LastFailed, "a usable hash came with the failed one")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("b"), 0o644))
	res = verifyAll(t, st)
	require.Len(t, res.Findings, 1)
	require.Equal(t, FindChanged, res.Findings[0].Kind)
	require.True(t, strings.HasPrefix(res.Findings[0].Detail, "c4 "), res.Findings[0].Detail)
}
