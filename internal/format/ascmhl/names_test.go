package ascmhl

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestCanCarry(t *testing.T) {
	for _, s := range []string{"a.mov", "CLIPS/caf\u00e9.mov", "CLIPS/cafe\u0301.mov", "🎬/東京.mov", " a /b ", "-rf", "--help/x",
		"new\nline", "cr\rtab\t", "a:b*c?d<e>f|g\"h'", "bad\xffbyte", "ctl\x01", strings.Repeat("n", 255)} {
		require.NoError(t, CanCarry(s), "%q", s)
	}
	for _, s := range []string{"CLIPS/a\\b.mov", "..\\..\\x"} {
		if os.PathSeparator == '\\' {
			require.Error(t, CanCarry(s), "%q", s)
		} else {
			require.NoError(t, CanCarry(s), "%q", s)
		}
	}
	for _, s := range []string{"", ".", "/abs", "../x", "a//b", "a\x00b"} {
		err := CanCarry(s)
		require.Error(t, err, "%q", s)
		require.Contains(t, err.Error(), fmt.Sprintf("%q", s), "the message names the path")
	}
	deep := strings.Repeat(strings.Repeat("d", 250)+"/", 270) + "f.mov" // 67 775 bytes
	err := CanCarry(deep)
	require.ErrorContains(t, err, "67775 bytes")
	require.NoError(t, CanCarry(deep[len(deep)-MaxPathBytes:]))
}

func TestCutName(t *testing.T) {
	require.Equal(t, "abc", CutName("abc", 3))
	require.Equal(t, "ab", CutName("abc", 2))
	require.Equal(t, "東", CutName("東京", 5), "never half a character")
	require.Equal(t, "", CutName("東京", 2))
	require.Equal(t, "a\xff", CutName("a\xff東", 4), "a byte that is not UTF-8 is one character")
}

// A folder name of 255 bytes (ASCII, or 3-byte characters) still gives a
// manifest name a file system takes, with room for its temporary name,
// cut at a character boundary; the history it writes verifies.
func TestManifestNameOfALongFolder(t *testing.T) {
	for _, folder := range []string{strings.Repeat("A", 255), strings.Repeat("東", 85), strings.Repeat("x", 254) + "\xff"} {
		for _, name := range []string{ManifestName(12345, folder, t0), PackingListName(folder, t0)} {
			require.LessOrEqual(t, len(name), 200, name)
			require.True(t, utf8.ValidString(name), name)
			require.True(t, strings.HasSuffix(name, "_2026-11-20_093000Z.mhl"), name)
		}
		_, st := scopeWith(t, map[string]string{"a.mov": "clip"})
		res := create(t, st, CreateOptions{Algos: md5x, Folder: folder})
		require.True(t, res.OK(), "%v", res.Findings)
		v, err := Verify(context.Background(), st, VerifyOptions{DirectoryHashes: true})
		require.NoError(t, err)
		require.True(t, v.OK(), "%v", v.Findings)
	}
}

// A "\" is a character of a name: recorded as it is (the reference tool
// does the same), read back as that file, never as a folder; folder hashes
// verify. Names that look like a way out stay inside.
func TestBackslashNamesAreRecordedAsTheyAre(t *testing.T) {
	if os.PathSeparator == '\\' {
		t.Skip("no name holds a backslash where it separates folders")
	}
	files := map[string]string{"CLIPS/a\\b.mov": "a-b", "CLIPS/a/b.mov": "a/b", "..\\..\\x.mov": "x", "D\\IR/c.mov": "c"}
	_, st := scopeWith(t, files)
	res := create(t, st, CreateOptions{Algos: md5x})
	require.True(t, res.OK(), "%v", res.Findings)
	m := latest(t, st)
	for p := range files {
		require.NotNil(t, fileOf(m, p), "%q recorded as it is", p)
	}
	require.Len(t, m.Files, len(files))
	v, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true, DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
	require.Equal(t, len(files), v.Files)

	// The file named with a backslash changes: that one is named.
	dir := st.root.Name()
	require.NoError(t, os.WriteFile(dir+"/CLIPS/a\\b.mov", []byte("A-B"), 0o644))
	v, err = Verify(context.Background(), st, VerifyOptions{AllHashes: true})
	require.NoError(t, err)
	require.Len(t, v.Findings, 1, "%v", v.Findings)
	require.Equal(t, "CLIPS/a\\b.mov", v.Findings[0].Path)
	require.Equal(t, FindChanged, v.Findings[0].Kind)
}

func TestParseDisplayName(t *testing.T) {
	for _, s := range []string{"a.mov", "bad\xffbyte", "bell\x07", "100%\x01", "100%", "\xc3\x28", "p%25%01\x02"} {
		if XMLSafe(s) {
			require.Equal(t, s, DisplayName(s))
			continue
		}
		got, ok := ParseDisplayName(DisplayName(s))
		require.True(t, ok, "%q", s)
		require.Equal(t, s, got, "%q", s)
	}
	for _, s := range []string{"100%", "a%zz", "a%4"} {
		_, ok := ParseDisplayName(s)
		require.False(t, ok, "%q", s)
	}
	got, ok := ParseDisplayName("a%2fb%41")
	require.True(t, ok)
	require.Equal(t, "a/bA", got)
}
