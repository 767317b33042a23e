package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A resume with a verified card away (back in the camera) reads again
// the copies whose identity changed since they were verified, and
// compares them with the card's hashes: a copy damaged with its size and
// time kept withdraws the card's verdict (NOT safe to format, the copy
// named), a copy only touched (same bytes, new identity) stays verified
// and is vouched for by its new identity; one that is gone is withdrawn.
// The card's records are read a page at a time (here a file a page).
func TestResumeRechecksACardAwaysChangedCopies(t *testing.T) {
	old := absentPage
	absentPage = 1
	t.Cleanup(func() { absentPage = old })
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", map[string]string{
		"CLIPS/A.mov": bigContent(70_000, 1), "CLIPS/B.mov": bigContent(50_000, 2),
		"CLIPS/C.mov": bigContent(30_000, 3), "CLIPS/D.mov": bigContent(20_000, 4)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s, err := e.run(e.opts([]string{a}, []string{d1, d2}))
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	want := treeHashes(t, a)
	require.NoError(t, os.Rename(a, a+"-away"))

	// d2's A.mov: one byte flipped, size and time kept (its ctime moves).
	damaged := filepath.Join(d2, "day01", "A001", "CLIPS", "A.mov")
	fi, err := os.Stat(damaged)
	require.NoError(t, err)
	b, err := os.ReadFile(damaged)
	require.NoError(t, err)
	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(damaged, b, 0o644))
	require.NoError(t, os.Chtimes(damaged, fi.ModTime(), fi.ModTime()))
	// d1's B.mov: touched only (mode changed back and forth: new ctime).
	touched := filepath.Join(d1, "day01", "A001", "CLIPS", "B.mov")
	require.NoError(t, os.Chmod(touched, 0o600))
	require.NoError(t, os.Chmod(touched, 0o644))

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	r, err := j.Run(context.Background())
	require.NoError(t, err)
	require.NotNil(t, r.Resumed)
	require.Equal(t, 2, r.Resumed.Changed, "the two copies whose identity changed are read again")
	c := r.Cards[0]
	require.False(t, c.SafeToFormat, c.Verdict)
	require.Contains(t, c.Verdict, "NOT safe to format")
	require.NotEqual(t, ExitOK, r.ExitCode)
	require.Len(t, c.Failures, 1, "%+v", c.Failures)
	require.Equal(t, "CLIPS/A.mov", c.Failures[0].Path)
	require.Contains(t, c.Failures[0].Error, "differs from the card")

	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	for _, f := range files {
		for _, cp := range f.Copies {
			bad := f.Rel == "CLIPS/A.mov" && cp.DestID == j.dests[1].rec.ID
			if bad {
				require.Equal(t, StateFailed, cp.State)
				require.Contains(t, cp.Error, "differs from the card")
				require.Contains(t, cp.Error, filepath.Join("d2", "day01", "A001", "CLIPS", "A.mov"))
			} else {
				require.Equal(t, StateVerified, cp.State, "%s on %d", f.Rel, cp.DestID)
			}
		}
	}
	var warned string
	for _, ev := range e.events {
		if ev.Type == EvWarning && ev.Card == "A001" {
			warned = ev.Message
		}
	}
	require.Contains(t, warned, "NOT free")
	require.Contains(t, warned, "1 of them by this resume")
	// The touched copy is the same bytes: d1 still holds the card.
	require.Equal(t, want, treeHashes(t, filepath.Join(d1, "day01", "A001")))

	// Its new identity is recorded: a second resume trusts it, and finds
	// d2's C.mov gone.
	require.NoError(t, os.Remove(filepath.Join(d2, "day01", "A001", "CLIPS", "C.mov")))
	j, err = Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	r, err = j.Run(context.Background())
	require.NoError(t, err)
	require.Zero(t, r.Resumed.Changed, "the touched copy's new identity was recorded")
	files, err = e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	for _, f := range files {
		for _, cp := range f.Copies {
			if f.Rel == "CLIPS/C.mov" && cp.DestID == j.dests[1].rec.ID {
				require.Equal(t, StateFailed, cp.State)
				require.Contains(t, cp.Error, "is gone")
			}
		}
	}
	require.False(t, r.Cards[0].SafeToFormat)
}
