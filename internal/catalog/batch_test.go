package catalog

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A frame's rows written copied and then verified in one batch are one
// upsert each in it, and the catalog ends as if every write had been
// applied one by one: the rows' last values, the card's totals, and a
// statement between two upserts of a row (a copy failed, then verified
// again) applied in its place, not skipped over.
func TestRowUpsertsFoldedInABatch(t *testing.T) {
	var b batch
	f := &File{CardID: 1, Rel: "A/F0001.dng", State: "copied"}
	q, args := fileUpsert(f)
	b.add(op{query: q, args: args, key: fileKey(1, f.Rel)})
	cq, cargs := copyUpsert(1, f.Rel, &Copy{DestID: 2, State: "copied"})
	b.add(op{query: cq, args: cargs, key: copyKey(1, f.Rel, 2)})
	cq, cargs = copyUpsert(1, f.Rel, &Copy{DestID: 2, State: "verified"})
	b.add(op{query: cq, args: cargs, key: copyKey(1, f.Rel, 2)})
	f.State = "verified"
	q, args = fileUpsert(f)
	b.add(op{query: q, args: args, key: fileKey(1, f.Rel)})
	require.Len(t, b.ops, 2, "one upsert a row")
	require.Equal(t, "verified", b.ops[0].args[4])
	require.Equal(t, "verified", b.ops[1].args[4])
	b.add(op{query: `DELETE FROM partials WHERE card_id=? AND rel_path=?`, args: []any{1, f.Rel}})
	b.add(op{query: q, args: args, key: fileKey(1, f.Rel)})
	require.Len(t, b.ops, 4, "not folded across another statement")

	eachBackend(t, func(t *testing.T, be backend) {
		c := open(t, be.loc(t))
		host, _ := os.Hostname()
		j := &Job{Name: "j", State: JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
			VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
		require.NoError(t, c.CreateJob(j))
		d := &Dest{JobID: j.ID, Seq: 0, Path: "/d0"}
		require.NoError(t, c.AddDest(d))
		k := &Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/c", State: "copying"}
		require.NoError(t, c.AddCard(k))
		const n = 300
		for i := range n {
			f := &File{CardID: k.ID, Rel: fmt.Sprintf("A/F%04d.dng", i), Size: int64(512 + i), State: "copied", Mtime: time.Unix(int64(1000+i), 0)}
			c.PutFile(f)
			c.PutCopy(k.ID, f.Rel, &Copy{DestID: d.ID, Path: f.Rel, State: "copied", Written: true})
			if i%3 == 0 {
				// Failed, then verified again: verified.
				c.FailCopy(k.ID, f.Rel, d.ID, "differs")
			}
			c.PutCopy(k.ID, f.Rel, &Copy{DestID: d.ID, Path: f.Rel, State: "verified", Written: true, VerifyAlgos: "xxh64"})
			f.State = "verified"
			c.PutFile(f)
			if i%5 == 0 {
				// Verified, then failed: failed.
				c.FailCopy(k.ID, f.Rel, d.ID, "gone")
			}
		}
		require.NoError(t, c.Flush())
		files, err := c.Files(k.ID)
		require.NoError(t, err)
		require.Len(t, files, n)
		for i, f := range files {
			require.Equal(t, fmt.Sprintf("A/F%04d.dng", i), f.Rel)
			require.Equal(t, int64(512+i), f.Size)
			require.Len(t, f.Copies, 1)
			if i%5 == 0 {
				require.Equal(t, "failed", f.State, f.Rel)
				require.Equal(t, "failed", f.Copies[0].State, f.Rel)
				require.Equal(t, "gone", f.Copies[0].Error, f.Rel)
				continue
			}
			require.Equal(t, "verified", f.State, f.Rel)
			require.Equal(t, "verified", f.Copies[0].State, f.Rel)
			require.Equal(t, "xxh64", f.Copies[0].VerifyAlgos, f.Rel)
			require.Empty(t, f.Copies[0].Error, f.Rel)
		}
		require.Equal(t, recount(t, c, j.ID), fromTotals(t, c, j.ID))
	})
}
