package catalog

import (
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
