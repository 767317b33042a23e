package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestArraysSeen(t *testing.T) { eachBackend(t, testArraysSeen) }

// The arrays a catalog saw: by the identity of a destination's verified
// copies, by a costs row (its job here or deleted), by a speed test;
// a folder, a cloud remote and a destination with no identity yet are
// not arrays; each array, folder and job once, newest first.
func testArraysSeen(t *testing.T, b backend) {
	c := open(t, b.loc(t))
	got, err := c.ArraysSeen()
	require.NoError(t, err)
	require.Empty(t, got, "an empty catalog")

	day := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	const arrA, arrB, arrC = "8f2c1e9a-1111-4000-8000-00000000000a", "8f2c1e9a-2222-4000-8000-00000000000b", "8f2c1e9a-3333-4000-8000-00000000000c"
	type dest struct{ path, identity string }
	job := func(name string, started time.Time, dests ...dest) *Job {
		j := &Job{Name: name, State: JobDone, Hashes: "xxh64", VerifyMode: "dest", Started: started}
		require.NoError(t, c.CreateJob(j))
		k := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified"}
		require.NoError(t, c.AddCard(k))
		for i, dd := range dests {
			d := &Dest{JobID: j.ID, Seq: i, Path: dd.path}
			require.NoError(t, c.AddDest(d))
			// A copy not verified yet (no identity) before one that is.
			for n, id := range []string{"", dd.identity} {
				rel := []string{"A.mov", "B.mov"}[n]
				c.PutFile(&File{CardID: k.ID, Rel: rel, Size: 3, Mtime: started, State: "verified"})
				c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: name + "/" + rel, State: "verified", Identity: id})
			}
		}
		return j
	}
	j1 := job("day01", day,
		dest{"/media/SHUTTLE1/blade1", "array:" + arrA + ":f1:1:3:17:00aa"},
		dest{"/media/RAID", "2049:123:3:17:18"},
		dest{"rclone:s3:shots", ""})
	old := job("day00", day.Add(-24*time.Hour), dest{"/media/old", ""}) // recorded before identities
	j2 := job("day02", day.Add(24*time.Hour), dest{"/lab/blade1", "array:" + arrA + ":f9:1:3:17:00bb"})
	// The finished jobs' costs: day02's again (one sighting), and one of
	// a job deleted since on another array.
	for _, k := range []*Costs{
		{Volume: "array:" + arrA, Kind: "array", Path: "/lab/blade1", T: day.Add(25 * time.Hour), JobUUID: j2.UUID, Card: "A001"},
		{Volume: "array:" + arrB, Kind: "array", Path: "/media/B/blade2", T: day.Add(-48 * time.Hour), JobUUID: "deleted-job", Card: "C001"},
		{Volume: "fs-uuid:1234", Kind: "folder", Path: "/media/RAID", T: day, JobUUID: j1.UUID, Card: "A001"},
	} {
		require.NoError(t, c.AddCosts(k))
	}
	// Two speed tests of array C through one blade: its newest.
	for i := range 2 {
		require.NoError(t, c.AddSpeedTest(&SpeedTest{Volume: "array:" + arrC, Kind: "array", Path: "/media/C/b1", T: day.Add(time.Duration(i) * time.Hour)}))
	}
	require.NoError(t, c.AddSpeedTest(&SpeedTest{Volume: "fs-uuid:1234", Kind: "folder", Path: "/media/RAID", T: day}))

	got, err = c.ArraysSeen()
	require.NoError(t, err)
	for i := range got {
		got[i].T = got[i].T.UTC()
	}
	require.Equal(t, []ArraySeen{
		{UUID: arrA, Path: "/lab/blade1", JobID: j2.ID, T: day.Add(24 * time.Hour)},
		{UUID: arrC, Path: "/media/C/b1", T: day.Add(time.Hour)},
		{UUID: arrA, Path: "/media/SHUTTLE1/blade1", JobID: j1.ID, T: day},
		{UUID: arrB, Path: "/media/B/blade2", T: day.Add(-48 * time.Hour)},
	}, got)
	require.NotZero(t, old.ID)
}

func TestArrayUUIDOf(t *testing.T) {
	for in, want := range map[string]string{
		"array:u-1:f:1:2:3:ab": "u-1",
		"array:u-2":            "u-2",
		"2049:123:3:17:18":     "",
		"":                     "",
		"fs-uuid:array:x":      "",
	} {
		require.Equal(t, want, arrayUUIDOf(in), in)
	}
}
