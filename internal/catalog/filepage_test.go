package catalog

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// pageFixture records a card of n files whose paths sort differently in
// byte order and in a language's (upper and lower case, "_", "-", ".",
// accents, an emoji, a folder's files after a sibling that sorts before
// "/"), with copies on two destinations (recorded in reverse order of
// their seq): some files on both, some on one, some on none; and a
// second card of the same paths, not counted with the first.
func pageFixture(t *testing.T, c *Catalog, n int) (*Card, *Card) {
	t.Helper()
	k, other, ds := twoCardJob(t, c, "Pages", "verified")
	heads := []string{"A", "a", "B", "Z", "_", "a b", "a-b", "a.b", "a/x", "é", "É", "🎬", "z"}
	for i := range n {
		rel := fmt.Sprintf("%s/%05d.dng", heads[i%len(heads)], i)
		state := "verified"
		if i%31 == 7 {
			state = "failed"
		}
		c.PutFile(&File{CardID: k.ID, Rel: rel, Size: int64(i) * 1000, State: state, Error: map[bool]string{true: "read error"}[state == "failed"]})
		for n, d := range ds {
			if i%5 == 3 && n == 0 || i%11 == 4 {
				continue // not on that destination, or on none
			}
			c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: fmt.Sprintf("%s/%s", d.Path, rel), State: state})
		}
		if i%2 == 0 {
			c.PutFile(&File{CardID: other.ID, Rel: rel, Size: 1, State: "verified"})
		}
	}
	return k, other
}

// twoCardJob records a job named name with two destinations (/d1 added
// before /d0: their order is their seq, not their ids) and two cards,
// A001 and B001, in state cardState.
func twoCardJob(t *testing.T, c *Catalog, name, cardState string) (k, other *Card, ds []*Dest) {
	t.Helper()
	j := &Job{Name: name, State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail"}
	require.NoError(t, c.CreateJob(j))
	for _, seq := range []int{1, 0} {
		d := &Dest{JobID: j.ID, Seq: seq, Path: fmt.Sprintf("/d%d", seq), Hop: 1}
		require.NoError(t, c.AddDest(d))
		ds = append(ds, d)
	}
	k = &Card{JobID: j.ID, Label: "A001", Path: "/a", State: cardState, Hop: 1}
	other = &Card{JobID: j.ID, Seq: 1, Label: "B001", Path: "/b", State: cardState, Hop: 1}
	require.NoError(t, c.AddCard(k))
	require.NoError(t, c.AddCard(other))
	return k, other, ds
}

// FilesAt reads any page of a card by its row number: each page is the
// rows of Files from that row on, copies included in destination order,
// in the byte order of the paths; the pages together are the card's
// files, each once; a row at or past the end gives none, and a page is
// at most 500 files.
func TestFilesAtReadsAPageByRow(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		const n = 1237
		k, _ := pageFixture(t, c, n)
		want, err := c.Files(k.ID)
		require.NoError(t, err)
		require.Len(t, want, n)
		require.True(t, slices.IsSortedFunc(want, func(a, b *File) int {
			if a.Rel < b.Rel { // Go compares strings byte by byte
				return -1
			}
			return 1
		}), "Files in byte order")
		for _, from := range []int{0, 1, 99, 100, 618, n - 100, n - 37, n - 1} {
			got, err := c.FilesAt(k.ID, from, 100)
			require.NoError(t, err)
			require.Equal(t, want[from:min(from+100, n)], got, "from row %d", from)
		}
		var all []*File
		for from := 0; ; from += 100 {
			page, err := c.FilesAt(k.ID, from, 100)
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			all = append(all, page...)
		}
		require.Equal(t, want, all)
		for _, from := range []int{n, n + 5} {
			got, err := c.FilesAt(k.ID, from, 100)
			require.NoError(t, err)
			require.Empty(t, got, "from row %d", from)
		}
		got, err := c.FilesAt(k.ID, 3, 5000)
		require.NoError(t, err)
		require.Equal(t, want[3:503], got, "a page of at most 500")
		got, err = c.FilesAt(k.ID, 5, 0)
		require.NoError(t, err)
		require.Empty(t, got)
	})
}

// FileCount is the number of a card's files: others' left out, a file
// recorded again (its state changed) counted once, a file recorded
// since counted, a card with none 0.
func TestFileCountIsTheCardsFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		k, other := pageFixture(t, c, 301)
		got, err := c.FileCount(k.ID)
		require.NoError(t, err)
		require.Equal(t, 301, got)
		got, err = c.FileCount(other.ID)
		require.NoError(t, err)
		require.Equal(t, 151, got)
		c.PutFile(&File{CardID: k.ID, Rel: "A/00000.dng", Size: 0, State: "failed", Error: "verify: mismatch"})
		c.PutFile(&File{CardID: k.ID, Rel: "new.dng", Size: 9, State: "pending"})
		got, err = c.FileCount(k.ID)
		require.NoError(t, err)
		require.Equal(t, 302, got)
		files, err := c.Files(k.ID)
		require.NoError(t, err)
		require.Len(t, files, 302)
		got, err = c.FileCount(k.ID + 100)
		require.NoError(t, err)
		require.Zero(t, got, "no such card")
	})
}

// EachSkipped walks a card's skipped entries as Skipped lists them, in
// the byte order of their paths, another card's left out; an error from
// the walk's function stops it and is returned.
func TestEachSkippedIsSkipped(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		k, other := pageFixture(t, c, 3)
		for i, rel := range []string{"a/._x", "._B", "Z/.DS_Store", "_/._é", "a-b/._y", "🎬/._z"} {
			c.PutSkipped(k.ID, Skip{Rel: rel, Kind: "metadata", Reason: fmt.Sprintf("reason %d", i)})
		}
		c.PutSkipped(other.ID, Skip{Rel: "._other", Kind: "metadata", Reason: "other card"})
		want, err := c.Skipped(k.ID)
		require.NoError(t, err)
		require.Len(t, want, 6)
		var got []Skip
		require.NoError(t, c.EachSkipped(k.ID, func(s Skip) error { got = append(got, s); return nil }))
		require.Equal(t, want, got)
		rels := make([]string, len(got))
		for i, s := range got {
			rels[i] = s.Rel
		}
		require.Equal(t, []string{"._B", "Z/.DS_Store", "_/._é", "a-b/._y", "a/._x", "🎬/._z"}, rels, "byte order")
		stop := fmt.Errorf("stop")
		n := 0
		require.ErrorIs(t, c.EachSkipped(k.ID, func(Skip) error { n++; return stop }), stop)
		require.Equal(t, 1, n)
	})
}

// SkippedCount counts a card's skipped entries and the unreadable ones
// among them as Skipped lists them, another card's left out; a card
// with none counts 0.
func TestSkippedCountIsSkipped(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		k, other := pageFixture(t, c, 3)
		for i := range 250 {
			kind := "metadata"
			if i%50 == 7 {
				kind = "unreadable"
			}
			c.PutSkipped(k.ID, Skip{Rel: fmt.Sprintf("CLIPS/._%04d.mov", i), Kind: kind, Reason: "why"})
		}
		c.PutSkipped(other.ID, Skip{Rel: "._other", Kind: "unreadable", Reason: "other card"})
		all, err := c.Skipped(k.ID)
		require.NoError(t, err)
		n, err := c.SkippedCount(k.ID)
		require.NoError(t, err)
		require.Equal(t, SkipCount{N: len(all), Unreadable: 5}, n)
		require.Equal(t, 250, n.N)
		none, err := c.SkippedCount(other.ID + 100)
		require.NoError(t, err)
		require.Zero(t, none)
	})
}

// EachFailedFile walks a card's failed files (path and error) in path
// order as FailedFileList lists them, another card's and the files not
// failed left out; an error from the walk's function stops it.
func TestEachFailedFileIsFailedFileList(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		k, other := pageFixture(t, c, 200)
		c.PutFile(&File{CardID: other.ID, Rel: "B/x.dng", State: "failed", Error: "other card"})
		want, err := c.FailedFileList(k.ID)
		require.NoError(t, err)
		var got []File
		require.NoError(t, c.EachFailedFile(k.ID, func(f File) error { got = append(got, f); return nil }))
		require.Equal(t, want, got)
		require.Len(t, got, 7) // i%31 == 7 of 200
		for i, f := range got {
			require.Equal(t, "read error", f.Error)
			if i > 0 {
				require.Less(t, got[i-1].Rel, f.Rel, "byte order")
			}
		}
		stop := fmt.Errorf("stop")
		n := 0
		require.ErrorIs(t, c.EachFailedFile(k.ID, func(File) error { n++; return stop }), stop)
		require.Equal(t, 1, n)
	})
}
