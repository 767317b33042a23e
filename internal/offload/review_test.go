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
	// With --on-conflict rename, before the fix: "verified", after a temp
	// holding the whole file was written onto the card and removed again.
	for _, conflict := range []Conflict{ConflictFail, ConflictRename} {
		t.Run(string(conflict), func(t *testing.T) {
			e := newEnv(t)
			a, _ := twoCards(t, e)
			d1 := e.dest("d1")
			require.NoError(t, os.MkdirAll(filepath.Join(d1, "day01"), 0o755))
			require.NoError(t, os.Symlink(a, filepath.Join(d1, "day01", "A001")))
			before := treeHashes(t, a)
			o := e.opts([]string{a}, []string{d1})
			o.OnConflict = conflict
			s, err := e.run(o)
			if err == nil {
				require.False(t, s.Cards[0].SafeToFormat, "the only copy is the card itself")
			}
			require.ErrorContains(t, err, "symbolic link")
			require.Equal(t, before, treeHashes(t, a), "nothing written to the card")
		})
	}
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

// A resume keeps what the catalog knows of copies verified before it: the
// time they were read back and with which hashes (the hash lists sealed
// after the resume say "verified" from these).
func TestReviewResumeKeepsVerificationRecord(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	s, err := e.run(e.opts([]string{a}, []string{e.dest("d1")}))
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	cards, _ := e.cat.Cards(s.JobID)
	before, _ := e.cat.Files(cards[0].ID)
	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s2.Cards[0].SafeToFormat)
	after, _ := e.cat.Files(cards[0].ID)
	require.Len(t, after, len(before))
	for i := range before {
		b, a := before[i].Copies[0], after[i].Copies[0]
		require.NotEmpty(t, b.VerifyAlgos)
		require.Equal(t, b.VerifyAlgos, a.VerifyAlgos, before[i].Rel)
		require.True(t, b.VerifiedAt.Equal(a.VerifiedAt), "%s: verified at %s, after the resume %s", before[i].Rel, b.VerifiedAt, a.VerifiedAt)
	}
}

// On resume a file verified on one destination is re-read from the card
// because another destination needs it again. If the card now returns
// other bytes under the same size and time (an unstable reader, or a
// different card under the same path), the kept copy no longer matches
// the hashes recorded for the file: it must not stay "verified" against
// hashes it was never compared with.
func TestReviewResumeRereadDiffersFromKeptCopy(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	s, err := e.run(e.opts([]string{a}, []string{d1, d2}))
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	// The second destination's copy is lost; the card's file now reads
	// differently under the same size and modification time.
	require.NoError(t, os.Remove(filepath.Join(d2, "day01", "A001", "CLIPS", "C001.mov")))
	src := filepath.Join(a, "CLIPS", "C001.mov")
	fi, err := os.Stat(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(src, []byte(bigContent(200_000, 77)), 0o644))
	require.NoError(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s2.Cards[0].SafeToFormat, "the copy on d1 holds other bytes than the card now")
	cards, _ := e.cat.Cards(s.JobID)
	files, _ := e.cat.Files(cards[0].ID)
	for _, f := range files {
		if f.Rel == "CLIPS/C001.mov" {
			require.Equal(t, StateFailed, f.State)
		}
	}
}
