package seal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

func reviewCardWithDitHistory(t *testing.T, card string) {
	writeCard(t, card, map[string]string{"a.mov": "aaaa", "sub/b.mov": "bbbbbb"})
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	defer st.Close()
	b := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("aaaa"))
	m := &ascmhl.Manifest{Created: mtime, Host: "cart", Tool: "dit", Process: ascmhl.ProcessTransfer,
		Ignore: ascmhl.DefaultIgnore,
		Files:  []ascmhl.File{{Path: "a.mov", Size: 4, Hashes: []ascmhl.Hash{{Algo: hashing.XXH64, Value: b.Get(hashing.XXH64), Action: ascmhl.Original}}}}}
	_, err = ascmhl.Append(st, nil, m, filepath.Base(card))
	require.NoError(t, err)
}

// A card (say a shuttle drive sealed by dit in an earlier hop, where that
// seal was interrupted) carries a dit temp in its ascmhl folder. The
// offload copies it and verifies it; then the seal's Recover deletes the
// verified copy on the destination, and the card still reads safe to format.
func TestReviewRecoverDeletesCopiedCardTemp(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A003")
	reviewCardWithDitHistory(t, card)
	tmpRel := "ascmhl/.ascmhl_chain.xml.0123456789ab.dit-tmp"
	writeCard(t, card, map[string]string{tmpRel: "<ascmhldirectory/>"})
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64}, false)
	cs := r.summary.Cards[0]
	_, err := os.Lstat(filepath.Join(d, "day01", "A003", filepath.FromSlash(tmpRel)))
	require.False(t, cs.SafeToFormat && err != nil,
		"card safe to format, but its file %s, copied and verified, is gone from the destination: %v (warnings %v)", tmpRel, err, r.warnings)
}

// Same with a dit manifest on the card that its chain does not list.
func TestReviewRecoverDeletesCopiedCardManifest(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A004")
	reviewCardWithDitHistory(t, card)
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	data, err := st.ReadFile("ascmhl/" + ascmhl.ManifestName(1, "A004", mtime))
	require.NoError(t, err)
	st.Close()
	extra := "ascmhl/" + ascmhl.ManifestName(2, "A004", mtime.Add(3600e9))
	writeCard(t, card, map[string]string{extra: string(data)})
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64}, false)
	cs := r.summary.Cards[0]
	_, err = os.Lstat(filepath.Join(d, "day01", "A004", filepath.FromSlash(extra)))
	require.False(t, cs.SafeToFormat && err != nil,
		"card safe to format, but its file %s, copied and verified, is gone from the destination: %v (warnings %v)", extra, err, r.warnings)
}

// Same with a card whose history lost its chain.
func TestReviewRecoverDeletesCopiedHistoryWithoutChain(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A005")
	reviewCardWithDitHistory(t, card)
	require.NoError(t, os.Remove(filepath.Join(card, "ascmhl", ascmhl.ChainFile)))
	mf := "ascmhl/" + ascmhl.ManifestName(1, "A005", mtime)
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64}, false)
	cs := r.summary.Cards[0]
	_, err := os.Lstat(filepath.Join(d, "day01", "A005", filepath.FromSlash(mf)))
	require.False(t, cs.SafeToFormat && err != nil,
		"card safe to format, but its file %s, copied and verified, is gone from the destination: %v (warnings %v)", mf, err, r.warnings)
}

// The card's own history lists a file the card no longer has: the card is
// reported safe to format, yet the history on the copy does not verify.
func TestReviewHistoryFileMissingOnCard(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A006")
	writeCard(t, card, map[string]string{"a.mov": "aaaa", "gone.mov": "gggg"})
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	h := func(s string) []ascmhl.Hash {
		b := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(s))
		return []ascmhl.Hash{{Algo: hashing.XXH64, Value: b.Get(hashing.XXH64), Action: ascmhl.Original}}
	}
	m := &ascmhl.Manifest{Created: mtime, Host: "cart", Tool: "othertool", Process: ascmhl.ProcessTransfer,
		Ignore: ascmhl.DefaultIgnore,
		Files:  []ascmhl.File{{Path: "a.mov", Size: 4, Hashes: h("aaaa")}, {Path: "gone.mov", Size: 4, Hashes: h("gggg")}}}
	_, err = ascmhl.Append(st, nil, m, "A006")
	require.NoError(t, err)
	st.Close()
	require.NoError(t, os.Remove(filepath.Join(card, "gone.mov")))
	d := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d, 0o755))
	r := offloadWith(t, dir, Format{ASC: true}, []string{card}, []string{d}, []hashing.Algo{hashing.XXH64}, false)
	res := verify(t, filepath.Join(d, "day01", "A006"), false)
	t.Logf("safe=%v warnings=%v findings=%v", r.summary.Cards[0].SafeToFormat, r.warnings, res.Findings)
	require.False(t, r.summary.Cards[0].SafeToFormat && !res.OK() && len(r.warnings) == 0,
		"safe to format without a word, but the copy's history does not verify: %v", res.Findings)
}
