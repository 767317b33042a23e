package ascmhl

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

var t0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

func TestNames(t *testing.T) {
	for _, s := range []string{"a.mov", "caf\u00e9", "cafe\u0301", "a&b<c>\"'", "tab\there", "line\nbreak", "cr\rx", "\U0001F3AC"} {
		require.True(t, XMLSafe(s), "%q", s)
		require.Equal(t, s, DisplayName(s))
	}
	for in, want := range map[string]string{
		"bad\xffbyte":   "bad%FFbyte",
		"bell\x07":      "bell%07",
		"100%\x01":      "100%25%01",
		"\xc3\x28":      "%C3(",
		"esc\x1b[31m":   "esc%1B[31m",
		"nul-ish\x7f":   "nul-ish\x7f", // DEL is an XML character
		"bom\ufffe-ok?": "bom%EF%BF%BE-ok?",
	} {
		require.Equal(t, want, DisplayName(in), "%q", in)
	}
}

func TestValidName(t *testing.T) {
	for _, s := range []string{"a", "a/b", "a b/c&d", ".", "..a", "a..", ".hidden"} {
		require.True(t, ValidName(s), s)
	}
	for _, s := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/", "..", "a\x00b"} {
		require.False(t, ValidName(s), s)
	}
	// A backslash is a character of a name, except where it separates.
	for _, s := range []string{"a\\b", "CLIPS/a\\b.mov", "..\\..\\x", "\\"} {
		require.Equal(t, os.PathSeparator != '\\', ValidName(s), s)
	}
}

func TestManifestRoundTripOddNames(t *testing.T) {
	algos := []hashing.Algo{hashing.C4, hashing.MD5, hashing.SHA1, hashing.XXH128, hashing.XXH3, hashing.XXH64}
	names := []string{"caf\u00e9 & <\"x\">.mov", "cafe\u0301.mov", "bad\xffname.mov", "ctl\x01\x1f.mov", "tab\tnl\ncr\r.mov", "100%.mov"}
	m := &Manifest{Created: t0, Host: "h<&>", Tool: "dit", ToolVersion: "1", Process: ProcessTransfer, Ignore: DefaultIgnore,
		Comment: "a \"quoted\" & <tagged> comment"}
	for i, n := range names {
		s := hashing.Bytes(algos, []byte(n))
		f := File{Path: "dir\xfe/" + n, Size: int64(i), Mtime: t0}
		for _, a := range algos {
			f.Hashes = append(f.Hashes, Hash{Algo: a, Value: s.Get(a), Action: Original})
		}
		m.Files = append(m.Files, f)
	}
	m.Dirs = []Dir{{Path: "dir\xfe", Hashes: []DirHash{{hashing.MD5, strings.Repeat("a", 32), strings.Repeat("b", 32)}}}}
	data, err := m.Marshal()
	require.NoError(t, err)
	// Well-formed XML, whatever the names.
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "not well-formed")
	}
	got, warns, err := ParseManifest(data)
	require.NoError(t, err)
	require.Empty(t, warns)
	require.Len(t, got.Files, len(names))
	byPath := map[string]File{}
	for _, f := range got.Files {
		byPath[f.Path] = f
	}
	for _, f := range m.Files {
		require.Contains(t, byPath, f.Path, "exact bytes back")
		require.Equal(t, f.Hashes, byPath[f.Path].Hashes)
		require.Equal(t, f.Size, byPath[f.Path].Size)
	}
	require.Equal(t, "dir\xfe", got.Dirs[0].Path)
	require.Equal(t, m.Comment, got.Comment)
	require.Contains(t, string(data), `<dit:pathbytes xmlns:dit="urn:dit-org:dit:mhl:v1" encoding="base64">`)
	require.Contains(t, string(data), "dir%FE/bad%FFname.mov")
	require.Contains(t, string(data), "caf\u00e9 &amp; &lt;&#34;x&#34;&gt;.mov")
	require.Contains(t, string(data), "tab&#x9;nl&#xA;cr&#xD;.mov")
}

func TestParseRefusesBadManifests(t *testing.T) {
	base := func(path string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0"><creatorinfo><creationdate>2026-11-20T09:30:00Z</creationdate>
<hostname>h</hostname><tool>t</tool></creatorinfo><processinfo><process>transfer</process></processinfo>
<hashes><hash><path size="1">` + path + `</path><xxh64 action="original">0123456789abcdef</xxh64><sha256 action="original">ff</sha256></hash></hashes></hashlist>`
	}
	m, warns, err := ParseManifest([]byte(base("ok.mov")))
	require.NoError(t, err)
	require.Len(t, m.Files, 1)
	require.Len(t, warns, 1)
	require.Contains(t, warns[0], "unknown hash format <sha256> skipped")
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "a/../../b", "a//b"} {
		_, _, err := ParseManifest([]byte(base(p)))
		require.ErrorContains(t, err, "leaves the folder", p)
	}
	_, _, err = ParseManifest([]byte(strings.Replace(base("x"), `version="2.0"`, `version="1.1"`, 1)))
	require.ErrorContains(t, err, "version")
	_, _, err = ParseManifest([]byte(strings.Replace(base("x"), `urn:ASC:MHL:v2.0`, `urn:other`, 1)))
	require.ErrorContains(t, err, "not an ASC MHL manifest")
	_, _, err = ParseManifest([]byte(strings.Replace(base("x"), `action="original">0123`, `action="copied">0123`, 1)))
	require.ErrorContains(t, err, "action")
	_, _, err = ParseManifest([]byte(strings.Replace(base("x"), `0123456789abcdef`, `0123`, 1)))
	require.ErrorContains(t, err, "invalid xxh64")
	_, _, err = ParseManifest([]byte("not xml"))
	require.ErrorContains(t, err, "not valid XML")
}

// TestVerifyNeverLeavesTheFolder plants a secret next to the scope and a
// link to it inside, and a manifest that names ../secret: the history is
// refused, and nothing outside the scope is read.
func TestVerifyNeverLeavesTheFolder(t *testing.T) {
	dir := t.TempDir()
	scope := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(scope, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(scope, "a.mov"), []byte("a"), 0o644))
	st, err := OpenOSStore(scope)
	require.NoError(t, err)
	defer st.Close()
	v := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("a")).Get(hashing.XXH64)
	m := &Manifest{Created: t0, Host: "h", Tool: "t", Process: ProcessInPlace,
		Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{{Algo: hashing.XXH64, Value: v, Action: Original}}}}}
	_, err = Append(st, nil, m, "A001")
	require.NoError(t, err)
	res, err := Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	require.True(t, res.OK(), "%v", res.Findings)

	// A second generation naming ../secret (written by hand, as an
	// attacker would): the manifest is refused, the secret never read.
	data, err := os.ReadFile(filepath.Join(scope, "ascmhl", ManifestName(1, "A001", t0)))
	require.NoError(t, err)
	evil := bytes.Replace(data, []byte(">a.mov<"), []byte(">../secret<"), 1)
	name := ManifestName(2, "A001", t0)
	require.NoError(t, os.WriteFile(filepath.Join(scope, "ascmhl", name), evil, 0o644))
	chain := MarshalChain([]ChainEntry{{1, ManifestName(1, "A001", t0), C4(data)}, {2, name, C4(evil)}})
	require.NoError(t, os.WriteFile(filepath.Join(scope, "ascmhl", ChainFile), chain, 0o644))
	res, err = Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	require.False(t, res.OK())
	require.Equal(t, FindHistory, res.Findings[0].Kind)
	require.Contains(t, res.Findings[0].Detail, `"../secret" leaves the folder`)

	// A symlink out of the scope is not followed, and the store refuses
	// names that leave it.
	require.NoError(t, os.Symlink(filepath.Join(dir, "secret"), filepath.Join(scope, "link")))
	_, err = st.Open("link")
	require.Error(t, err)
	_, err = st.ReadFile("../secret")
	require.Error(t, err)
	_, err = st.ReadFile("/etc/passwd")
	require.Error(t, err)

	// A chain entry naming a path outside ascmhl/ is refused too: the
	// history is damaged (a finding), the path never read.
	bad := MarshalChain([]ChainEntry{{1, "../../secret", C4(data)}})
	require.NoError(t, os.WriteFile(filepath.Join(scope, "ascmhl", ChainFile), bad, 0o644))
	res, err = Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	require.False(t, res.OK())
	require.Equal(t, FindHistory, res.Findings[0].Kind)
	require.Contains(t, res.Findings[0].Detail, "not a file name in the ascmhl folder")
	_, err = ParseChain(bad)
	require.ErrorContains(t, err, "not a file name in the ascmhl folder")
}

func TestNoHistory(t *testing.T) {
	st, err := OpenOSStore(t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	_, err = Verify(context.Background(), st, VerifyOptions{})
	require.ErrorIs(t, err, ErrNoHistory)
}

// TestFSStoreWritesAHistory runs the writer and the verifier through the
// engine's filesystem interface, as an array destination would.
func TestFSStoreWritesAHistory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("a"), 0o644))
	st := FSStore{FS: fsys.OS{}, Dir: dir}
	v := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("a")).Get(hashing.MD5)
	m := &Manifest{Created: t0, Host: "h", Tool: "t", Process: ProcessTransfer,
		Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{{Algo: hashing.MD5, Value: v, Action: Original}}}}}
	name, err := Append(st, nil, m, "X")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, filepath.FromSlash(name)))
	h, err := LoadHistory(st)
	require.NoError(t, err)
	_, err = Append(st, h, m, "X")
	require.NoError(t, err)
	res, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true})
	require.NoError(t, err)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Len(t, res.History.Generations, 2)
	require.ErrorIs(t, st.WriteFileAtomic(name, []byte("x"), false), fs.ErrExist)
	_, err = st.ReadFile("../x")
	require.Error(t, err)
}

// TestAppendNamesGenerationWithItsOwnTime: each generation's file name
// carries its own creationdate (issue 24 item 9: a second generation was
// named with the first one's time).
func TestAppendNamesGenerationWithItsOwnTime(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("a"), 0o644))
	st := FSStore{FS: fsys.OS{}, Dir: dir}
	v := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("a")).Get(hashing.MD5)
	gen := func(created time.Time) *Manifest {
		return &Manifest{Created: created, Host: "h", Tool: "t", Process: ProcessTransfer,
			Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{{Algo: hashing.MD5, Value: v, Action: Original}}}}}
	}
	t1 := time.Date(2026, 11, 27, 5, 37, 59, 0, time.UTC)
	t2 := t1.Add(21 * time.Second)
	name, err := Append(st, nil, gen(t1), "A001")
	require.NoError(t, err)
	require.Equal(t, "ascmhl/0001_A001_2026-11-27_053759Z.mhl", name)
	h, err := LoadHistory(st)
	require.NoError(t, err)
	name, err = Append(st, h, gen(t2), "A001")
	require.NoError(t, err)
	require.Equal(t, "ascmhl/0002_A001_2026-11-27_053820Z.mhl", name)
	h, err = LoadHistory(st)
	require.NoError(t, err)
	require.Empty(t, h.Problems)
	for _, g := range h.Generations {
		require.Equal(t, ManifestName(g.Seq, "A001", g.Manifest.Created), g.File)
	}
	_, err = Append(st, h, gen(time.Time{}), "A001")
	require.Error(t, err, "a generation without a creation time has no name")
}
