package catalog

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// EachFile walks what Files gives, file by file with the same copies;
// the copies of another card (a cascade's second run) of the same paths
// are added, its other rows left out.
func TestEachFileIsFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		findFixture(t, c)
		cards, err := c.Cards(1)
		require.NoError(t, err)
		for _, k := range cards {
			want, err := c.Files(k.ID)
			require.NoError(t, err)
			var got []*File
			require.NoError(t, c.EachFile(k.ID, nil, func(f *File) error {
				g := *f
				g.Copies = append([]Copy(nil), f.Copies...)
				got = append(got, &g)
				return nil
			}))
			require.Equal(t, want, got)
		}
		// Card 1's files with card 2's copies of the same paths: only the
		// odd file is on both.
		n := 0
		require.NoError(t, c.EachFile(cards[0].ID, []int64{cards[1].ID}, func(f *File) error {
			if f.Rel == "odd 50%_name.MOV" {
				require.Len(t, f.Copies, 4)
				require.Equal(t, f.Copies[0].Path, "Day01/"+cards[0].Label+"/"+f.Rel)
				require.Equal(t, f.Copies[2].Path, "Day01/"+cards[1].Label+"/"+f.Rel)
			} else {
				require.Len(t, f.Copies, 2)
			}
			n++
			return nil
		}))
		require.Equal(t, 300, n)
	})
}

// A file's copies come in the order of their destinations (seq), not of
// their ids: here the second destination was recorded first.
func TestEachFileCopiesInDestinationOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		j := &Job{Name: "Order", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail"}
		require.NoError(t, c.CreateJob(j))
		var ds []*Dest
		for _, seq := range []int{2, 0, 1} {
			d := &Dest{JobID: j.ID, Seq: seq, Path: fmt.Sprintf("/d%d", seq), Hop: 1}
			require.NoError(t, c.AddDest(d))
			ds = append(ds, d)
		}
		k := &Card{JobID: j.ID, Label: "A001", Path: "/a", State: "verified", Hop: 1}
		require.NoError(t, c.AddCard(k))
		for i := 0; i < 5; i++ {
			rel := fmt.Sprintf("C%03d.mov", i)
			c.PutFile(&File{CardID: k.ID, Rel: rel, Size: 1, State: "verified"})
			for n := range ds {
				d := ds[(n+i)%len(ds)] // recorded in every order
				c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: fmt.Sprintf("seq%d/%s", d.Seq, rel), State: "verified"})
			}
		}
		want, err := c.Files(k.ID)
		require.NoError(t, err)
		n := 0
		require.NoError(t, c.EachFile(k.ID, nil, func(f *File) error {
			require.Equal(t, want[n].Copies, f.Copies)
			for s, cp := range f.Copies {
				require.Equal(t, fmt.Sprintf("seq%d/%s", s, f.Rel), cp.Path)
			}
			n++
			return nil
		}))
		require.Equal(t, 5, n)
	})
}

// EachCopyStart gives a card's files in the order their copies started,
// whatever their paths, from since on; a file never started is left
// out. The starts include those whose RFC3339Nano text would sort out
// of order (a whole second, .1 against .12).
func TestEachCopyStartInTheCopysOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		j := &Job{Name: "Day01", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", Layout: "{job}/{card}", OnConflict: "fail",
			Started: time.Unix(1000, 0)}
		require.NoError(t, c.CreateJob(j))
		k := &Card{JobID: j.ID, Label: "A001", Path: "/media/A001", State: "verified"}
		require.NoError(t, c.AddCard(k))
		t0 := time.Date(2026, 12, 4, 9, 0, 5, 0, time.UTC)
		starts := map[string]time.Duration{ // by path, in no order of theirs
			"a.MOV": 120 * time.Millisecond, "b.MOV": 0, "c.MOV": 100 * time.Millisecond, "d.MOV": 1500 * time.Millisecond,
			"e.MOV": 1500*time.Millisecond + time.Nanosecond, "f.MOV": 999999999, "g.MOV": -time.Second,
		}
		for rel, d := range starts {
			c.PutFile(&File{CardID: k.ID, Rel: rel, Size: int64(len(rel)) + int64(d/time.Millisecond), State: "verified",
				CopyStarted: t0.Add(d)})
		}
		c.PutFile(&File{CardID: k.ID, Rel: "h.MOV", Size: 1, State: "pending"})
		var got []string
		require.NoError(t, c.EachCopyStart(k.ID, t0, func(start time.Time, size int64) error {
			for rel, d := range starts {
				if t0.Add(d).Equal(start) {
					require.Equal(t, int64(len(rel))+int64(d/time.Millisecond), size, rel)
					got = append(got, rel)
				}
			}
			return nil
		}))
		require.Equal(t, []string{"b.MOV", "c.MOV", "a.MOV", "f.MOV", "d.MOV", "e.MOV"}, got,
			"by start; g started before since (a run before)")
	})
}

// FilesNamed gives the named files of a card as Files does, copies in
// destination order, across more paths than one query names; a path with
// no record (or another card's) is left out.
func TestFilesNamedIsFilesOfThosePaths(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		k, other, ds := twoCardJob(t, c, "Named", "copying")
		const n = filesNamedChunk + 37
		for i := range n {
			rel := fmt.Sprintf("CLIP/%04d 🎬.dng", i)
			c.PutFile(&File{CardID: k.ID, Rel: rel, Size: int64(i), State: "verified", Mtime: time.Unix(0, int64(i)*1e9+7)})
			for _, d := range ds {
				c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: fmt.Sprintf("%s/%s", d.Path, rel), State: "verified", Written: i%2 == 0})
			}
		}
		c.PutFile(&File{CardID: other.ID, Rel: "other only.mov", Size: 1, State: "verified"})
		all, err := c.Files(k.ID)
		require.NoError(t, err)
		want := map[string]*File{}
		var rels []string
		for i, f := range all {
			if i%3 != 1 {
				want[f.Rel] = f
				rels = append(rels, f.Rel)
			}
		}
		rels = append(rels, "no such file.dng", "other only.mov")
		got, err := c.FilesNamed(k.ID, rels)
		require.NoError(t, err)
		require.Len(t, got, len(want))
		for _, f := range got {
			require.Equal(t, want[f.Rel], f)
			require.Len(t, f.Copies, 2)
			require.Equal(t, "/d0/"+f.Rel, f.Copies[0].Path) // destination order
		}
		got, err = c.FilesNamed(k.ID, []string{"no such file.dng"})
		require.NoError(t, err)
		require.Empty(t, got)
	})
}

// FilesAfter pages through a card's files in the byte order of their
// paths (a folder's files after a sibling whose name sorts before "/"),
// each page as Files gives it, copies included; the pages together are
// the card's files, each once.
func TestFilesAfterPagesTheCard(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		findFixture(t, c)
		cards, err := c.Cards(1)
		require.NoError(t, err)
		k := cards[0]
		c.PutFile(&File{CardID: k.ID, Rel: "a-b", Size: 1, State: "verified"})
		c.PutFile(&File{CardID: k.ID, Rel: "a/x", Size: 1, State: "verified"})
		c.PutFile(&File{CardID: k.ID, Rel: "é/ü 1.mov", Size: 1, State: "verified"})
		want, err := c.Files(k.ID)
		require.NoError(t, err)
		var got []*File
		for after := ""; ; {
			page, err := c.FilesAfter(k.ID, after, 7)
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			require.LessOrEqual(t, len(page), 7)
			got = append(got, page...)
			after = page[len(page)-1].Rel
		}
		require.Equal(t, want, got)
		i := slices.IndexFunc(got, func(f *File) bool { return f.Rel == "a-b" })
		require.Equal(t, "a/x", got[i+1].Rel, "byte order: '-' before '/'")
	})
}
