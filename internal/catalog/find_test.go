package catalog

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// findFixture records two jobs (the second renames copies on a
// conflict) of two cards of frame files on two destinations.
func findFixture(t *testing.T, c *Catalog) {
	host, _ := os.Hostname()
	for jn, conflict := range []string{"fail", "rename"} {
		j := &Job{Name: fmt.Sprintf("Day%02d", jn+1), State: JobDone, Host: host, Hashes: "xxh64", VerifyMode: "dest",
			VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: conflict, Started: time.Unix(int64(1000*(2-jn)), 0)}
		require.NoError(t, c.CreateJob(j))
		var dests []*Dest
		for i := 0; i < 2; i++ {
			d := &Dest{JobID: j.ID, Seq: i, Path: fmt.Sprintf("/Volumes/RAID%d", i)}
			require.NoError(t, c.AddDest(d))
			dests = append(dests, d)
		}
		for kn := 0; kn < 2; kn++ {
			label := fmt.Sprintf("B%d%02d", jn, kn)
			k := &Card{JobID: j.ID, Seq: kn, Label: label, Path: "/media/" + label, State: "verified"}
			require.NoError(t, c.AddCard(k))
			for i := 0; i < 300; i++ {
				rel := fmt.Sprintf("%sC%03d/%sC%03d_F%07d.DNG", label, i/100, label, i/100, i)
				if i == 7 {
					rel = "odd 50%_name.MOV"
				}
				c.PutFile(&File{CardID: k.ID, Rel: rel, Size: int64(i), State: "verified"})
				for _, d := range dests {
					p := j.Name + "/" + label + "/" + rel
					if conflict == "rename" && i == 9 {
						p = strings.TrimSuffix(p, ".DNG") + " (2).DNG"
					}
					c.PutCopy(k.ID, rel, &Copy{DestID: d.ID, Path: p, State: "verified"})
				}
			}
		}
	}
	require.NoError(t, c.Flush())
}

// Find answers from the names index what reading every copy answers,
// page by page; what is not only a file name is read the long way.
// It runs no goroutines of its own: under the race detector (400 s on a
// 2-core machine, SQLite's Go code instrumented) it is left to make
// test's first stage, which runs it without.
func TestFindIndexedIsTheScan(t *testing.T) {
	if raceDetector {
		t.Skip("no concurrency here; make test runs it without the race detector")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		findFixture(t, c)
		if c.Postgres() {
			// pg_trgm is in the Debian package: its index is there.
			var n int
			require.NoError(t, c.db.QueryRow(`SELECT count(*) FROM pg_indexes WHERE indexname='files_rel_trgm'`).Scan(&n))
			require.Equal(t, 1, n, "the trigram index on files")
		}
		for _, tc := range []struct {
			q       string
			indexed bool
			n       int
		}{
			{"B001C001_F0000150.DNG", true, 2},
			{"b001c001_f00001", true, 100 * 2},
			{"_F00002", true, 4 * 100 * 2},
			{"50%_", true, 4 * 2},
			{"f0000008", true, 8},
			{"f0000009", true, 8}, // a renamed copy's path has it too, and its file
			{"(2)", false, 4},
			{"B100", false, 300 * 2},
			{"RAID1", false, 4 * 300},
			{"/media/B000/B000C000/", false, 99 * 2},
			{"Day02/B101", false, 300 * 2},
			{"nothing_like_it", true, 0},
		} {
			ql := strings.ToLower(tc.q)
			scan, err := c.findNeedsScan(ql)
			require.NoError(t, err)
			require.Equal(t, !tc.indexed, scan, tc.q)
			want, err := c.findScan(ql, 1<<30)
			require.NoError(t, err)
			require.Len(t, want, tc.n, tc.q)
			if len(want) > 0 {
				require.Contains(t, strings.ToLower(want[0].CardPath+"/"+want[0].Rel+" "+want[0].Path), ql)
			}
			if tc.indexed {
				got, err := c.findIndexed(ql, 1<<30)
				require.NoError(t, err)
				require.Equal(t, want, got, tc.q)
			}
			// Pages of 7; of 97 where the answer is hundreds (a page read
			// the long way scans the table: 170 pages of 7 of 1,200 files
			// took most of the test's time). Either way every page but
			// the last is full, and the last is short.
			size := 7
			if tc.n > 100 {
				size = 97
			}
			var pages []Found
			for off := 0; ; off += size {
				page, more, err := c.Find(tc.q, off, size)
				require.NoError(t, err)
				pages = append(pages, page...)
				require.Equal(t, off+size < tc.n, more, "%s at %d", tc.q, off)
				if !more {
					break
				}
			}
			require.Equal(t, want, append([]Found(nil), pages...), tc.q)
			all, more, err := c.Find(tc.q, 0, 0)
			require.NoError(t, err)
			require.Len(t, all, min(tc.n, FindLimit))
			require.Equal(t, tc.n > FindLimit, more)
		}
	})
}
