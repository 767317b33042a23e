package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FailCopy withdraws one copy and its file; FailedFiles counts it;
// DropStrayCopies removes only the rows of a card on the other run's
// destinations of a cascade.
func TestWithdrawAndStrayCopies(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c, err := Open(b.loc(t))
		require.NoError(t, err)
		defer c.Close()
		j := &Job{Name: "day01", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", Started: time.Now()}
		require.NoError(t, c.CreateJob(j))
		d1, d2 := &Dest{JobID: j.ID, Path: "/raid"}, &Dest{JobID: j.ID, Seq: 1, Path: "/shuttle", Hop: 2}
		require.NoError(t, c.AddDest(d1))
		require.NoError(t, c.AddDest(d2))
		k1 := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified", Files: 1}
		require.NoError(t, c.AddCard(k1))
		k2 := &Card{JobID: j.ID, Seq: 1, Label: "A001", Path: "/raid/day01/A001", State: "verified", Files: 1, Hop: 2, FromCard: k1.ID}
		require.NoError(t, c.AddCard(k2))
		for _, k := range []*Card{k1, k2} {
			c.PutFile(&File{CardID: k.ID, Rel: "C001.mov", Size: 10, State: "verified", Mtime: time.Now()})
			for _, d := range []*Dest{d1, d2} {
				c.PutCopy(k.ID, "C001.mov", &Copy{DestID: d.ID, Path: "day01/A001/C001.mov", State: "verified", VerifiedAt: time.Now()})
			}
		}
		require.NoError(t, c.DropStrayCopies(j.ID))
		for _, x := range []struct {
			k *Card
			d *Dest
		}{{k1, d1}, {k2, d2}} {
			files, err := c.Files(x.k.ID)
			require.NoError(t, err)
			require.Len(t, files[0].Copies, 1)
			require.Equal(t, x.d.ID, files[0].Copies[0].DestID)
		}
		n, err := c.FailedFiles(j.ID)
		require.NoError(t, err)
		require.Empty(t, n)
		c.FailCopy(k1.ID, "C001.mov", d1.ID, "the copy differs")
		n, err = c.FailedFiles(j.ID)
		require.NoError(t, err)
		require.Equal(t, map[int64]int{k1.ID: 1}, n)
		files, err := c.Files(k1.ID)
		require.NoError(t, err)
		require.Equal(t, "failed", files[0].State)
		require.Equal(t, "the copy differs", files[0].Error)
		require.Equal(t, "failed", files[0].Copies[0].State)
		require.True(t, files[0].Copies[0].VerifiedAt.IsZero())
	})
}
