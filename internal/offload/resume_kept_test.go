package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/raid"
)

// A copy verified by the job and changed on the destination before a
// resume (another file of the same size put in its place; a file appended
// to) is someone else's file now: the resume must neither take it as done
// nor replace it as dit's own.
func TestResumeNeverTrustsOrReplacesAChangedVerifiedCopy(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	s, err := e.run(e.opts([]string{a}, []string{d1}))
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)
	clips := filepath.Join(d1, "day01", "A001", "CLIPS")
	swapped := bigContent(200_000, 99) // C001's size, other bytes
	require.NoError(t, os.WriteFile(filepath.Join(clips, "C001.mov"), []byte(swapped), 0o644))
	grown := string(mustRead(t, filepath.Join(clips, "C002.mov"))) + "appended"
	require.NoError(t, os.WriteFile(filepath.Join(clips, "C002.mov"), []byte(grown), 0o644))

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	c := s2.Cards[0]
	require.False(t, c.SafeToFormat, "two copies on d1 are not the card's files any more")
	failed := map[string]string{}
	for _, f := range c.Failures {
		failed[f.Path] = f.Error
	}
	require.Contains(t, failed, "CLIPS/C001.mov")
	require.Contains(t, failed, "CLIPS/C002.mov")
	require.Contains(t, failed["CLIPS/C001.mov"], "never overwrites")
	require.Equal(t, swapped, string(mustRead(t, filepath.Join(clips, "C001.mov"))), "left alone")
	require.Equal(t, grown, string(mustRead(t, filepath.Join(clips, "C002.mov"))), "left alone")

	// Moved away as the message says, a resume copies and verifies them.
	require.NoError(t, os.Rename(filepath.Join(clips, "C001.mov"), filepath.Join(e.dir, "C001-other.mov")))
	require.NoError(t, os.Rename(filepath.Join(clips, "C002.mov"), filepath.Join(e.dir, "C002-other.mov")))
	j, err = Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s3, err := j.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s3.Cards[0].SafeToFormat, s3.Cards[0].Verdict)
	require.Equal(t, treeHashes(t, a), treeHashes(t, filepath.Join(d1, "day01", "A001")))
}

// A card whose files changed since the job verified them (a reformatted
// card with the same names, other sizes) never overwrites the verified
// copies, whatever their size now.
func TestResumeKeepsVerifiedCopiesOfAChangedCard(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	s, err := e.run(e.opts([]string{a}, []string{d1}))
	require.NoError(t, err)
	copyPath := filepath.Join(d1, "day01", "A001", "CLIPS", "C003.mov")
	verified := mustRead(t, copyPath)
	require.NoError(t, os.WriteFile(filepath.Join(a, "CLIPS", "C003.mov"), []byte("new footage, other size"), 0o644))
	require.NoError(t, os.WriteFile(copyPath, append(verified, 'x'), 0o644)) // and the copy changed too

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.False(t, s2.Cards[0].SafeToFormat)
	require.Equal(t, append(verified, 'x'), mustRead(t, copyPath), "never overwritten")
}

// Temps of an interrupted run are removed on resume, but a card file whose
// name looks like one is footage: it is copied, kept and verified.
func TestResumeKeepsCardFilesNamedLikeTemps(t *testing.T) {
	e := newEnv(t)
	odd := map[string]string{
		"CLIPS/C001.mov":                   bigContent(50_000, 1),
		"CLIPS/take" + TempSuffix:          "a card file with dit's temp suffix",
		"CLIPS/.C001.mov.123" + TempSuffix: "and one shaped exactly like a temp",
	}
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", odd)
	d1 := e.dest("d1")
	o := e.opts([]string{a}, []string{d1})
	o.IncludeHidden = true
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	inodes := map[string]uint64{}
	for rel := range odd {
		inodes[rel] = inode(t, filepath.Join(d1, "day01", "A001", filepath.FromSlash(rel)))
	}
	// A real leftover temp of an interrupted run.
	leftover := filepath.Join(d1, "day01", "A001", "CLIPS", ".C002.mov.4711"+TempSuffix)
	require.NoError(t, os.WriteFile(leftover, []byte("partial"), 0o644))

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
	_, err = os.Lstat(leftover)
	require.ErrorIs(t, err, os.ErrNotExist, "the leftover temp is removed")
	for rel, content := range odd {
		p := filepath.Join(d1, "day01", "A001", filepath.FromSlash(rel))
		require.Equal(t, content, string(mustRead(t, p)), rel)
		require.Equal(t, inodes[rel], inode(t, p), "%s: the verified copy is kept, not removed and copied again", rel)
	}
}

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".C001.mov.123" + TempSuffix:                  true,
		".x.0" + TempSuffix:                           true,
		"take" + TempSuffix:                           false,
		".take" + TempSuffix:                          false,
		".C001.mov." + TempSuffix:                     false,
		".C001.mov.12a" + TempSuffix:                  true, // the hash-list writer's hex temps
		".ascmhl_chain.xml.0a1b2c3d4e5f" + TempSuffix: true,
		".C001.mov.12G" + TempSuffix:                  false,
		".C001.mov.123":                               false,
	} {
		require.Equal(t, want, isTempName(name), name)
	}
}

// Resuming a finished job re-reads nothing: every verified copy, on a
// folder and on an array, is still there with its size and the card
// file's time, so it is taken as done without reading a byte.
func TestResumeOfIntactCopiesReadsNothing(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	blades := makeArray(t, e, raid.RAID4, 4)
	plain := e.dest("plain")
	s, err := e.run(e.opts([]string{a, b}, []string{blades[0], plain}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	o := e.opts(nil, nil)
	lim := newRecLimiter()
	o.Limiter = lim
	j, err := Resume(context.Background(), e.cat, s.JobID, o)
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	for _, c := range s2.Cards {
		require.True(t, c.SafeToFormat, c.Verdict)
	}
	require.Empty(t, lim.verify, "no copy compared or read back")
}
