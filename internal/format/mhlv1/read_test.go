package mhlv1

import (
	"context"
	"encoding/hex"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

func folder(t *testing.T, files map[string]string) (string, *ascmhl.OSStore) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	st, err := ascmhl.OpenOSStore(dir)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return dir, st
}

func verify(t *testing.T, st ascmhl.Store) *VerifyResult {
	t.Helper()
	res, err := Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	return res
}

// dit's own list (the writer of this package) verifies, and a changed,
// a missing and an extra file are told apart.
func TestVerifyDitList(t *testing.T) {
	files := map[string]string{"Clips/A001C001.mov": strings.Repeat("frame", 1000), "a & <b>.txt": "odd", "zero.bin": ""}
	dir, st := folder(t, files)
	t0 := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	l := List{Username: "dit", Hostname: "cart", Tool: "dit 1.0", Start: t0, Finish: t0}
	for p, c := range files {
		l.Files = append(l.Files, File{Path: p, Size: int64(len(c)), Mtime: t0, HashDate: t0,
			Sums: hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64}, []byte(c))})
	}
	data, err := l.Marshal()
	require.NoError(t, err)
	name := FileName("A001", t0)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.mhl"), []byte("<other/>"), 0o644))

	lists, err := Find(st)
	require.NoError(t, err)
	require.Equal(t, []string{name}, lists, "only MHL v1.x lists")
	res := verify(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 3, res.Files, "%s", data)
	require.Equal(t, int64(5003), res.Bytes)
	require.Empty(t, res.Warnings)

	// Same size, one byte changed: every hash is checked, the first that
	// differs is named.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a & <b>.txt"), []byte("odD"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "zero.bin")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Clips", "extra.mov"), []byte("x"), 0o644))
	res = verify(t, st)
	require.Equal(t, 1, res.Files)
	require.Len(t, res.Findings, 2)
	byPath := map[string]ascmhl.Finding{}
	for _, f := range res.Findings {
		byPath[f.Path] = f
	}
	require.Equal(t, ascmhl.FindChanged, byPath["a & <b>.txt"].Kind)
	require.True(t, strings.HasPrefix(byPath["a & <b>.txt"].Detail, "md5 "), byPath["a & <b>.txt"].Detail)
	require.Equal(t, ascmhl.FindMissing, byPath["zero.bin"].Kind)
	require.Equal(t, []string{"1 file(s) in the folder are in no MHL v1.1 list (not checked): Clips/extra.mov"}, res.Warnings)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "Clips", "A001C001.mov"), []byte("short"), 0o644))
	res = verify(t, st)
	require.Contains(t, res.Findings, ascmhl.Finding{Kind: ascmhl.FindChanged, Path: "Clips/A001C001.mov", Detail: "size 5, listed 5000"})
}

// ocopyList is what ocopy --legacy-mhl writes (o/COPY 0.9.2,
// testdata/ocopy-legacy.mhl): a single-quoted XML declaration, a <name> in
// the creator info, xxhash64be only.
func ocopyList(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/ocopy-legacy.mhl")
	require.NoError(t, err)
	return string(b)
}

func TestVerifyOcopyList(t *testing.T) {
	dir, st := folder(t, map[string]string{"Clips/a.mov": "hello\n", "empty.bin": "", "card_2026-11-23_111032.mhl": ocopyList(t)})
	res := verify(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 2, res.Files)
	require.Equal(t, []string{"card_2026-11-23_111032.mhl"}, res.Lists)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Clips/a.mov"), []byte("hellO\n"), 0o644))
	res = verify(t, st)
	require.Equal(t, []ascmhl.Finding{{Kind: ascmhl.FindChanged, Path: "Clips/a.mov",
		Detail: "xxhash64be " + hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("hellO\n")).Get(hashing.XXH64) + ", listed e4c191d091bd8853"}}, res.Findings)
}

// The other hash elements of MHL v1.1: the deprecated little-endian
// xxhash64, the decimal XXH32 xxhash, null (size only), uppercase hex,
// Windows separators; an element nobody knows is a warning.
func TestVerifyLegacyElements(t *testing.T) {
	content := "0123456789abcdefXYZ"
	be := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(content)).Get(hashing.XXH64)
	raw, _ := hex.DecodeString(be)
	for i, j := 0, len(raw)-1; i < j; i, j = i+1, j-1 {
		raw[i], raw[j] = raw[j], raw[i]
	}
	md5 := strings.ToUpper(hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte(content)).Get(hashing.MD5))
	list := `<?xml version="1.0" encoding="UTF-8"?>
<hashlist version="1.1"><creatorinfo><username>u</username><hostname>h</hostname><tool>t</tool>
<startdate>2026-11-20T09:30:00Z</startdate><finishdate>2026-11-20T09:30:00Z</finishdate></creatorinfo>
<hash><file>sub\le.bin</file><size>19</size><lastmodificationdate>2026-11-20T09:30:00Z</lastmodificationdate>
<xxhash64>` + hex.EncodeToString(raw) + `</xxhash64><hashdate>2026-11-20T09:30:00Z</hashdate></hash>
<hash><file>sub/x32.bin</file><size>19</size><lastmodificationdate>2026-11-20T09:30:00Z</lastmodificationdate>
<xxhash>2237583922</xxhash><md5>` + md5 + `</md5><sha256>00</sha256><hashdate>2026-11-20T09:30:00Z</hashdate></hash>
<hash><file>sub/null.bin</file><size>19</size><lastmodificationdate>2026-11-20T09:30:00Z</lastmodificationdate>
<null/><hashdate>2026-11-20T09:30:00Z</hashdate></hash>
</hashlist>`
	dir, st := folder(t, map[string]string{"sub/le.bin": content, "sub/x32.bin": content, "sub/null.bin": content, "L_2026-11-20_093000.mhl": list})
	res := verify(t, st)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 3, res.Files)
	require.Equal(t, []string{"hash format <sha256> is not known: not checked"}, res.Warnings)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub/x32.bin"), []byte(strings.ToUpper(content)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub/le.bin"), []byte(strings.ToUpper(content)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub/null.bin"), []byte(strings.ToUpper(content)), 0o644))
	res = verify(t, st)
	require.Equal(t, 1, res.Files, "null checks the size only")
	require.Len(t, res.Findings, 2)
	for _, f := range res.Findings {
		require.Equal(t, ascmhl.FindChanged, f.Kind)
	}
	require.True(t, strings.HasPrefix(res.Findings[0].Detail, "xxhash64 "), res.Findings[0].Detail)
	require.True(t, strings.HasPrefix(res.Findings[1].Detail, "xxhash "), res.Findings[1].Detail)
}

// A damaged list, or one naming a path outside the folder, is a finding;
// nothing outside the folder is read. No list at all is ErrNoList.
func TestVerifyDamagedLists(t *testing.T) {
	_, st := folder(t, map[string]string{"a.bin": "a"})
	_, err := Verify(context.Background(), st, VerifyOptions{})
	require.ErrorIs(t, err, ErrNoList)

	evil := `<hashlist version="1.1"><hash><file>../secret</file><size>1</size><md5>0cc175b9c0f1b6a831c399e269772661</md5></hash>
<hash><file>/etc/passwd</file><size>1</size><null/></hash><hash><file>a.bin</file><size>1</size><md5>0cc175b9c0f1b6a831c399e269772661</md5></hash></hashlist>`
	_, st = folder(t, map[string]string{"a.bin": "a", "x.mhl": evil})
	res := verify(t, st)
	require.Equal(t, 1, res.Files)
	require.Len(t, res.Findings, 2)
	for _, f := range res.Findings {
		require.Equal(t, ascmhl.FindHistory, f.Kind)
		require.Contains(t, f.Detail, "leaves the folder")
	}

	_, st = folder(t, map[string]string{"a.bin": "a", "x.mhl": evil[:len(evil)-40]})
	res = verify(t, st)
	require.False(t, res.OK())
	require.Contains(t, res.Findings[len(res.Findings)-1].Detail, "the list is damaged: not valid XML")
}

func TestXXH32(t *testing.T) {
	// Values from the xxhash reference implementation (seed 0).
	for s, want := range map[string]uint32{"": 46947589, "a": 1426945110, "abc": 852579327, "hello world": 3468387874,
		"0123456789abcdef": 3267648361, "0123456789abcdefXYZ": 2237583922} {
		h := newXXH32()
		h.Write([]byte(s))
		require.Equal(t, want, h.Sum32(), "%q", s)
	}
	long := make([]byte, 0, 1280)
	for i := 0; i < 5; i++ {
		for b := 0; b < 256; b++ {
			long = append(long, byte(b))
		}
	}
	h := newXXH32()
	for i := 0; i < len(long); i += 7 { // written in odd pieces
		h.Write(long[i:min(i+7, len(long))])
	}
	require.Equal(t, "378914187", strconv.FormatUint(uint64(h.Sum32()), 10))
}

// The comment in which dit's writer names the empty files it leaves out
// is read into the header: the first such comment only; other comments
// and malformed counts are not.
func TestHeaderNoteEmpty(t *testing.T) {
	var h Header
	h.noteEmpty(xml.Comment(" written by dit "))
	h.noteEmpty(xml.Comment(" x empty file(s) not listed (MHL v1.1 sizes are positive): a "))
	h.noteEmpty(xml.Comment(" 0 empty file(s) not listed (MHL v1.1 sizes are positive): a "))
	require.Zero(t, h.EmptyCount)
	require.Nil(t, h.Empty)

	h.noteEmpty(xml.Comment(" 2 empty file(s) not listed (MHL v1.1 sizes are positive): a.txt, Clips/b-%2Dc "))
	require.Equal(t, 2, h.EmptyCount)
	require.Equal(t, []string{"a.txt", "Clips/b-%2Dc"}, h.Empty)

	h.noteEmpty(xml.Comment(" 1 empty file(s) not listed (MHL v1.1 sizes are positive): d "))
	require.Equal(t, 2, h.EmptyCount, "only the first such comment counts")
}
