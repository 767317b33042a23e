package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A folder on the destination that is a symbolic link into the card: the
// "copies" would be the card's own files, compared with themselves and
// read back as verified. Nothing may be written through it, and the card
// must never be reported safe to format.
func TestReviewDestFolderSymlinkIntoCard(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	require.NoError(t, os.MkdirAll(filepath.Join(d1, "day01"), 0o755))
	require.NoError(t, os.Symlink(a, filepath.Join(d1, "day01", "A001")))
	before := treeHashes(t, a)
	s, err := e.run(e.opts([]string{a}, []string{d1}))
	if err == nil {
		require.False(t, s.Cards[0].SafeToFormat, "the only copy is the card itself")
	}
	require.ErrorContains(t, err, "symbolic link")
	require.Equal(t, before, treeHashes(t, a), "nothing written to the card")
}

// The same with --on-conflict rename: nothing may be written onto the card.
func TestReviewDestFolderSymlinkIntoCardRename(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	require.NoError(t, os.MkdirAll(filepath.Join(d1, "day01"), 0o755))
	require.NoError(t, os.Symlink(a, filepath.Join(d1, "day01", "A001")))
	before := treeHashes(t, a)
	o := e.opts([]string{a}, []string{d1})
	o.OnConflict = ConflictRename
	// Before the fix: "verified", after a temp holding the whole file was
	// written onto the card and removed again.
	s, err := e.run(o)
	if err == nil {
		require.False(t, s.Cards[0].SafeToFormat, "the only copy is the card itself")
	}
	require.ErrorContains(t, err, "symbolic link")
	require.Equal(t, before, treeHashes(t, a), "nothing written to the card")
}

// A folder of one destination that is a symbolic link into the other: one
// physical copy must not count as two verified copies (first run, then
// the resume its error message asks for).
func TestReviewDestFolderSymlinkIntoOtherDest(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	require.NoError(t, os.MkdirAll(filepath.Join(d2, "day01"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(d2, "day01"), filepath.Join(d1, "day01")))
	s, err := e.run(e.opts([]string{a}, []string{d1, d2}))
	if err != nil {
		require.ErrorContains(t, err, "symbolic link")
		return
	}
	// Without the check: the first run fails the second copy of each file
	// ("a file appeared ... move it away and resume"); the resume finds the
	// first destination's copy at the second's place, "present", and
	// verifies it.
	require.False(t, s.Cards[0].SafeToFormat)
	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	if err != nil {
		require.ErrorContains(t, err, "symbolic link")
		return
	}
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s2.Cards[0].SafeToFormat, "one physical copy on %s reported as two verified copies", d2)
}

// Two cards whose folders differ only by case land in one folder on a
// case-insensitive destination (exFAT, NTFS, SMB, APFS by default), where
// a rename that cannot be made atomic (checked, then renamed) lets one
// card's copy replace the other's after it was verified. New refuses them.
func TestReviewCardsDifferingOnlyByCaseRefused(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", map[string]string{"CLIPS/C001.mov": bigContent(10_000, 1)})
	b := testCard(t, filepath.Join(e.dir, "c2"), "a001", map[string]string{"CLIPS/C001.mov": bigContent(10_000, 2)})
	_, err := New(context.Background(), e.opts([]string{a, b}, []string{e.dest("d1")}))
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	require.ErrorContains(t, err, "would both land in")
}
