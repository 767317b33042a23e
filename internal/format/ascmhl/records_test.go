package ascmhl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// LoadHistoryIndexed gives the same records as LoadHistory (renames
// followed, a file failed last, values of several generations) and the
// same manifests' heads, holding no Manifest.Files for a large history:
// what a seal and an offload read of a history, without the parsed
// manifests.
func TestLoadHistoryIndexedKeepsRecordsNotFiles(t *testing.T) {
	_, st := scopeWith(t, map[string]string{"Clips/a.mov": "a", "Clips/c.mov": "c", "é/🎬 1.mov": "f"})
	appendGen(t, st, &Manifest{Tool: "camera", Files: []File{fileRec("Clips/a.mov", "a", Original), fileRec("Clips/b.mov", "b", Original), fileRec("é/🎬 1.mov", "f", Original)}})
	renamed := fileRec("Clips/c.mov", "b", Verified)
	renamed.PreviousPath = "Clips/b.mov"
	failed := fileRec("Clips/a.mov", "a", Failed)
	md5 := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("f")).Get(hashing.MD5)
	again := File{Path: "é/🎬 1.mov", Size: 1, Hashes: []Hash{{Algo: hashing.MD5, Value: md5, Action: Original}}}
	appendGen(t, st, &Manifest{Tool: "dit", Files: []File{renamed, failed, again}})

	full, err := LoadHistory(st)
	require.NoError(t, err)
	keep := keepFilesUpTo
	keepFilesUpTo = 0 // every history is large
	defer func() { keepFilesUpTo = keep }()
	idx, err := LoadHistoryIndexed(st)
	require.NoError(t, err)
	require.Empty(t, idx.Problems)
	require.Len(t, idx.Generations, 2)
	for _, g := range idx.Generations {
		require.Empty(t, g.Manifest.Files, "generation %d", g.Seq)
	}
	require.Equal(t, full.Latest().Tool, idx.Latest().Tool)
	require.Equal(t, full.Latest().Created, idx.Latest().Created)
	require.Equal(t, full.IgnorePatterns(), idx.IgnorePatterns())
	want, got := recordMap(full.Records()), recordMap(idx.Records())
	require.Equal(t, want, got)
	require.Len(t, got, 3)
	require.Nil(t, idx.Records().Get("Clips/b.mov"), "renamed: found under its new path only")
	require.True(t, got["Clips/a.mov"].LastFailed)
	require.Len(t, got["é/🎬 1.mov"].Values, 2, "the values of both generations")
	paths := []string{}
	for p := range idx.Records().Paths() {
		paths = append(paths, p)
	}
	require.ElementsMatch(t, []string{"Clips/a.mov", "Clips/c.mov", "é/🎬 1.mov"}, paths)
	for p, want := range map[string]bool{"Clips/c.mov": true, "Clips": true, "é": true, "Clips/b.mov": false, "Cl": false, "ascmhl": false} {
		require.Equal(t, want, idx.Records().Keeps(p), p)
	}
	var none *Records
	require.False(t, none.Keeps("Clips"))
	require.Nil(t, none.Get("a"))
	require.Zero(t, none.Len())
}

// RecordsOf records what it is given, a value that is not a hash of its
// algorithm refused with the path named.
func TestRecordsOf(t *testing.T) {
	x := strings.Repeat("ab", 8)
	r, err := RecordsOf(&Record{Path: "a.mov", Size: 3, Values: map[hashing.Algo]string{hashing.XXH64: x}, FirstSeq: 2},
		&Record{Path: "b.mov", Size: -1, Values: map[hashing.Algo]string{hashing.XXH64: x}, LastFailed: true})
	require.NoError(t, err)
	require.Equal(t, &Record{Path: "a.mov", Size: 3, Values: map[hashing.Algo]string{hashing.XXH64: x}, FirstSeq: 2}, r.Get("a.mov"))
	require.True(t, r.Get("b.mov").LastFailed)
	require.Equal(t, 2, r.Len())
	_, err = RecordsOf(&Record{Path: "bad.mov", Values: map[hashing.Algo]string{hashing.XXH64: "zz"}})
	require.ErrorContains(t, err, "bad.mov")
}
