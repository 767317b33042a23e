package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPlansAndCPUBench(t *testing.T) { eachBackend(t, testPlansAndCPUBench) }

func testPlansAndCPUBench(t *testing.T, b backend) {
	c, err := Open(b.loc(t))
	require.NoError(t, err)
	defer c.Close()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	j := &Job{Name: "day01", State: JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: now}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "pending"}
	require.NoError(t, c.AddCard(k))

	eta := 166.5
	p0 := &Plan{JobID: j.ID, T: now, Reason: "start", Simulated: true, Scale: 0.05, Total: 0.9e9, Bottleneck: "dest raid",
		Detail: `{"cards":[]}`, RunDetail: `{"run":[]}`, Cards: []PlanCard{{Name: "A001", CardID: k.ID, Rate: 0.3e9, LimitedBy: "dest:raid", ETASeconds: &eta},
			{Name: "A002", Rate: 0.3e9, LimitedBy: "dest:raid"}}}
	require.NoError(t, c.AddPlan(p0))
	p1 := &Plan{JobID: j.ID, T: now.Add(time.Minute), Reason: "A003 copied", Total: 0.9e9, Cards: []PlanCard{{Name: "A001", CardID: k.ID, Rate: 0.45e9, LimitedBy: "dest:raid"}}}
	require.NoError(t, c.AddPlan(p1))
	require.Equal(t, 0, p0.Seq)
	require.Equal(t, 1, p1.Seq)

	got, err := c.Plans(j.ID)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "start", got[0].Reason)
	require.True(t, got[0].Simulated)
	require.Equal(t, 0.05, got[0].Scale)
	require.Equal(t, now, got[0].T)
	require.Equal(t, `{"cards":[]}`, got[0].Detail)
	require.Equal(t, `{"run":[]}`, got[0].RunDetail)
	require.Empty(t, got[1].RunDetail)
	require.Len(t, got[0].Cards, 2)
	require.Equal(t, "A002", got[0].Cards[0].Name, "cards without a catalog id first, then by card")
	require.Nil(t, got[0].Cards[0].ETASeconds)
	require.Equal(t, 166.5, *got[0].Cards[1].ETASeconds)
	require.Equal(t, 1.0, got[1].Scale)
	require.Equal(t, 0.45e9, got[1].Cards[0].Rate)
	none, err := c.Plans(j.ID + 1)
	require.NoError(t, err)
	require.Empty(t, none)

	require.NoError(t, c.PutCPUBench("h", "linux/amd64", 2, map[string]float64{"md5": 0.7e9, "xxh64": 9e9}, now))
	rates, cores, err := c.CPUBench("h", "linux/amd64", now.Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, cores)
	require.Equal(t, map[string]float64{"md5": 0.7e9, "xxh64": 9e9}, rates)
	rates, _, err = c.CPUBench("h", "linux/amd64", now.Add(time.Hour))
	require.NoError(t, err)
	require.Empty(t, rates, "too old")
	rates, _, err = c.CPUBench("other", "linux/amd64", time.Time{})
	require.NoError(t, err)
	require.Empty(t, rates)
}
