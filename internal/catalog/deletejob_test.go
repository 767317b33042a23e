package catalog

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A job refused before its first byte is deleted with everything under
// it; the other jobs stay. A resume with nothing to do is taken back
// (UndoRun): the job is as it was.
func TestDeleteJobAndUndoRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.loc(t))
		host, _ := os.Hostname()
		mk := func(name string) *Job {
			j := &Job{Name: name, State: JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
				VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
			require.NoError(t, c.CreateJob(j))
			d := &Dest{JobID: j.ID, Path: "/d/" + name, Hop: 1}
			require.NoError(t, c.AddDest(d))
			k := &Card{JobID: j.ID, Label: "A001", Path: "/c/" + name, State: "pending"}
			require.NoError(t, c.AddCard(k))
			c.PutFile(&File{CardID: k.ID, Rel: "a.mov", Size: 1, State: "pending", Copies: []Copy{{DestID: d.ID, Path: "a.mov", State: "pending"}}})
			c.PutSample(j.ID, Sample{CardID: k.ID, T: time.Now(), Bytes: 1, Rate: 1, Phase: "copy", Seconds: 1})
			_, err := c.StartRun(j.ID, time.Now())
			require.NoError(t, err)
			return j
		}
		keep, gone := mk("keep"), mk("gone")
		require.NoError(t, c.DeleteJob(gone.ID))
		_, err := c.Job(gone.ID)
		require.ErrorIs(t, err, ErrNoJob)
		jobs, err := c.Jobs()
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		require.Equal(t, keep.ID, jobs[0].ID)
		cards, err := c.Cards(keep.ID)
		require.NoError(t, err)
		require.Len(t, cards, 1)

		fin := time.Now().Add(-time.Hour).Truncate(time.Second)
		require.NoError(t, c.SetJobState(keep.ID, JobDone, fin, ""))
		before, err := c.Job(keep.ID)
		require.NoError(t, err)
		runs, err := c.Runs(keep.ID)
		require.NoError(t, err)
		require.NoError(t, c.ClaimJob(keep.ID, "elsewhere", 4242))
		seq, err := c.StartRun(keep.ID, time.Now())
		require.NoError(t, err)
		require.NoError(t, c.UndoRun(keep.ID, seq, before))
		after, err := c.Job(keep.ID)
		require.NoError(t, err)
		require.Equal(t, before, after)
		runs2, err := c.Runs(keep.ID)
		require.NoError(t, err)
		require.Equal(t, runs, runs2)
	})
}
