package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/source"

	"github.com/dit-org/dit/internal/fsys"
)

// The card's plan is never held whole: a file's plan (filePlan, its
// destPlans) is made when the reader comes to it and let go once its
// final state is recorded, so the plans alive at once stay under the
// pipeline's window whatever the card's file count: the files in flight
// (filesInFlight), the finisher's queue (4 x Buffers), a verifier's
// queue (verifyQueue) and the few each goroutine holds. A card of 600
// files with a window of 36 fails if the plans are made for the whole
// card again (600 alive at once).
func TestPlanWindowBounded(t *testing.T) {
	old := verifyQueue
	verifyQueue = 8
	t.Cleanup(func() { verifyQueue = old })
	e := newEnv(t)
	const n = 600
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("C%03d/F%05d.ari", i/100, i)] = fmt.Sprintf("frame %d", i)
	}
	card := testCard(t, e.dir, "A001", files)
	o := e.opts([]string{card}, []string{e.dest("d1"), e.dest("d2")})
	o.Verify = VerifySourceDest
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)

	window := int64(filesInFlight + 4*o.Buffers + verifyQueue + 8)
	peak := j.plans.peak.Load()
	require.Positive(t, peak, "the pipeline's plans are counted")
	require.LessOrEqual(t, peak, window, "file plans alive at once: at most the pipeline's window, not the card's %d files", n)
	require.Zero(t, j.plans.live.Load(), "every file's plan is let go once its final state is recorded")

	// Every file verified on both destinations, through the plans made
	// one at a time.
	k := j.cards[0].rec
	all, err := e.cat.Files(k.ID)
	require.NoError(t, err)
	require.Len(t, all, n)
	for _, f := range all {
		require.Equal(t, StateVerified, f.State, f.Rel)
		require.Len(t, f.Copies, 2, f.Rel)
		for _, c := range f.Copies {
			require.Equal(t, StateVerified, c.State, f.Rel)
		}
	}
}

// A resume plans from the compact list too: the files verified before are
// not read again, the rest are copied, within the window. The earlier
// run's records are read a window of the list at a time (prevRecords),
// each window once a pass (the plan, the run), never the card's whole:
// every file verified before is still found and kept.
func TestPlanWindowResume(t *testing.T) {
	old, oldPrev := verifyQueue, prevWindow
	verifyQueue, prevWindow = 8, 16
	t.Cleanup(func() { verifyQueue, prevWindow = old, oldPrev })
	e := newEnv(t)
	const n = 300
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("C%03d/F%05d.ari", i/100, i)] = fmt.Sprintf("frame %d", i)
	}
	card := testCard(t, e.dir, "A001", files)
	d1 := e.dest("d1")
	o := e.opts([]string{card}, []string{d1})
	j := runUntilFiles(t, o, n/3)
	jobID := j.rec.ID

	kept := verifiedInodes(t, e, j.cards[0].rec.ID, d1)
	require.NotEmpty(t, kept)
	require.Less(t, len(kept), n)

	r, err := Resume(context.Background(), e.cat, jobID, e.opts(nil, nil))
	require.NoError(t, err)
	prev := r.cards[0].prev
	require.NotNil(t, prev, "a resumed card reads its earlier records")
	s, err := r.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	perPass := (n + prevWindow - 1) / prevWindow
	require.Equal(t, 2*perPass, prev.windows, "each window of %d files read once in the plan and once in the run", prevWindow)
	require.Nil(t, r.cards[0].prev, "the records are let go with the plan")
	requireNotCopiedAgain(t, kept, d1)
	require.LessOrEqual(t, r.plans.peak.Load(), int64(filesInFlight+4*o.Buffers+verifyQueue+8))
	require.Zero(t, r.plans.live.Load())
	requireAllVerified(t, e, r.cards[0].rec.ID, d1, files)
}

// planList keeps each file's path, size and time exactly (nanoseconds, a
// zero time), finds a path whatever the scan's order (a folder's files
// before a sibling whose name sorts before "/"), and keeps each
// destination's plan apart.
func TestPlanListCompact(t *testing.T) {
	mt := time.Date(2026, 12, 3, 9, 1, 2, 123456789, time.UTC)
	ents := []source.Entry{
		{Rel: "a/x", Size: 1, Mtime: mt},
		{Rel: "a-b", Size: 2, Mtime: time.Time{}},
		{Rel: "é/ü 1.mov", Size: 1 << 40, Mtime: mt.Add(-time.Hour)},
		{Rel: "a", Size: 0, Mtime: mt},
	}
	l := newPlanList(source.FilesOf(ents...), 3)
	require.Equal(t, len(ents), l.len())
	for i, e := range ents {
		got := l.entry(i)
		require.Equal(t, e.Rel, got.Rel)
		require.Equal(t, e.Size, got.Size)
		require.True(t, e.Mtime.Equal(got.Mtime), "%s: %v != %v", e.Rel, got.Mtime, e.Mtime)
		require.Equal(t, e.Mtime.IsZero(), got.Mtime.IsZero())
		require.True(t, l.has(e.Rel), e.Rel)
	}
	for _, rel := range []string{"", "a/", "a/x/y", "b", "a-", "é"} {
		require.False(t, l.has(rel), rel)
	}
	var nilList *planList
	require.False(t, nilList.has("a"))
	require.Zero(t, nilList.len())

	fp := &filePlan{dests: make([]destPlan, 3)}
	fp.dests[1] = destPlan{mode: modeCompare, replaceOwn: true}
	fp.probe = true
	l.keep(2, 1, fp)
	fp.dests[2] = destPlan{mode: modeSealed, rechecked: true}
	l.keep(2, 2, fp)
	require.False(t, l.planned(2, 0))
	require.True(t, l.planned(2, 1))
	require.Equal(t, modeCompare, l.mode(2, 1))
	require.Equal(t, modeSealed, l.mode(2, 2))
	require.Equal(t, uint8(markProbe|markPlanned), l.marks.get(l.fileMarks(2)))
	require.Equal(t, uint8(modeCompare)|markReplaceOwn|markSet, l.marks.get(l.destMarks(2, 1)))
	require.Equal(t, uint8(modeSealed)|markRechecked|markSet, l.marks.get(l.destMarks(2, 2)))
	for i := range ents {
		if i != 2 {
			require.Zero(t, l.marks.get(l.fileMarks(i)))
			for di := range 3 {
				require.False(t, l.planned(i, di))
			}
		}
	}
	rels := make([]string, l.len())
	for k := range rels {
		rels[k] = l.rel(l.index.At(k))
	}
	require.True(t, sort.StringsAreSorted(rels), "%q", rels)
}

// A card whose list is kept on disk (source's spill: more than a block of
// 64 KiB of paths) is offloaded, interrupted and resumed as one held in
// memory: every file verified, its bytes identical, and the files
// verified before the interrupt not copied again.
func TestSpilledCardOffloadAndResume(t *testing.T) {
	defer fsys.SetSpillDir(t.TempDir())()
	defer func(p int) { markPage = p }(markPage)
	markPage = 64 // the plan's marks paged too: 5,000 B in pages of 64, 4 kept
	markRead, markWritten := markPagesRead.Load(), markPagesWritten.Load()
	e := newEnv(t)
	const n = 2500
	files := map[string]string{}
	for i := range n { // ~85 B a path the last shares little of: ~750 a block
		files[fmt.Sprintf("C%02d/%03d_%s_Ａ.ari", i/500, i%500, strings.Repeat(string(rune('a'+i%26)), 70))] = fmt.Sprintf("frame %d", i)
	}
	card := testCard(t, e.dir, "A001", files)
	d1 := e.dest("d1")
	j := runUntilFiles(t, e.opts([]string{card}, []string{d1}), n/3)
	kept := verifiedInodes(t, e, j.cards[0].rec.ID, d1)
	require.NotEmpty(t, kept)

	wrote, read := source.SpillStats()
	r, err := Resume(context.Background(), e.cat, j.rec.ID, e.opts(nil, nil))
	require.NoError(t, err)
	s, err := r.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	wrote2, read2 := source.SpillStats()
	t.Logf("the resume wrote %d blocks of the card's list, read %d back", wrote2-wrote, read2-read)
	require.Greater(t, wrote2-wrote, int64(2), "the card's list is on disk while it is copied")
	require.GreaterOrEqual(t, read2-read, wrote2-wrote, "and read back from it")
	require.Positive(t, markPagesWritten.Load()-markWritten, "the plan's marks written to disk")
	require.Positive(t, markPagesRead.Load()-markRead, "and read back")
	requireNotCopiedAgain(t, kept, d1)
	requireAllVerified(t, e, r.cards[0].rec.ID, d1, files)
}

// verifiedInodes are the inodes of card A001's copies on d1 (job day01)
// of its files verified in the catalog, by path.
func verifiedInodes(t *testing.T, e *env, cardID int64, d1 string) map[string]uint64 {
	t.Helper()
	fs, err := e.cat.Files(cardID)
	require.NoError(t, err)
	kept := map[string]uint64{}
	for _, f := range fs {
		if f.State == StateVerified {
			kept[f.Rel] = inode(t, filepath.Join(d1, "day01", "A001", filepath.FromSlash(f.Rel)))
		}
	}
	return kept
}

// requireNotCopiedAgain checks that each copy of kept (verifiedInodes)
// is the same file still: it was not copied again.
func requireNotCopiedAgain(t *testing.T, kept map[string]uint64, d1 string) {
	t.Helper()
	for rel, ino := range kept {
		require.Equal(t, ino, inode(t, filepath.Join(d1, "day01", "A001", filepath.FromSlash(rel))), "%s was verified before: not copied again", rel)
	}
}

// requireAllVerified checks that every file of the card (files: its
// contents by path) is verified in the catalog and its copy on d1 holds
// its bytes.
func requireAllVerified(t *testing.T, e *env, cardID int64, d1 string, files map[string]string) {
	t.Helper()
	all, err := e.cat.Files(cardID)
	require.NoError(t, err)
	require.Len(t, all, len(files))
	for _, f := range all {
		require.Equal(t, StateVerified, f.State, f.Rel)
		got, err := os.ReadFile(filepath.Join(d1, "day01", "A001", filepath.FromSlash(f.Rel)))
		require.NoError(t, err)
		require.Equal(t, files[f.Rel], string(got), f.Rel)
	}
}
