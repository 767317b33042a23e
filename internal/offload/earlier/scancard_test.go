package earlier

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// A card carrying an ASC MHL history is scanned with every file its
// history lists, OS metadata included (a .DS_Store, a file in a .Trashes
// folder), and its folders; OS metadata the history does not list is left
// out, and all of it once the card carries no history.
func TestScanCardKeepsWhatItsHistoryLists(t *testing.T) {
	card := filepath.Join(t.TempDir(), "A001")
	files := map[string]string{"Clips/A001C001.mov": "clip", ".DS_Store": "listed", "Clips/.Trashes/f.bin": "listed too",
		"._A001C001.mov": "not listed", "Clips/.Spotlight-V100/x": "not listed"}
	for rel, body := range files {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	var recs []ascmhl.File
	for _, rel := range []string{"Clips/A001C001.mov", ".DS_Store", "Clips/.Trashes/f.bin"} {
		v := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(files[rel])).Get(hashing.XXH64)
		recs = append(recs, ascmhl.File{Path: rel, Size: int64(len(files[rel])), Hashes: []ascmhl.Hash{{Algo: hashing.XXH64, Value: v, Action: ascmhl.Original}}})
	}
	_, err = ascmhl.Append(st, nil, &ascmhl.Manifest{Created: cardTime, Host: "h", Tool: "camera", Process: ascmhl.ProcessInPlace, Files: recs}, "A001")
	require.NoError(t, err)
	st.Close()

	sc, records, err := ScanCard(fsys.OS{}, card, false)
	require.NoError(t, err)
	require.Equal(t, 3, records.Len())
	var got []string
	for _, e := range sc.Files.All() {
		got = append(got, e.Rel)
	}
	require.Contains(t, got, ".DS_Store")
	require.Contains(t, got, "Clips/.Trashes/f.bin")
	require.Contains(t, got, "Clips/A001C001.mov")
	require.NotContains(t, got, "._A001C001.mov")
	require.NotContains(t, got, "Clips/.Spotlight-V100/x")

	require.NoError(t, os.RemoveAll(filepath.Join(card, ascmhl.HistoryDir)))
	sc, records, err = ScanCard(fsys.OS{}, card, false)
	require.NoError(t, err)
	require.Nil(t, records)
	got = got[:0]
	for _, e := range sc.Files.All() {
		got = append(got, e.Rel)
	}
	require.Equal(t, []string{"Clips/A001C001.mov"}, got)
}
