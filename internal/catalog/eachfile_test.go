package catalog

import (
	"fmt"
	"testing"

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
