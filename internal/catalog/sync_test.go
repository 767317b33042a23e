package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// fillJob records a job of two cards (the second one a cascade's second
// run of the first) with files, copies, a skip, samples, a run and a plan.
func fillJob(t *testing.T, c *Catalog, name string) *Job {
	t.Helper()
	now := time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)
	j := &Job{Name: name, State: JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: now, IncludeHidden: true,
		Proxies: "h264,burnin", ProxiesTo: []string{"/raid", "/shuttle"}}
	require.NoError(t, c.CreateJob(j))
	d1 := &Dest{JobID: j.ID, Seq: 0, Path: "/raid"}
	d2 := &Dest{JobID: j.ID, Seq: 1, Path: "/shuttle", Hop: 2}
	require.NoError(t, c.AddDest(d1))
	require.NoError(t, c.AddDest(d2))
	k1 := &Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/cards/A001", State: "verified", Bytes: 300, Files: 2}
	require.NoError(t, c.AddCard(k1))
	k2 := &Card{JobID: j.ID, Seq: 1, Label: "A001", Path: "/raid/A001", State: "verified", Hop: 2, FromCard: k1.ID, Bytes: 300, Files: 2}
	require.NoError(t, c.AddCard(k2))
	for i, rel := range []string{"A001C001.mov", "A001C002.mov"} {
		f := &File{CardID: k1.ID, Rel: rel, Size: int64(100 * (i + 1)), Mtime: now, State: "verified",
			Sums: hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(rel))}
		c.PutFile(f)
		c.PutCopy(k1.ID, rel, &Copy{DestID: d1.ID, Path: name + "/A001/" + rel, State: "verified", Written: true, VerifiedAt: now.Add(time.Minute)})
		f.CardID = k2.ID
		c.PutFile(f)
		c.PutCopy(k2.ID, rel, &Copy{DestID: d2.ID, Path: name + "/A001/" + rel, State: "verified", Written: true, VerifiedAt: now.Add(2 * time.Minute)})
	}
	c.PutSkipped(k1.ID, Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "Finder"})
	for i := 0; i < 3; i++ {
		c.PutSample(j.ID, Sample{CardID: k1.ID, T: now.Add(time.Duration(i) * time.Second), Bytes: int64(100 * i), Rate: 100, Phase: "copy", Seconds: 1})
	}
	c.PutSample(j.ID, Sample{CardID: k1.ID, DestID: d1.ID, T: now, Bytes: 300, Rate: 300, Phase: "verify", Seconds: 1})
	_, err := c.StartRun(j.ID, now)
	require.NoError(t, err)
	require.NoError(t, c.AddPlan(&Plan{JobID: j.ID, T: now, Reason: "start", Total: 1e9, Cards: []PlanCard{{Name: "A001", CardID: k1.ID, Rate: 1e9, LimitedBy: "media"}}}))
	require.NoError(t, c.Flush())
	return j
}

// snapshot is what a catalog holds of a job, without its ids.
type snapshot struct {
	Job     Job
	Cards   []Card
	Dests   []Dest
	Files   map[string][]File
	Samples []Sample
	Runs    []Run
	Plans   int
}

func snap(t *testing.T, c *Catalog, id int64) snapshot {
	t.Helper()
	j, err := c.Job(id)
	require.NoError(t, err)
	s := snapshot{Job: *j, Files: map[string][]File{}}
	s.Job.ID = 0
	ks, err := c.Cards(id)
	require.NoError(t, err)
	ds, err := c.Dests(id)
	require.NoError(t, err)
	seqOfDest := map[int64]int64{}
	for _, d := range ds {
		seqOfDest[d.ID] = int64(d.Seq)
		dd := *d
		dd.ID, dd.JobID = 0, 0
		s.Dests = append(s.Dests, dd)
	}
	seqOfCard := map[int64]int64{}
	for _, k := range ks {
		seqOfCard[k.ID] = int64(k.Seq)
	}
	for _, k := range ks {
		kk := *k
		kk.ID, kk.JobID, kk.FromCard = 0, 0, seqOfCard[k.FromCard]
		s.Cards = append(s.Cards, kk)
		fs, err := c.Files(k.ID)
		require.NoError(t, err)
		for _, f := range fs {
			ff := *f
			ff.CardID = 0
			for i := range ff.Copies {
				ff.Copies[i].DestID = seqOfDest[ff.Copies[i].DestID]
			}
			s.Files[k.Label+"/"+string(rune('0'+k.Seq))] = append(s.Files[k.Label+"/"+string(rune('0'+k.Seq))], ff)
		}
	}
	sm, err := c.Samples(id)
	require.NoError(t, err)
	for _, x := range sm {
		x.CardID, x.DestID = seqOfCard[x.CardID], seqOfDest[x.DestID]
		s.Samples = append(s.Samples, x)
	}
	s.Runs, err = c.Runs(id)
	require.NoError(t, err)
	ps, err := c.Plans(id)
	require.NoError(t, err)
	s.Plans = len(ps)
	return s
}

// A job pushed from a cart's catalog to the shared one arrives whole,
// with the cart's station; pushed again (ended) it is held once and left
// alone; a job pushed while running and again once done is updated in
// place.
func TestPushJobHeldOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		cart := open(t, b.loc(t))
		cart.SetStation("cart-b")
		shared := open(t, b.loc(t))
		shared.SetStation("lab")
		// The shared catalog has a job of its own already: ids differ.
		fillJob(t, shared, "lab-job")

		j := fillJob(t, cart, "day07")
		r, err := cart.PushJob(j.ID, shared)
		require.NoError(t, err)
		require.True(t, r.Created)
		require.NotEqual(t, j.ID, r.ID)
		require.Equal(t, 2, r.Cards)
		require.Equal(t, 4, r.Files)
		require.Equal(t, 4, r.Samples)

		// Still running on the cart: a second push updates in place.
		k := &Card{JobID: j.ID, Seq: 2, Label: "A002", Path: "/cards/A002", State: "verified", Bytes: 5, Files: 0}
		require.NoError(t, cart.AddCard(k))
		cart.PutSample(j.ID, Sample{CardID: k.ID, T: time.Now(), Bytes: 5, Rate: 5, Phase: "copy", Seconds: 1})
		require.NoError(t, cart.SetJobState(j.ID, JobDone, time.Date(2026, 5, 12, 10, 0, 0, 0, time.UTC), ""))
		r2, err := cart.PushJob(j.ID, shared)
		require.NoError(t, err)
		require.False(t, r2.Created)
		require.False(t, r2.Unchanged)
		require.Equal(t, r.ID, r2.ID)
		require.Equal(t, 1, r2.Samples, "only the new sample is added")

		// Ended and unchanged: a third push writes nothing.
		r3, err := cart.PushJob(j.ID, shared)
		require.NoError(t, err)
		require.True(t, r3.Unchanged)

		jobs, err := shared.Jobs()
		require.NoError(t, err)
		require.Len(t, jobs, 2, "the lab's job and the pushed one, once")
		want, got := snap(t, cart, j.ID), snap(t, shared, r.ID)
		require.Equal(t, "cart-b", got.Job.Station)
		require.Equal(t, JobDone, got.Job.State)
		require.Equal(t, want, got)

		// Push (every job) twice more: still once.
		_, err = cart.Push(shared)
		require.NoError(t, err)
		_, err = cart.Push(shared)
		require.NoError(t, err)
		jobs, err = shared.Jobs()
		require.NoError(t, err)
		require.Len(t, jobs, 2)
	})
}

// A job ended with a sync target configured is pushed at once; an
// unreachable target is reported, and the job stays on the cart.
func TestSyncOnJobEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		cart := open(t, b.loc(t))
		target := b.loc(t)
		type report struct {
			id  int64
			r   PushResult
			err error
		}
		var got []report
		cart.SyncOnJobEnd(target, func(id int64, r PushResult, err error) { got = append(got, report{id, r, err}) })
		j := fillJob(t, cart, "day08")
		require.Empty(t, got, "nothing pushed while running")
		require.NoError(t, cart.SetJobState(j.ID, JobDone, time.Now(), ""))
		require.Len(t, got, 1)
		require.NoError(t, got[0].err)
		require.True(t, got[0].r.Created)
		shared := open(t, target)
		jobs, err := shared.Jobs()
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		require.Equal(t, j.UUID, jobs[0].UUID)

		cart.SyncOnJobEnd("postgres://dit@127.0.0.1:1/nowhere?sslmode=disable", func(id int64, r PushResult, err error) { got = append(got, report{id, r, err}) })
		require.NoError(t, cart.SetJobState(j.ID, JobFailed, time.Now(), "x"))
		require.Len(t, got, 2)
		require.ErrorContains(t, got[1].err, "cannot reach the catalog server")
		require.ErrorContains(t, got[1].err, "127.0.0.1:1")
	})
}
