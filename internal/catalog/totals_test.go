package catalog

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recount is what card_totals must hold: the card's rows counted now.
func recount(t *testing.T, c *Catalog, jobID int64) string {
	t.Helper()
	rows, err := c.Query(`SELECT card_id, 0, state, count(*), SUM(size) + 1000000 * SUM(mtime_ns / 1000000000) FROM files WHERE card_id IN (SELECT id FROM cards WHERE job_id=?) GROUP BY card_id, state
		UNION ALL SELECT card_id, dest_id, state, count(*), 0 FROM copies WHERE card_id IN (SELECT id FROM cards WHERE job_id=?) GROUP BY card_id, dest_id, state
		ORDER BY 1, 2, 3`, jobID, jobID)
	require.NoError(t, err)
	defer rows.Close()
	var out string
	for rows.Next() {
		var card, dest, n, bytes int64
		var st string
		require.NoError(t, rows.Scan(&card, &dest, &st, &n, &bytes))
		out += fmt.Sprintf("%d/%d/%s=%d,%d ", card, dest, st, n, bytes)
	}
	return out
}

// fromTotals is JobTotals in recount's form.
func fromTotals(t *testing.T, c *Catalog, jobID int64) string {
	t.Helper()
	tot, err := c.JobTotals(jobID)
	require.NoError(t, err)
	rows, err := c.Query(`SELECT id FROM cards WHERE job_id=? ORDER BY id`, jobID)
	require.NoError(t, err)
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	rows.Close()
	var out string
	for _, id := range ids {
		ct := tot[id]
		if ct == nil {
			continue
		}
		for _, st := range []string{"copied", "failed", "pending", "present", "skipped", "verified"} {
			if n := ct.Files[st]; n != 0 {
				out += fmt.Sprintf("%d/0/%s=%d,%d ", id, st, n, ct.Bytes[st]+1000000*mtimeOf(t, c, id, st))
			}
		}
		for d := int64(1); d < 10; d++ {
			for _, st := range []string{"copied", "failed", "pending", "present", "skipped", "verified"} {
				if n := ct.Copies[d][st]; n != 0 {
					out += fmt.Sprintf("%d/%d/%s=%d,0 ", id, d, st, n)
				}
			}
		}
	}
	return out
}

// The per-card totals follow every write the engine, dit verify and a
// deletion make: inserts, upserts that change a state or a size, copies
// withdrawn (FailCopy), a job deleted; in the writer's batches.
func TestCardTotalsFollowWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		host, _ := os.Hostname()
		j := &Job{Name: "j", State: JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
			VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
		require.NoError(t, c.CreateJob(j))
		var dests []*Dest
		for i := 0; i < 2; i++ {
			d := &Dest{JobID: j.ID, Seq: i, Path: fmt.Sprintf("/d%d", i)}
			require.NoError(t, c.AddDest(d))
			dests = append(dests, d)
		}
		var cards []*Card
		for i := 0; i < 2; i++ {
			k := &Card{JobID: j.ID, Seq: i, Label: fmt.Sprintf("A%03d", i), Path: "/c", State: "copying"}
			require.NoError(t, c.AddCard(k))
			cards = append(cards, k)
		}
		for _, k := range cards {
			for i := 0; i < 700; i++ { // more than a batch
				f := &File{CardID: k.ID, Rel: fmt.Sprintf("f%04d", i), Size: int64(100 + i), State: "pending"}
				c.PutFile(f)
				for _, d := range dests {
					c.PutCopy(k.ID, f.Rel, &Copy{DestID: d.ID, Path: f.Rel, State: "pending"})
				}
			}
		}
		require.Equal(t, recount(t, c, j.ID), fromTotals(t, c, j.ID))
		for _, k := range cards {
			for i := 0; i < 700; i += 2 {
				f := &File{CardID: k.ID, Rel: fmt.Sprintf("f%04d", i), Size: int64(200 + i), State: "verified", Mtime: time.Unix(int64(1000*i), 0)}
				c.PutFile(f)
				c.PutFile(f) // the same again: nothing changes
				for _, d := range dests {
					c.PutCopy(k.ID, f.Rel, &Copy{DestID: d.ID, Path: f.Rel, State: []string{"copied", "verified"}[i%4/2]})
				}
			}
		}
		c.FailCopy(cards[0].ID, "f0004", dests[1].ID, "differs")
		c.FailCopy(cards[0].ID, "f0004", dests[1].ID, "differs")
		require.Equal(t, recount(t, c, j.ID), fromTotals(t, c, j.ID))
		tot, err := c.JobTotals(j.ID)
		require.NoError(t, err)
		require.Equal(t, 700, tot[cards[0].ID].NFiles())
		require.Equal(t, 1, tot[cards[0].ID].Files["failed"])
		require.Equal(t, 700, tot[cards[1].ID].NCopies(dests[0].ID))
		failed, err := c.FailedFileList(cards[0].ID)
		require.NoError(t, err)
		require.Equal(t, []File{{CardID: cards[0].ID, Rel: "f0004", State: "failed", Error: "differs"}}, failed)
		require.NoError(t, c.DeleteJob(j.ID))
		var left int
		require.NoError(t, c.db.QueryRow(`SELECT count(*) FROM card_totals`).Scan(&left))
		require.Zero(t, left)
	})
}

// A catalog written before version 12 gets its totals from the rows
// already there when it is opened by this dit.
func TestCardTotalsBackfilled(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		loc := b.loc(t)
		old, err := openAt(loc, 11)
		require.NoError(t, err)
		j := &Job{Name: "old", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
			Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
		// The jobs row as version 11 had it (CreateJob writes columns of
		// later versions).
		j.ID, err = old.db.insertID(old.db, `INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,mhl,ignore,started,then_parallel,station,uuid)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, j.Name, j.State, "", "", 0, j.Hashes, j.VerifyMode, j.VerifyHashes, j.Layout, j.OnConflict,
			false, "asc", "", Time(j.Started), 1, "", newUUID())
		require.NoError(t, err)
		d := &Dest{JobID: j.ID, Path: "/d"}
		require.NoError(t, old.AddDest(d))
		k := &Card{JobID: j.ID, Label: "A001", Path: "/c", State: "verified"}
		require.NoError(t, old.AddCard(k))
		for i := 0; i < 30; i++ {
			st := []string{"verified", "failed", "copied"}[i%3]
			old.PutFile(&File{CardID: k.ID, Rel: fmt.Sprintf("f%02d", i), Size: int64(i), State: st, Mtime: time.Unix(int64(i*i), 5)})
			// The copies row as version 11 had it.
			old.Submit(`INSERT INTO copies (card_id,rel_path,dest_id,path,state,written,verify_algos,verified_at,error) VALUES (?,?,?,?,?,?,?,?,?)`,
				k.ID, fmt.Sprintf("f%02d", i), d.ID, "x", st, false, "", nil, "")
		}
		require.NoError(t, old.Close())
		c := open(t, loc)
		require.Equal(t, recount(t, c, j.ID), fromTotals(t, c, j.ID))
		tot, err := c.JobTotals(j.ID)
		require.NoError(t, err)
		require.Equal(t, 10, tot[k.ID].Files["failed"])
		require.Equal(t, 30, tot[k.ID].NFiles())
		require.Equal(t, int64(8555), tot[k.ID].MtimeS) // the sum of i*i, 0..29
	})
}

// mtimeOf is card_totals' mtime_s of one card and file state.
func mtimeOf(t *testing.T, c *Catalog, card int64, state string) int64 {
	var m int64
	require.NoError(t, c.db.QueryRow(`SELECT mtime_s FROM card_totals WHERE card_id=? AND dest_id=0 AND state=?`, card, state).Scan(&m))
	return m
}
