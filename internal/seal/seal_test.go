package seal

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

var mtime = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// folderTime is set on the card's folder on each destination just before
// it is sealed (offloadWith), so that "sealing leaves the folder's time
// alone" is checked exactly. Without it the folder's time is that of the
// copy's last write into it: the engine sets the times of a card's
// subfolders, not of the card's folder itself. That is "now", like the time
// of sealing, and like the source card folder's time (written by the test a
// few milliseconds earlier): comparing those at one-second resolution passed
// only while the test did not cross a second boundary (a flake, 1-5 % of
// runs, more under load).
var folderTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

func writeCard(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if content == "<dir>" {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
	}
}

type run struct {
	mu       sync.Mutex
	warnings []string
	summary  *offload.Summary
}

func offloadWith(t *testing.T, dir string, f Format, cards, dests []string, hashes []hashing.Algo, verifyAll bool) *run {
	t.Helper()
	return offloadEdit(t, dir, f, cards, dests, hashes, func(o *offload.Options) { o.VerifyAll = verifyAll })
}

// offloadEdit is offloadWith with the options edited by edit.
func offloadEdit(t *testing.T, dir string, f Format, cards, dests []string, hashes []hashing.Algo, edit func(*offload.Options)) *run {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	r := &run{}
	s := &Sealer{Format: f, Username: "tester"}
	seal := func(ctx context.Context, info offload.SealInfo) error {
		// See folderTime: the card folder gets a time no clock gives now.
		if err := os.Chtimes(info.CardDir, folderTime, folderTime); err != nil {
			return err
		}
		return s.Seal(ctx, info)
	}
	opts := offload.Options{
		JobSpec: offload.JobSpec{Name: "day01", Cards: cards, Dests: dests, Hashes: hashes},
		Env:     offload.Env{Catalog: cat, BlockSize: 64 << 10, Buffers: 4, ToolVersion: "1.2.3-test"},
		Hooks: offload.Hooks{Seal: seal, OnEvent: func(e offload.Event) {
			if e.Type == offload.EvWarning {
				r.mu.Lock()
				r.warnings = append(r.warnings, e.Message)
				r.mu.Unlock()
			}
		}}}
	edit(&opts)
	j, err := offload.New(context.Background(), opts)
	require.NoError(t, err)
	r.summary, err = j.Run(context.Background())
	require.NoError(t, err)
	return r
}

func verify(t *testing.T, dir string, dh bool) *ascmhl.VerifyResult {
	t.Helper()
	st, err := ascmhl.OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()
	res, err := ascmhl.Verify(context.Background(), st, ascmhl.VerifyOptions{AllHashes: true, DirectoryHashes: dh})
	require.NoError(t, err)
	return res
}

func TestSealOddNamesVerifyAndTamper(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "cards", "A001")
	writeCard(t, card, map[string]string{
		"Clips/A001C001.mov":             strings.Repeat("frame", 30000),
		"Clips/nested/deeper/x.xml":      "<xml/>",
		"caf\u00e9 & \"odd\" <name>.txt": "nfc",
		"cafe\u0301 & 'odd' name.txt":    "nfd",
		"with space .txt":                "sp",
		"zero.bin":                       "",
		"EMPTY":                          "<dir>",
		".DS_Store":                      "junk",
	})
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	r := offloadWith(t, dir, Format{ASC: true, V1: true}, []string{card}, []string{d1, d2},
		[]hashing.Algo{hashing.MD5, hashing.XXH64}, false)
	require.Empty(t, r.warnings)
	require.Equal(t, offload.ExitOK, r.summary.ExitCode)

	for _, d := range []string{d1, d2} {
		cd := filepath.Join(d, "day01", "A001")
		res := verify(t, cd, true)
		require.True(t, res.OK(), "%v", res.Findings)
		require.Equal(t, 6, res.Files)
		require.Len(t, res.History.Generations, 1)
		m := res.History.Generations[0].Manifest
		require.Equal(t, "dit", m.Tool)
		require.Equal(t, "1.2.3-test", m.ToolVersion)
		require.Equal(t, ascmhl.ProcessTransfer, m.Process)
		require.NotEmpty(t, m.Root)
		require.Contains(t, m.Comment, "dit job")
		for _, f := range m.Files {
			md5, ok := f.Hash(hashing.MD5)
			require.True(t, ok)
			require.Equal(t, ascmhl.Original, md5.Action, f.Path)
			xx, ok := f.Hash(hashing.XXH64)
			require.True(t, ok)
			require.Equal(t, ascmhl.Original, xx.Action, "%s: a first generation's hashes are original (no earlier hash to be verified against)", f.Path)
			require.False(t, xx.Date.IsZero(), "the hashdate is when the copy was read back")
		}
		names := map[string]bool{}
		for _, f := range m.Files {
			names[f.Path] = true
		}
		require.True(t, names["caf\u00e9 & \"odd\" <name>.txt"], "NFC name kept byte for byte")
		require.True(t, names["cafe\u0301 & 'odd' name.txt"], "NFD name kept byte for byte")
		require.True(t, names["zero.bin"])
		// The raw XML escapes &, < and quotes.
		raw, err := os.ReadFile(filepath.Join(cd, "ascmhl", res.History.Generations[0].File))
		require.NoError(t, err)
		require.Contains(t, string(raw), "caf\u00e9 &amp; &#34;odd&#34; &lt;name&gt;.txt")
		// The MHL v1.1 file is there, and ignored by the ASC history.
		v1, err := filepath.Glob(filepath.Join(cd, "A001_*.mhl"))
		require.NoError(t, err)
		require.Len(t, v1, 1)
		vb, _ := os.ReadFile(v1[0])
		require.Contains(t, string(vb), "<xxhash64be>")
		require.Contains(t, string(vb), "<username>tester</username>")
		require.NoError(t, xml.Unmarshal(vb, new(struct{})))
		// Sealing leaves the card folder's time as it found it, though it
		// wrote the MHL v1.1 file and the ascmhl folder into it.
		got, err := os.Stat(cd)
		require.NoError(t, err)
		require.True(t, got.ModTime().Equal(folderTime), "card folder time %s, want %s (as before sealing)", got.ModTime(), folderTime)
	}

	// A flipped byte: named as changed; the directory hashes differ too.
	cd := filepath.Join(d1, "day01", "A001")
	p := filepath.Join(cd, "Clips", "nested", "deeper", "x.xml")
	require.NoError(t, os.WriteFile(p, []byte("<xmM/>"), 0o644))
	res := verify(t, cd, true)
	require.False(t, res.OK())
	kinds := map[string]bool{}
	for _, f := range res.Findings {
		kinds[f.Kind+" "+f.Path] = true
	}
	require.True(t, kinds["changed Clips/nested/deeper/x.xml"], "%v", res.Findings)
	require.True(t, kinds["directory Clips/nested/deeper"], "%v", res.Findings)
	require.True(t, kinds["directory ."], "%v", res.Findings)
	// New and missing files are named.
	require.NoError(t, os.WriteFile(filepath.Join(cd, "extra.txt"), []byte("x"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(cd, "with space .txt")))
	res = verify(t, cd, false)
	kinds = map[string]bool{}
	for _, f := range res.Findings {
		kinds[f.Kind+" "+f.Path] = true
	}
	require.True(t, kinds["new extra.txt"], "%v", res.Findings)
	require.True(t, kinds["missing with space .txt"], "%v", res.Findings)

	// An edited manifest breaks the chain.
	cd2 := filepath.Join(d2, "day01", "A001")
	mf, _ := filepath.Glob(filepath.Join(cd2, "ascmhl", "0001_*.mhl"))
	require.Len(t, mf, 1)
	b, _ := os.ReadFile(mf[0])
	require.NoError(t, os.WriteFile(mf[0], bytes.Replace(b, []byte("<hostname>"), []byte("<hostname>x"), 1), 0o644))
	res = verify(t, cd2, false)
	require.False(t, res.OK())
	require.Equal(t, ascmhl.FindHistory, res.Findings[0].Kind)
	require.Contains(t, res.Findings[0].Detail, "changed after it was written")
}

func TestSealAppendsToTheCardsHistory(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A002")
	writeCard(t, card, map[string]string{"a.mov": "aaaa", "sub/b.mov": "bbbbbb", "new.txt": "added after the first hop"})
	// An earlier hop recorded a.mov and sub/b.mov (xxh64 and c4, say).
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	sums := func(s string) []ascmhl.Hash {
		b := hashing.Bytes([]hashing.Algo{hashing.C4, hashing.XXH64}, []byte(s))
		return []ascmhl.Hash{{Algo: hashing.C4, Value: b.Get(hashing.C4), Action: ascmhl.Original},
			{Algo: hashing.XXH64, Value: b.Get(hashing.XXH64), Action: ascmhl.Original}}
	}
	m := &ascmhl.Manifest{Created: mtime, Host: "cart", Tool: "othertool", Process: ascmhl.ProcessTransfer,
		Ignore: append(append([]string(nil), ascmhl.DefaultIgnore...), "*.RMD"),
		Files:  []ascmhl.File{{Path: "a.mov", Size: 4, Hashes: sums("aaaa")}, {Path: "sub/b.mov", Size: 6, Hashes: sums("bbbbbb")}}}
	_, err = ascmhl.Append(st, nil, m, "A002")
	require.NoError(t, err)
	st.Close()
	writeCard(t, card, map[string]string{"clip.RMD": "ignored sidecar"})
	before := tree(t, card)

	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64, hashing.MD5}, false)
	require.Empty(t, r.warnings)
	require.Equal(t, before, tree(t, card), "nothing is ever written to the card")

	cd := filepath.Join(d, "day01", "A002")
	res := verify(t, cd, true)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Len(t, res.History.Generations, 2)
	g2 := res.History.Generations[1].Manifest
	require.Contains(t, g2.Ignore, "*.RMD", "the ignore list only grows")
	byPath := map[string]ascmhl.File{}
	for _, f := range g2.Files {
		byPath[f.Path] = f
	}
	require.NotContains(t, byPath, "clip.RMD")
	for _, p := range []string{"a.mov", "sub/b.mov"} {
		for _, h := range byPath[p].Hashes {
			require.Equal(t, ascmhl.Verified, h.Action, "%s %s: verified against the earlier hop", p, h.Algo)
		}
	}
	xx, _ := byPath["new.txt"].Hash(hashing.XXH64)
	md5, _ := byPath["new.txt"].Hash(hashing.MD5)
	require.Equal(t, ascmhl.Original, xx.Action, "a file new since the earlier hop has original hashes only")
	require.Equal(t, ascmhl.Original, md5.Action)

	// The card changed since the earlier hop: failed, and said so.
	dir2 := t.TempDir()
	card2 := filepath.Join(dir2, "A002")
	require.NoError(t, os.CopyFS(card2, os.DirFS(card)))
	require.NoError(t, os.WriteFile(filepath.Join(card2, "a.mov"), []byte("AAAA"), 0o644))
	d2 := filepath.Join(dir2, "raid")
	require.NoError(t, os.Mkdir(d2, 0o755))
	r = offloadWith(t, dir2, Format{ASC: true}, []string{card2}, []string{d2}, []hashing.Algo{hashing.XXH64}, false)
	// A finding about the card: the file fails, naming both hashes, and
	// the card is not safe to format (exit 3).
	cs := r.summary.Cards[0]
	require.False(t, cs.SafeToFormat)
	require.Equal(t, offload.ExitSomeFailed, r.summary.ExitCode)
	require.Len(t, cs.Failures, 1)
	require.Equal(t, "a.mov", cs.Failures[0].Path)
	want := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("AAAA")).Get(hashing.XXH64)
	require.Contains(t, cs.Failures[0].Error, "differs from the card's own ASC MHL history")
	require.Contains(t, cs.Failures[0].Error, "read now "+want)
	res = verify(t, filepath.Join(d2, "day01", "A002"), false)
	require.False(t, res.OK())
	require.Equal(t, ascmhl.FindChanged, res.Findings[0].Kind)
	require.Equal(t, "a.mov", res.Findings[0].Path)
}

func TestSingleHashStaysOriginal(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "B001")
	writeCard(t, card, map[string]string{"a.mov": "aaaa", "b.mov": "b"})
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH128}, false)
	res := verify(t, filepath.Join(d, "day01", "B001"), true)
	require.True(t, res.OK(), "%v", res.Findings)
	for _, f := range res.History.Generations[0].Manifest.Files {
		require.Len(t, f.Hashes, 1)
		require.Equal(t, ascmhl.Original, f.Hashes[0].Action)
	}
	// --verify-hashes all: still original, all of them (nothing earlier).
	dir2 := t.TempDir()
	d2 := filepath.Join(dir2, "raid")
	require.NoError(t, os.Mkdir(d2, 0o755))
	offloadWith(t, dir2, Format{ASC: true}, []string{card}, []string{d2}, []hashing.Algo{hashing.MD5, hashing.XXH3}, true)
	res = verify(t, filepath.Join(d2, "day01", "B001"), true)
	require.True(t, res.OK(), "%v", res.Findings)
	for _, f := range res.History.Generations[0].Manifest.Files {
		x, _ := f.Hash(hashing.XXH3)
		m, _ := f.Hash(hashing.MD5)
		require.Equal(t, ascmhl.Original, x.Action)
		require.Equal(t, ascmhl.Original, m.Action)
	}
}

func tree(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		if fi.Mode().IsRegular() {
			f, _ := os.Open(p)
			b, _ := io.ReadAll(f)
			f.Close()
			out[rel] = string(b) + "@" + fi.ModTime().String()
		} else {
			out[rel] = fi.Mode().String() + "@" + fi.ModTime().String()
		}
		return nil
	}))
	return out
}

// TestFailedCopyIsRecordedAsFailed corrupts one copy while it is read back:
// the copy is moved aside (bad.mov.dit-failed), and on that destination
// the file is recorded with the copy's actual hashes, action failed, and
// verification names it (bad.mov not there, the aside not recorded); the
// other destination is clean.
func TestFailedCopyIsRecordedAsFailed(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "C001")
	content := strings.Repeat("0123456789abcdef", 20000) // 320 kB: several read blocks
	writeCard(t, card, map[string]string{"bad.mov": content, "good.mov": "good"})
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	copyPath := filepath.Join(d2, "day01", "C001", "bad.mov")
	f := fsys.NewFaulty(fsys.OS{})
	var once sync.Once
	f.Add(fsys.Fault{Match: "shuttle/day01/C001/bad.mov", OnRead: func(int64) {
		once.Do(func() {
			fh, err := os.OpenFile(copyPath, os.O_WRONLY, 0)
			if err == nil {
				fh.WriteAt([]byte("X"), 300000)
				fh.Close()
			}
		})
	}})
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	s := &Sealer{Format: Format{ASC: true, V1: true}}
	j, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "day01", Cards: []string{card}, Dests: []string{d1, d2}},
		Env:     offload.Env{Catalog: cat, FS: f, BlockSize: 64 << 10, Buffers: 4}, Hooks: offload.Hooks{Seal: s.Seal}})
	require.NoError(t, err)
	sum, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, offload.ExitSomeFailed, sum.ExitCode)

	res := verify(t, filepath.Join(d1, "day01", "C001"), true)
	require.True(t, res.OK(), "%v", res.Findings)
	res = verify(t, filepath.Join(d2, "day01", "C001"), false)
	require.False(t, res.OK())
	require.NoFileExists(t, copyPath, "a copy that failed its read-back does not keep the file's name")
	require.FileExists(t, copyPath+offload.FailedSuffix)
	require.ElementsMatch(t, []ascmhl.Finding{
		{Kind: ascmhl.FindNew, Path: "bad.mov" + offload.FailedSuffix, Detail: "not recorded in the history"},
		{Kind: ascmhl.FindMissing, Path: "bad.mov", Detail: "recorded in the history, not in the folder"}}, res.Findings)
	var bad ascmhl.File
	for _, fl := range res.History.Generations[0].Manifest.Files {
		if fl.Path == "bad.mov" {
			bad = fl
		}
	}
	corrupt := []byte(content)
	corrupt[300000] = 'X'
	want := hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, corrupt)
	require.Len(t, bad.Hashes, 2)
	for _, h := range bad.Hashes {
		require.Equal(t, ascmhl.Failed, h.Action)
		require.Equal(t, want.Get(h.Algo), h.Value, "the failed copy's actual hash")
	}
}

func TestNotReadBackIsOriginal(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "D001")
	writeCard(t, card, map[string]string{"a.mov": "aaaa", "b/c.mov": "cc"})
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	s := &Sealer{Format: Format{ASC: true}}
	j, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "day01", Cards: []string{card}, Dests: []string{d}, Verify: offload.VerifyNone},
		Env:     offload.Env{Catalog: cat}, Hooks: offload.Hooks{Seal: s.Seal}})
	require.NoError(t, err)
	_, err = j.Run(context.Background())
	require.NoError(t, err)
	res := verify(t, filepath.Join(d, "day01", "D001"), true)
	require.True(t, res.OK(), "%v", res.Findings)
	m := res.History.Generations[0].Manifest
	require.Contains(t, m.Comment, "2 copied, not read back")
	for _, f := range m.Files {
		for _, h := range f.Hashes {
			require.Equal(t, ascmhl.Original, h.Action, "never verified without a read-back")
		}
	}
}

// The DIT's creator info goes into the manifest (the comment after dit's
// own text, so a redo still finds its seal); --no-directory-hashes lists
// the folders without hashes under an empty root hash; an author the
// schema would refuse is left out with a warning, never costing the seal.
func TestSealCreatorInfoAndNoDirectoryHashes(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "cards", "A001")
	writeCard(t, card, map[string]string{"Clips/a.mov": "clip", "b.txt": "bee"})
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))
	r := offloadEdit(t, dir, Format{ASC: true}, []string{card}, []string{d1}, []hashing.Algo{hashing.XXH64}, func(o *offload.Options) {
		o.Author = offload.Author{Name: "Jane Doe", Email: "jane@example.org", Phone: "+49 30 1", Role: "DIT"}
		o.Location, o.Comment, o.NoDirectoryHashes = "Stage 5", "second unit", true
	})
	require.Empty(t, r.warnings)
	require.Equal(t, offload.ExitOK, r.summary.ExitCode)
	cd := filepath.Join(d1, "day01", "A001")
	st, err := ascmhl.OpenOSStore(cd)
	require.NoError(t, err)
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	require.NoError(t, err)
	m := h.Latest()
	require.Equal(t, []ascmhl.Author{{Name: "Jane Doe", Email: "jane@example.org", Phone: "+49 30 1", Role: "DIT"}}, m.Authors)
	require.Equal(t, "Stage 5", m.Location)
	require.True(t, strings.HasPrefix(m.Comment, "dit job 1 "), m.Comment)
	require.True(t, strings.HasSuffix(m.Comment, "; second unit"), m.Comment)
	require.Empty(t, m.Root)
	require.Len(t, m.Dirs, 1)
	require.Empty(t, m.Dirs[0].Hashes)
	data, err := os.ReadFile(filepath.Join(cd, ascmhl.HistoryDir, h.Generations[0].File))
	require.NoError(t, err)
	require.Contains(t, string(data), "<roothash>\n      <content/>")
	res := verify(t, cd, true)
	require.True(t, res.OK(), "%v", res.Findings)

	dir2 := t.TempDir()
	d2 := filepath.Join(dir2, "raid")
	require.NoError(t, os.Mkdir(d2, 0o755))
	r = offloadEdit(t, dir2, Format{ASC: true}, []string{card}, []string{d2}, []hashing.Algo{hashing.XXH64}, func(o *offload.Options) {
		o.Author = offload.Author{Name: "Jane", Email: "not an address"}
	})
	require.Equal(t, offload.ExitOK, r.summary.ExitCode)
	require.Len(t, r.warnings, 1)
	require.Contains(t, r.warnings[0], "author left out")
	res = verify(t, filepath.Join(d2, "day01", "A001"), true)
	require.True(t, res.OK(), "%v", res.Findings)
}

// TestSealGenerationNamedWithItsOwnTime: the generation a seal writes is
// named with its own creation time (the card's seal time, its
// creationdate), not the job's start (issue 24 item 9: a cascade's second
// generation carried the first one's time in its name).
func TestSealGenerationNamedWithItsOwnTime(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "cards", "A001")
	writeCard(t, card, map[string]string{"Clips/A001C001.mov": strings.Repeat("frame", 1000)})
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	var mu sync.Mutex
	clock := time.Date(2026, 11, 27, 5, 37, 59, 0, time.UTC)
	var started time.Time
	offloadEdit(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64}, func(o *offload.Options) {
		o.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(7 * time.Second) // every reading of the clock a new second
			if started.IsZero() {
				started = clock
			}
			return clock
		}
	})
	st, err := ascmhl.OpenOSStore(filepath.Join(d, "day01", "A001"))
	require.NoError(t, err)
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	require.NoError(t, err)
	require.Len(t, h.Generations, 1)
	g := h.Generations[0]
	require.True(t, g.Manifest.Created.After(started), "sealed at %s, after the job's start %s", g.Manifest.Created, started)
	require.Equal(t, ascmhl.ManifestName(1, "A001", g.Manifest.Created), g.File)
	require.NotContains(t, g.File, started.UTC().Format("150405Z"))
}
