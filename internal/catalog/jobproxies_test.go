package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A job's proxies (--proxies, --proxies-to) round-trip on both backends
// and go with a push to a shared catalog; a job recorded before version
// 18 reads as not having recorded them, and stays so when pushed.
func TestJobProxies(t *testing.T) { eachBackend(t, testJobProxies) }

func testJobProxies(t *testing.T, b backend) {
	p := b.loc(t)
	old, err := openAt(p, 17)
	require.NoError(t, err)
	_, err = old.Exec(`INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,started,uuid)
		VALUES ('day01','interrupted','h','v0',0,'md5,xxh64','dest','fastest','{job}/{card}','fail',0,'2026-01-02T03:04:05.000000006Z','u-day01')`)
	require.NoError(t, err)
	require.NoError(t, old.Close())

	c := open(t, p)
	jobs, err := c.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.True(t, jobs[0].ProxiesUnrecorded, "a job of version 17 did not record its proxies")
	require.Empty(t, jobs[0].Proxies)
	require.Empty(t, jobs[0].ProxiesTo)

	newJob := func(name, proxies string, to ...string) *Job {
		j := &Job{Name: name, State: JobInterrupted, Hashes: "md5", VerifyMode: "dest", VerifyHashes: "fastest",
			Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now(), Proxies: proxies, ProxiesTo: to}
		require.NoError(t, c.CreateJob(j))
		return j
	}
	with := newJob("day02", "prores-proxy,burnin", "/raid/day02", "/shuttle 2/day02")
	without := newJob("day03", "")
	got, err := c.Job(with.ID)
	require.NoError(t, err)
	require.Equal(t, "prores-proxy,burnin", got.Proxies)
	require.Equal(t, []string{"/raid/day02", "/shuttle 2/day02"}, got.ProxiesTo)
	require.False(t, got.ProxiesUnrecorded)
	got, err = c.Job(without.ID)
	require.NoError(t, err)
	require.Empty(t, got.Proxies)
	require.Empty(t, got.ProxiesTo)
	require.False(t, got.ProxiesUnrecorded, "no proxies is recorded too")

	shared := open(t, b.loc(t))
	for _, j := range []int64{jobs[0].ID, with.ID, without.ID} {
		want, err := c.Job(j)
		require.NoError(t, err)
		r, err := c.PushJob(j, shared)
		require.NoError(t, err)
		there, err := shared.Job(r.ID)
		require.NoError(t, err)
		require.Equal(t, want.Proxies, there.Proxies, want.Name)
		require.Equal(t, want.ProxiesTo, there.ProxiesTo, want.Name)
		require.Equal(t, want.ProxiesUnrecorded, there.ProxiesUnrecorded, want.Name)
	}
}
