package ascmhl

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

var md5x = []hashing.Algo{hashing.MD5, hashing.XXH64}

func create(t *testing.T, st Store, opt CreateOptions) *CreateResult {
	t.Helper()
	if opt.Now == nil {
		opt.Now = func() time.Time { return t0 }
	}
	if opt.Folder == "" {
		opt.Folder = "X"
	}
	opt.Host = "cart-1"
	res, err := Create(context.Background(), st, opt)
	require.NoError(t, err)
	return res
}

func latest(t *testing.T, st Store) *Manifest {
	t.Helper()
	h, err := LoadHistory(st)
	require.NoError(t, err)
	require.Empty(t, h.Problems)
	return h.Latest()
}

func fileOf(m *Manifest, p string) *File {
	for i := range m.Files {
		if m.Files[i].Path == p {
			return &m.Files[i]
		}
	}
	return nil
}

func actions(f *File) map[hashing.Algo]Action {
	out := map[hashing.Algo]Action{}
	for _, h := range f.Hashes {
		out[h.Algo] = h.Action
	}
	return out
}

// A first generation: every file original, folders and root hashed, the
// creator info written; it verifies, directory hashes included.
func TestCreateFirstGeneration(t *testing.T) {
	_, st := scopeWith(t, map[string]string{"Clips/a.mov": "clip a", "b.txt": "bee", ".DS_Store": "junk"}, "Empty")
	res := create(t, st, CreateOptions{Algos: md5x, Authors: []Author{{Name: "Jane Doe", Email: "jane@example.org", Phone: "+49 30 1", Role: "DIT"}},
		Location: "Stage 5", Comment: "checked before shipping", ToolVersion: "1.2.3"})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 1, res.Generation)
	require.Equal(t, 2, res.Files)
	require.Equal(t, 2, res.Original)
	require.Len(t, res.Manifests, 1)
	require.True(t, strings.HasPrefix(res.Manifests[0], "ascmhl/0001_X_"))

	m := latest(t, st)
	require.Equal(t, ProcessInPlace, m.Process)
	require.Equal(t, "dit", m.Tool)
	require.Equal(t, "cart-1", m.Host)
	require.Equal(t, []Author{{Name: "Jane Doe", Email: "jane@example.org", Phone: "+49 30 1", Role: "DIT"}}, m.Authors)
	require.Equal(t, "Stage 5", m.Location)
	require.Equal(t, "checked before shipping", m.Comment)
	require.Len(t, m.Files, 2)
	require.Equal(t, map[hashing.Algo]Action{hashing.MD5: Original, hashing.XXH64: Original}, actions(fileOf(m, "Clips/a.mov")))
	require.Len(t, m.Root, 2)
	require.Len(t, m.Dirs, 2) // Clips, Empty
	require.Equal(t, DefaultIgnore, m.Ignore)

	v, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true, DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
	require.Empty(t, v.Warnings)
}

// A second generation after renames: the file and the folder are recorded
// with previousPath, the old paths are not missing, and the history
// verifies; a plain re-check is all verified.
func TestCreateDetectsRenames(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"Clips/a.mov": "clip a", "Clips/sub/c.mov": "clip c", "b.txt": "bee", "same1": "dup", "same2": "dup"})
	create(t, st, CreateOptions{})
	again := create(t, st, CreateOptions{})
	require.True(t, again.OK(), "%v", again.Findings)
	require.Equal(t, 5, again.Verified)
	require.Empty(t, again.Renamed)
	require.Equal(t, map[hashing.Algo]Action{hashing.XXH64: Verified}, actions(fileOf(latest(t, st), "b.txt")))

	require.NoError(t, os.Rename(filepath.Join(dir, "b.txt"), filepath.Join(dir, "renamed.txt")))
	require.NoError(t, os.Rename(filepath.Join(dir, "Clips"), filepath.Join(dir, "Footage")))
	require.NoError(t, os.Rename(filepath.Join(dir, "same1"), filepath.Join(dir, "same3"))) // same2 has that content too
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new"), 0o644))
	res := create(t, st, CreateOptions{})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, []Renamed{
		{From: "Clips", To: "Footage", Dir: true},
		{From: "Clips/a.mov", To: "Footage/a.mov"},
		{From: "Clips/sub", To: "Footage/sub", Dir: true},
		{From: "Clips/sub/c.mov", To: "Footage/sub/c.mov"},
		{From: "b.txt", To: "renamed.txt"},
		{From: "same1", To: "same3"},
	}, res.Renamed)
	require.Equal(t, 1, res.Original)
	require.Equal(t, 5, res.Verified)
	m := latest(t, st)
	f := fileOf(m, "renamed.txt")
	require.Equal(t, "b.txt", f.PreviousPath)
	// As the reference tool writes a rename (its verify finds a renamed
	// file in a nested history only so).
	require.Equal(t, map[hashing.Algo]Action{hashing.XXH64: Original}, actions(f))
	require.Equal(t, "Clips/a.mov", fileOf(m, "Footage/a.mov").PreviousPath)
	var prevDirs []string
	for _, d := range m.Dirs {
		prevDirs = append(prevDirs, d.Path+"<-"+d.PreviousPath)
	}
	require.ElementsMatch(t, []string{"Footage<-Clips", "Footage/sub<-Clips/sub"}, prevDirs)
	require.Nil(t, fileOf(m, "same1"))

	v, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true, DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
}

// A rename is detected in the format the old record has when it is not
// the one asked for now.
func TestCreateRenameInAnotherFormat(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "clip"})
	create(t, st, CreateOptions{Algos: []hashing.Algo{hashing.MD5}})
	require.NoError(t, os.Rename(filepath.Join(dir, "a.mov"), filepath.Join(dir, "b.mov")))
	res := create(t, st, CreateOptions{Algos: []hashing.Algo{hashing.XXH64}})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, []Renamed{{From: "a.mov", To: "b.mov"}}, res.Renamed)
	f := fileOf(latest(t, st), "b.mov")
	require.Equal(t, map[hashing.Algo]Action{hashing.MD5: Original, hashing.XXH64: Original}, actions(f))
	require.True(t, verifyAll(t, st).OK())
}

// A file that changed is recorded failed, named with both values; a file
// gone is named; the generation is written anyway; a format never recorded
// is not added to the failed file; one recorded in another format only is
// checked in it.
func TestCreateFailedAndMissing(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "clip a", "b.mov": "clip b", "c.mov": "clip c"})
	create(t, st, CreateOptions{})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("clip A"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "b.mov")))
	var seen []Finding
	res := create(t, st, CreateOptions{Algos: md5x, OnFinding: func(f Finding) { seen = append(seen, f) }})
	require.False(t, res.OK())
	require.Equal(t, res.Findings, seen)
	require.Len(t, res.Findings, 2)
	require.Equal(t, FindFailed, res.Findings[0].Kind)
	require.Equal(t, "a.mov", res.Findings[0].Path)
	require.Contains(t, res.Findings[0].Detail, "xxh64 "+xxh("clip A")+", recorded "+xxh("clip a"))
	require.Equal(t, Finding{Kind: FindMissing, Path: "b.mov", Detail: "recorded in the history, not in the folder"}, res.Findings[1])
	require.Equal(t, 1, res.Failed)
	require.Equal(t, 1, res.Verified)
	require.Equal(t, 2, res.Generation)

	m := latest(t, st)
	require.Equal(t, map[hashing.Algo]Action{hashing.XXH64: Failed}, actions(fileOf(m, "a.mov")))
	require.Equal(t, map[hashing.Algo]Action{hashing.MD5: Original, hashing.XXH64: Verified}, actions(fileOf(m, "c.mov")))

	// Only md5 asked for: c.mov is checked in xxh64 too (its record's
	// format) and stays verified.
	res = create(t, st, CreateOptions{Algos: []hashing.Algo{hashing.MD5}})
	require.Equal(t, map[hashing.Algo]Action{hashing.MD5: Verified}, actions(fileOf(latest(t, st), "c.mov")))
	require.Equal(t, 1, res.Verified)
}

// The ignore list only grows: patterns given are added to the history's,
// and what they match is neither recorded nor missing.
func TestCreateIgnoreListGrows(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a", "x.tmp": "t", "CACHE/c.bin": "c", "PROXY/p.mov": "p", "sub/PROXY/q.mov": "q"})
	res := create(t, st, CreateOptions{Ignore: []string{"*.tmp"}})
	require.True(t, res.OK())
	require.Equal(t, append(append([]string(nil), DefaultIgnore...), "*.tmp"), latest(t, st).Ignore)
	res = create(t, st, CreateOptions{Ignore: []string{"CACHE/", "/PROXY"}})
	require.True(t, res.OK(), "%v", res.Findings)
	m := latest(t, st)
	require.Equal(t, append(append([]string(nil), DefaultIgnore...), "*.tmp", "CACHE/", "/PROXY"), m.Ignore)
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, f.Path)
	}
	require.Equal(t, []string{"a.mov", "sub/PROXY/q.mov"}, paths)
	// Recorded in generation 2, ignored since: not missing.
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "CACHE")))
	res = create(t, st, CreateOptions{})
	require.True(t, res.OK(), "%v", res.Findings)
	require.True(t, verifyAll(t, st).OK())
}

// Folders listed without hashes, an empty root hash element (schema-valid,
// and what the reference tool's verify -dh needs).
func TestCreateNoDirectoryHashes(t *testing.T) {
	_, st := scopeWith(t, map[string]string{"Clips/a.mov": "a"})
	res := create(t, st, CreateOptions{NoDirectoryHashes: true})
	data, err := st.ReadFile(res.Manifests[0])
	require.NoError(t, err)
	require.Contains(t, string(data), "<roothash>\n      <content/>\n      <structure/>\n    </roothash>")
	m := latest(t, st)
	require.Empty(t, m.Root)
	require.Len(t, m.Dirs, 1)
	require.Empty(t, m.Dirs[0].Hashes)
	v, err := Verify(context.Background(), st, VerifyOptions{DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
	require.Contains(t, v.Warnings, "no generation has directory hashes: only files were checked")
}

// A nested history (a card's, in a day's folder) gets a generation of its
// own, referenced with its c4 by the folder's; its files are not recorded
// in the folder's history; a rename inside it is recorded there.
func TestCreateNestedHistory(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"A001/C/x.mov": "x", "A001/y.mov": "y", "top.txt": "top"})
	sub, err := OpenOSStore(filepath.Join(dir, "A001"))
	require.NoError(t, err)
	defer sub.Close()
	create(t, sub, CreateOptions{Folder: "A001"})

	res := create(t, st, CreateOptions{Folder: "Day"})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Len(t, res.Manifests, 2)
	require.True(t, strings.HasPrefix(res.Manifests[0], "A001/ascmhl/0002_A001_"), res.Manifests[0])
	require.Equal(t, 2, res.Verified)
	require.Equal(t, 1, res.Original)
	m := latest(t, st)
	require.Len(t, m.Files, 1)
	require.Equal(t, "top.txt", m.Files[0].Path)
	require.Len(t, m.References, 1)
	require.Equal(t, res.Manifests[0], m.References[0].Path)
	nested, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(res.Manifests[0])))
	require.NoError(t, err)
	require.Equal(t, C4(nested), m.References[0].C4)
	require.Len(t, m.Dirs, 1) // A001, hashed as the nested root
	require.Equal(t, "A001", m.Dirs[0].Path)
	require.Equal(t, latest(t, sub).Root, m.Dirs[0].Hashes)
	v, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true, DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)

	require.NoError(t, os.Rename(filepath.Join(dir, "A001/C/x.mov"), filepath.Join(dir, "A001/C/z.mov")))
	res = create(t, st, CreateOptions{Folder: "Day"})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, []Renamed{{From: "A001/C/x.mov", To: "A001/C/z.mov"}}, res.Renamed)
	require.Equal(t, "C/x.mov", fileOf(latest(t, sub), "C/z.mov").PreviousPath)
	require.True(t, verifyAll(t, st).OK())
	require.True(t, verifyAll(t, sub).OK())
}

// A damaged history is never extended; a crash's leftovers are recovered
// first.
func TestCreateDamagedAndRecovered(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a"})
	res := create(t, st, CreateOptions{})
	p := filepath.Join(dir, filepath.FromSlash(res.Manifests[0]))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `action="original"`, `action="verified"`, 1)
	require.NoError(t, os.WriteFile(p, []byte(edited), 0o644))
	_, err = Create(context.Background(), st, CreateOptions{Folder: "X", Now: func() time.Time { return t0.Add(time.Hour) }})
	require.ErrorIs(t, err, ErrDamaged)
	ents, _ := os.ReadDir(filepath.Join(dir, HistoryDir))
	require.Len(t, ents, 2) // the manifest and the chain: nothing added
	require.NoError(t, os.WriteFile(p, data, 0o644))

	// A generation dit wrote whose chain a crash never wrote.
	m := latest(t, st)
	m.Created = t0.Add(time.Minute)
	orphan, err := m.Marshal()
	require.NoError(t, err)
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+ManifestName(2, "X", t0.Add(time.Minute)), orphan, false))
	res = create(t, st, CreateOptions{Now: func() time.Time { return t0.Add(2 * time.Minute) }})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Len(t, res.Recovered, 1)
	require.Equal(t, 2, res.Generation)
	historyOK(t, st, 2)
}

// A format ASC MHL does not define is refused before anything is written.
func TestCreateRefusesNonASCFormats(t *testing.T) {
	_, st := scopeWith(t, map[string]string{"a.mov": "a"})
	_, err := Create(context.Background(), st, CreateOptions{Algos: []hashing.Algo{hashing.BLAKE3}})
	require.Error(t, err)
	_, err = LoadHistory(st)
	require.ErrorIs(t, err, ErrNoHistory)
}

// openCounter counts the files of the scope opened (history files aside).
type openCounter struct {
	Store
	opened []string
}

func (o *openCounter) Open(name string) (io.ReadCloser, error) {
	if !strings.HasPrefix(name, HistoryDir+"/") {
		o.opened = append(o.opened, name)
	}
	return o.Store.Open(name)
}

// Diff (Verify with SizesOnly) reads no file: new, missing and resized
// files are named, a same-size change is not; with hashing it is.
func TestDiffSizesOnly(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "aaaa", "b.mov": "bbbb", "c.mov": "cccc", "d.mov": "dddd"})
	create(t, st, CreateOptions{})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("aaaaa"), 0o644)) // resized
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.mov"), []byte("BBBB"), 0o644))  // same size
	require.NoError(t, os.Remove(filepath.Join(dir, "c.mov")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e.mov"), []byte("new"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.tmp"), []byte("ignored"), 0o644))
	oc := &openCounter{Store: st}
	res, err := Verify(context.Background(), oc, VerifyOptions{SizesOnly: true, Ignore: []string{"*.tmp"}})
	require.NoError(t, err)
	require.Empty(t, oc.opened)
	kinds := map[string]string{}
	for _, f := range res.Findings {
		kinds[f.Path] = f.Kind
	}
	require.Equal(t, map[string]string{"a.mov": FindChanged, "c.mov": FindMissing, "e.mov": FindNew}, kinds)
	require.Equal(t, 2, res.Files)

	res, err = Verify(context.Background(), st, VerifyOptions{Ignore: []string{"*.tmp"}})
	require.NoError(t, err)
	require.Len(t, res.Findings, 4)
	require.Contains(t, res.Findings[1].String(), "changed b.mov")
}

// Flatten: each file under its current path with the earliest non-failed
// value per format (action and date as recorded), the latest size,
// previousPath kept; ignored files and files recorded only as failed left
// out; nested histories prefixed.
func TestFlatten(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"a.mov": "a", "b.mov": "b", "bad.mov": "bad", "x.tmp": "t", "A001/c.mov": "c"})
	sub, err := OpenOSStore(filepath.Join(dir, "A001"))
	require.NoError(t, err)
	defer sub.Close()
	d1, d2 := t0, t0.Add(time.Hour)
	appendGen(t, st, &Manifest{Files: []File{
		{Path: "a.mov", Size: 1, Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh("a"), Action: Original, Date: d1}}},
		{Path: "old.mov", Size: 1, Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh("b"), Action: Original, Date: d1}}},
		{Path: "bad.mov", Size: 3, Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh("bad"), Action: Failed, Date: d1}}},
		{Path: "x.tmp", Size: 1, Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh("t"), Action: Original, Date: d1}}},
	}})
	md5a := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("a")).Get(hashing.MD5)
	appendGen(t, st, &Manifest{Ignore: append(append([]string(nil), DefaultIgnore...), "*.tmp"), Files: []File{
		{Path: "a.mov", Size: 1, Mtime: d2, Hashes: []Hash{{Algo: hashing.MD5, Value: md5a, Action: Original, Date: d2}, {Algo: hashing.XXH64, Value: xxh("a"), Action: Verified, Date: d2}}},
		{Path: "b.mov", Size: 1, PreviousPath: "old.mov", Hashes: []Hash{{Algo: hashing.XXH64, Value: xxh("b"), Action: Verified, Date: d2}}},
	}})
	appendGen(t, sub, &Manifest{Files: []File{fileRec("c.mov", "c", Original)}})

	res, err := Flatten(context.Background(), st, FlattenOptions{Tool: "dit", Host: "h", Now: func() time.Time { return d2 },
		Authors: []Author{{Name: "Jane"}}, Location: "Stage 5"})
	require.NoError(t, err)
	require.Equal(t, []string{"", "A001/"}, res.Histories)
	require.Equal(t, 3, res.Generations)
	require.Equal(t, []string{"bad.mov"}, res.LeftOut)
	m := res.Manifest
	require.Equal(t, ProcessFlatten, m.Process)
	require.Equal(t, "Stage 5", m.Location)
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, f.Path)
	}
	require.Equal(t, []string{"A001/c.mov", "a.mov", "b.mov"}, paths)
	a := fileOf(m, "a.mov")
	require.Equal(t, []Hash{{Algo: hashing.MD5, Value: md5a, Action: Original, Date: d2}, {Algo: hashing.XXH64, Value: xxh("a"), Action: Original, Date: d1}}, a.Hashes)
	require.Equal(t, d2, a.Mtime)
	b := fileOf(m, "b.mov")
	require.Equal(t, "old.mov", b.PreviousPath)
	require.Equal(t, Original, b.Hashes[0].Action)
	require.Empty(t, m.Root)
	require.Empty(t, m.Dirs)
	_, err = m.Marshal()
	require.NoError(t, err)

	_, err = Flatten(context.Background(), &subStore{Store: st, prefix: "A001/x/"}, FlattenOptions{})
	require.Error(t, err)
}

func TestAuthorCheck(t *testing.T) {
	require.NoError(t, Author{Name: "Jane", Email: "jane@example.org"}.Check())
	for _, bad := range []string{"jane", "jane@example", "@example.org", "jane@.org"} {
		require.Error(t, Author{Email: bad}.Check(), bad)
	}
	m := &Manifest{Created: t0, Host: "h", Tool: "dit", Process: ProcessInPlace, Authors: []Author{{Email: "nope"}}}
	_, err := m.Marshal()
	require.Error(t, err)
}

// What Create and Flatten write is valid against the ASC MHL schema
// (xmllint), the chain against the chain schema.
func TestCreateAndFlattenValidateAgainstSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian: apt-get install libxml2-utils): the schema check is skipped")
	}
	schemas, err := filepath.Abs("../../../testdata/mhl")
	require.NoError(t, err)
	dir, st := scopeWith(t, map[string]string{"Clips/a.mov": "clip a", "b & <c>.txt": "bee", "A001/x.mov": "x"}, "Empty")
	sub, err := OpenOSStore(filepath.Join(dir, "A001"))
	require.NoError(t, err)
	defer sub.Close()
	create(t, sub, CreateOptions{Folder: "A001"})
	res := create(t, st, CreateOptions{Algos: []hashing.Algo{hashing.C4, hashing.MD5, hashing.SHA1, hashing.XXH128, hashing.XXH3, hashing.XXH64},
		Authors: []Author{{Name: "Jane \"JD\" Doe", Email: "jane@example.org", Phone: "+49", Role: "DIT"}}, Location: "Stage 5 & 6", Comment: "<checked>"})
	require.NoError(t, os.Rename(filepath.Join(dir, "b & <c>.txt"), filepath.Join(dir, "renamed.txt")))
	res2 := create(t, st, CreateOptions{NoDirectoryHashes: true})
	require.Len(t, res2.Renamed, 1)
	fl, err := Flatten(context.Background(), st, FlattenOptions{Tool: "dit"})
	require.NoError(t, err)
	data, err := fl.Manifest.Marshal()
	require.NoError(t, err)
	flat := filepath.Join(t.TempDir(), PackingListName("X", t0))
	require.NoError(t, os.WriteFile(flat, data, 0o644))

	check := func(xsd string, files ...string) {
		t.Helper()
		out, err := exec.Command(xmllint, append([]string{"--noout", "--schema", filepath.Join(schemas, xsd)}, files...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	var manifests []string
	for _, m := range append(res.Manifests, res2.Manifests...) {
		manifests = append(manifests, filepath.Join(dir, filepath.FromSlash(m)))
	}
	check("ASCMHL.xsd", append(manifests, flat)...)
	check("ASCMHLDirectory_local.xsd", filepath.Join(dir, HistoryDir, ChainFile), filepath.Join(dir, "A001", HistoryDir, ChainFile))
}
