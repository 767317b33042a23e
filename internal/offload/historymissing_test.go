package offload

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

// A card whose own ASC MHL history lists files it no longer has is not
// safe to format, and its error counts every one and names the first
// five in path order (a card that lost every file of a long history
// names five, not all); files its history lists as they are still
// offload verified.
func TestCardLostFilesItsHistoryLists(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("CLIPS/C%03d.mov", i)] = fmt.Sprintf("frame %d", i)
	}
	card := testCard(t, filepath.Join(e.dir, "cards"), "A023", files)
	st, err := ascmhl.OpenOSStore(card)
	require.NoError(t, err)
	mt := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	m := &ascmhl.Manifest{Created: mt, Host: "h", Tool: "t", Process: ascmhl.ProcessInPlace}
	for rel, content := range files {
		v := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(content)).Get(hashing.XXH64)
		m.Files = append(m.Files, ascmhl.File{Path: rel, Size: int64(len(content)),
			Hashes: []ascmhl.Hash{{Algo: hashing.XXH64, Value: v, Action: ascmhl.Original}}})
	}
	_, err = ascmhl.Append(st, nil, m, "A023")
	require.NoError(t, err)
	st.Close()
	// The card loses seven of them, not in order.
	for _, i := range []int{11, 3, 7, 1, 9, 5, 10} {
		require.NoError(t, os.Remove(filepath.Join(card, "CLIPS", fmt.Sprintf("C%03d.mov", i))))
	}
	o := e.opts([]string{card}, []string{e.dest("d1")})
	o.Hashes = []hashing.Algo{hashing.XXH64}
	s, err := e.run(o)
	require.NoError(t, err)
	c := s.Cards[0]
	require.False(t, c.SafeToFormat)
	ks, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	require.Contains(t, ks[0].Error, "7 file(s) the card's own ASC MHL history (an earlier hop) lists are not on the card: "+
		"CLIPS/C001.mov, CLIPS/C003.mov, CLIPS/C005.mov, CLIPS/C007.mov, CLIPS/C009.mov, and 2 more: ")
	require.Equal(t, 0, c.Failed, "the files still on the card are copied and verified")
	require.Equal(t, 5+2, c.Destinations[0].Verified, "its five files and its history's chain and manifest")
}
