package catalog

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNamesIndexedOnceATransaction: on SQLite a new file's name waits in
// file_names_pending until its transaction ends (migration 0024); after
// every commit the names index holds each file once and nothing waits, a
// name inserted and deleted within one transaction leaves nothing, and
// dit find finds what was written, over several of the writer's batches.
func TestNamesIndexedOnceATransaction(t *testing.T) {
	c := open(t, filepath.Join(t.TempDir(), "cat.db"))
	require.True(t, c.pendingNames)
	j := &Job{Name: "Day01", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Unix(1000, 0)}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A001", Path: "/media/A001", State: "verified"}
	require.NoError(t, c.AddCard(k))
	d := &Dest{JobID: j.ID, Path: "/Volumes/RAID"}
	require.NoError(t, c.AddDest(d))
	const n = 1234 // more than one batch of the writer (500)
	for i := 0; i < n; i++ {
		c.PutFile(&File{CardID: k.ID, Rel: fmt.Sprintf("A001C%03d/A001C%03d_F%07d.ari", i/100, i/100, i), Size: 1, State: "verified"})
		// A file's row written again (its state): no second name.
		rel := fmt.Sprintf("A001C%03d/A001C%03d_F%07d.ari", i/100, i/100, i)
		c.PutFile(&File{CardID: k.ID, Rel: rel, Size: 1, State: "verified"})
		c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: "Day01/A001/" + rel, State: "verified"})
	}
	// Inserted and deleted in one transaction: no name left.
	c.PutFile(&File{CardID: k.ID, Rel: "gone.mov", Size: 1, State: "verified"})
	c.Submit(`DELETE FROM files WHERE card_id=? AND rel_path=?`, k.ID, "gone.mov")
	require.NoError(t, c.Flush())

	count := func(q string) int {
		var v int
		require.NoError(t, c.db.QueryRow(q).Scan(&v))
		return v
	}
	require.Equal(t, n, count(`SELECT count(*) FROM file_names`))
	require.Equal(t, n, count(`SELECT count(DISTINCT rel_path) FROM file_names`))
	require.Zero(t, count(`SELECT count(*) FROM file_names_pending`))
	require.Zero(t, count(`SELECT count(*) FROM file_names WHERE rel_path LIKE '%gone%'`))

	found, _, err := c.Find("F0001233", 0, 10)
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, "A001C012/A001C012_F0001233.ari", found[0].Rel)
	found, _, err = c.Find("A001C005_", 0, 1000)
	require.NoError(t, err)
	require.Len(t, found, 100)
}
