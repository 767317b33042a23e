package mhlv1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

// Every class of name a card can hold goes into a list as it is: the
// list is valid against the schema, and it verifies against the folder,
// each file checked under its own name ("\" a character of the name when
// the folder holds that name; a list written on Windows, whose "\"
// separates, still verifies).
func TestListOfOddNamesVerifies(t *testing.T) {
	files := map[string]string{
		"CLIPS/caf\u00e9.mov": "nfc", "CLIPS/cafe\u0301.mov": "nfd", "🎬 take 1/👩‍💻.mov": "emoji", "東京ロケ/撮影.mov": "cjk",
		" lead/trail .mov ": "spaces", "-rf/--help": "dash", "new\nline\r\t.mov": "controls",
		"a:b*c?d<e>f|g\"h'&.mov": "windows-reserved", strings.Repeat("n", 251) + ".mov": "255 bytes",
		// Names XML cannot carry are listed in their readable form.
		"ctl\x01.mov": "control", "bad\xff.mov": "not UTF-8", "p%\x01.mov": "percent and control",
		"100%.mov": "percent", "100%25.mov": "looks like a readable form",
	}
	if os.PathSeparator != '\\' {
		files["CLIPS/a\\b.mov"] = "backslash"
		files["..\\..\\x.mov"] = "looks like a way out"
	}
	dir, st := folder(t, files)
	t0 := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	l := List{Username: "dit", Hostname: "cart", Tool: "dit 1.0", Start: t0, Finish: t0}
	for p, c := range files {
		l.Files = append(l.Files, File{Path: p, Size: int64(len(c)), Mtime: t0, HashDate: t0,
			Sums: hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(c))})
	}
	data, err := l.Marshal()
	require.NoError(t, err)
	validate(t, data)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName("A001", t0)), data, 0o644))
	res := verify(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, len(files), res.Files)
	require.Empty(t, res.Warnings, "every file is listed under its own name")

	// A list written on Windows: "\" separates.
	dir, st = folder(t, map[string]string{"Clips/A001.mov": "clip"})
	win := strings.Replace(string(data[:strings.Index(string(data), "  <hash>")]), "dit 1.0", "other", 1) +
		"  <hash>\n    <file>.\\Clips\\A001.mov</file>\n    <size>4</size>\n    <md5>" +
		hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("clip")).Get(hashing.MD5) + "</md5>\n  </hash>\n" +
		"  <hash>\n    <file>..\\..\\etc\\passwd</file>\n    <size>4</size>\n    <null/>\n  </hash>\n</hashlist>\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "win.mhl"), []byte(win), 0o644))
	res = verify(t, st)
	require.Equal(t, 1, res.Files, "%v", res.Findings)
	require.Len(t, res.Findings, 1, "%v", res.Findings)
	require.Equal(t, ascmhl.FindHistory, res.Findings[0].Kind)
	require.Contains(t, res.Findings[0].Detail, "leaves the folder")
}

// A folder name of up to 255 bytes gives a list name of at most 200 bytes,
// cut at a character boundary.
func TestFileNameOfALongFolder(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	for _, f := range []string{strings.Repeat("A", 255), strings.Repeat("東", 85)} {
		n := FileName(f, t0)
		require.LessOrEqual(t, len(n), 200, n)
		require.True(t, utf8.ValidString(n), n)
		require.Equal(t, ascmhl.CutName(f, ascmhl.MaxFolderPart)+"_2026-11-20_093000.mhl", n)
	}
}
