package offload

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A file planned on an earlier run's record that the catalog no longer
// gives when the run comes to it (the plan vouched for its copy and would
// keep its hashes) is not verified by this run: it fails with the
// catalog's path and the file's, the card is not safe to format, and the
// other files of the card are verified as planned.
func TestResumeRecordGoneFailsTheFile(t *testing.T) {
	old := prevWindow
	prevWindow = 4 // the run reads its first window again, after the plan's last
	t.Cleanup(func() { prevWindow = old })
	e := newEnv(t)
	const n = 40
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("C%03d/F%05d 🎞.ari", i/10, i)] = fmt.Sprintf("frame %d", i)
	}
	card := testCard(t, e.dir, "A001", files)
	o := e.opts([]string{card}, []string{e.dest("d1")})
	j := runUntilFiles(t, o, n/2)
	k := j.cards[0].rec
	before, err := e.cat.Files(k.ID)
	require.NoError(t, err)
	gone := ""
	for _, f := range before {
		if f.State == StateVerified {
			gone = f.Rel
			break
		}
	}
	require.NotEmpty(t, gone)

	r, err := Resume(context.Background(), e.cat, j.rec.ID, e.opts(nil, nil))
	require.NoError(t, err)
	// Planned with the record; gone before the run reads it.
	for _, q := range []string{`DELETE FROM copies WHERE card_id=? AND rel_path=?`, `DELETE FROM files WHERE card_id=? AND rel_path=?`} {
		_, err := e.cat.DB().Exec(q, k.ID, gone)
		require.NoError(t, err)
	}
	s, err := r.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s.Cards[0].SafeToFormat)
	after, err := e.cat.Files(k.ID)
	require.NoError(t, err)
	require.Len(t, after, n)
	for _, f := range after {
		if f.Rel != gone {
			require.Equal(t, StateVerified, f.State, f.Rel)
			continue
		}
		require.Equal(t, StateFailed, f.State)
		require.Contains(t, f.Error, "the catalog "+e.cat.Path()+" no longer has what the earlier runs recorded of "+gone)
		require.Len(t, f.Copies, 1)
		require.Equal(t, StateFailed, f.Copies[0].State)
	}
}
