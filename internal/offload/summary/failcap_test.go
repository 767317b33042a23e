package summary

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
)

// failedFile is a card's i-th file, failed: every third one changed on
// the card since its copy was verified (a new job copies it), the others
// unreadable.
func failedFile(i int) tfile {
	f := tfile{rel: fmt.Sprintf("CLIPS/C%07d.ari", i), size: 512, state: StateFailed, err: "reading the card: input/output error"}
	if i%3 == 0 {
		f.err = ChangedSinceVerified + " (size 512 -> 600)"
	}
	f.copies = []tcopy{{0, StateFailed, f.err}, {1, StateVerified, ""}}
	return f
}

// changedOf counts gen's first n files changed since verified.
func changedOf(n int) int {
	c := 0
	for i := range n {
		if failedFile(i).err != "reading the card: input/output error" {
			c++
		}
	}
	return c
}

// A card with more failed files than a summary lists (FailuresListed):
// its summary, read from the totals or file by file and in a cascade's
// second run alike, lists the first FailuresListed by path, counts the
// others (FailuresMore), still lists what else failed (its hash lists,
// not written), counts every failed file (Failed) and says to do next
// what every failure says (AdviceOf: the files changed since verified
// among those left out counted too). On SQLite and PostgreSQL.
func TestSummaryListsFirstFailures(t *testing.T) {
	summaryListsFirstFailures(t, filepath.Join(t.TempDir(), "catalog.db"))
}

func TestSummaryListsFirstFailuresOnPostgres(t *testing.T) {
	url, err := pgtest.ForTest(t).NewDatabase("failcap")
	require.NoError(t, err)
	summaryListsFirstFailures(t, url)
}

func summaryListsFirstFailures(t *testing.T, at string) {
	const more = 57
	n := FailuresListed + more
	second := func(i int) tfile {
		f := failedFile(i)
		f.copies = []tcopy{{2, StateFailed, f.err}, {3, StateVerified, ""}}
		return f
	}
	c := newJobIn(t, at, n, failedFile, n, second)
	why := "hash lists not written in /dest0/Day01/A001: no space left on device"
	c.card.State, c.card.Error = catalog.CardSealing, why
	c.cat.UpdateCard(c.card)
	require.NoError(t, c.cat.Flush())

	// The first FailuresListed of the failed files, by path, then the
	// hash lists.
	var want []Failure
	for i := range FailuresListed {
		f := failedFile(i)
		want = append(want, Failure{Path: f.rel, Error: f.err})
	}
	for name, load := range map[string]func(*catalog.Catalog, int64) (*Summary, error){
		"totals": LoadSummary, "file by file": LoadFileByFile} {
		t.Run(name, func(t *testing.T) {
			s, err := load(c.cat, c.job.ID)
			require.NoError(t, err)
			cs := s.Cards[0]
			require.Equal(t, n, cs.Failed)
			require.Equal(t, append(want[:len(want):len(want)], Failure{Path: "(hash lists)", Error: why}), cs.Failures)
			require.Equal(t, more, cs.FailuresMore)
			require.Equal(t, n, cs.Then.Failed)
			require.Equal(t, want, cs.Then.Failures)
			require.Equal(t, more, cs.Then.FailuresMore)
			require.Equal(t, 2*n, s.Failed)
			a := AdviceOf(cs)
			require.Equal(t, changedOf(n), a.Changed, "every changed file, those not listed too")
			require.Greater(t, a.Changed, changedOf(FailuresListed))
		})
	}
}

// The same card without a cascade, read from its totals (its failed
// files walked alone): the same list, count and advice; a report's
// longer list (LoadListing) lists them all.
func TestSummaryListsFirstFailuresFromTotals(t *testing.T) {
	n := FailuresListed + 31
	c := newJob(t, n, failedFile, 0, nil)
	s, err := LoadSummary(c.cat, c.job.ID)
	require.NoError(t, err)
	cs := s.Cards[0]
	require.Len(t, cs.Failures, FailuresListed)
	require.Equal(t, failedFile(FailuresListed-1).rel, cs.Failures[FailuresListed-1].Path)
	require.Equal(t, 31, cs.FailuresMore)
	require.Equal(t, n, cs.Failed)
	require.Equal(t, changedOf(n), AdviceOf(cs).Changed)
	all, err := LoadListing(c.cat, c.job.ID, 1000)
	require.NoError(t, err)
	require.Len(t, all.Cards[0].Failures, n)
	require.Zero(t, all.Cards[0].FailuresMore)
	require.Equal(t, changedOf(n), AdviceOf(all.Cards[0]).Changed)
}

// A card whose every file failed: reading its summary (from its totals,
// its failed files walked; and file by file) holds only the failures it
// lists: the live heap's peak while they are walked is the same for a
// card of N failed files and of 10 N. N is 2,000: the summary that listed
// every failure grows by ~120 bytes a failed file there, 4 times its
// peak (2026-12-05, 2-core VM; the list capped: under 1 byte).
func TestSummaryMemoryFlatInFailures(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own: go test without -race runs it")
	}
	n := 2000
	for name, load := range map[string]func(*catalog.Catalog, int64) (*Summary, error){
		"totals": LoadSummary, "file by file": LoadFileByFile} {
		t.Run(name, func(t *testing.T) {
			var peaks []uint64
			for _, files := range []int{n, 10 * n} {
				c := newJob(t, files, failedFile, 0, nil)
				require.NoError(t, c.cat.Close())
				c.cat = nil
				var err error
				c.cat, err = catalog.Open(c.path)
				require.NoError(t, err)
				var s *Summary
				peak := heapPeak(t, files/20, func() (err error) {
					s, err = load(c.cat, c.job.ID)
					return err
				})
				cs := s.Cards[0]
				require.Equal(t, files, cs.Failed)
				require.Len(t, cs.Failures, FailuresListed)
				require.Equal(t, files-FailuresListed, cs.FailuresMore)
				require.Equal(t, changedOf(files), AdviceOf(cs).Changed)
				peaks = append(peaks, peak)
				require.NoError(t, c.cat.Close())
				c.cat = nil
			}
			per := float64(int64(peaks[1])-int64(peaks[0])) / float64(9*n)
			t.Logf("live heap peak: %d failed files %d kB, %d failed files %d kB (%.1f bytes a file more)", n, peaks[0]/1000, 10*n, peaks[1]/1000, per)
			require.Less(t, float64(peaks[1]), 1.25*float64(peaks[0]), "the peak grows with the failed files")
			require.Less(t, per, 20.0, "bytes held a failed file")
		})
	}
}
