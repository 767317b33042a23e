package jobreport

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// A destination's write and read-back rates are the destination's: two
// cards writing to it in the same second are one sample of their sum,
// not two samples of one card's rate each.
func TestDestinationRatesSumTheCardsOfEachSecond(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	j := &catalog.Job{Name: "d", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Path: "/mnt/raid"}
	require.NoError(t, cat.AddDest(d))
	var cards []*catalog.Card
	for i, l := range []string{"A001", "A002"} {
		k := &catalog.Card{JobID: j.ID, Seq: i, Label: l, Path: "/media/" + l, State: "verified"}
		require.NoError(t, cat.AddCard(k))
		cards = append(cards, k)
	}
	// Second 1: both cards write 40 MB/s; second 2: A001 alone, 40 MB/s;
	// second 3: A002 reads back 30 MB/s, A001 10 MB/s.
	for _, s := range []catalog.Sample{
		{CardID: cards[0].ID, DestID: d.ID, T: at(1), Rate: 40e6, Phase: "copy", Seconds: 1},
		{CardID: cards[1].ID, DestID: d.ID, T: at(1), Rate: 40e6, Phase: "copy", Seconds: 1},
		{CardID: cards[0].ID, DestID: d.ID, T: at(2), Rate: 40e6, Phase: "copy", Seconds: 1},
		{CardID: cards[1].ID, DestID: d.ID, T: at(3), Rate: 30e6, Phase: "verify", Seconds: 1},
		{CardID: cards[0].ID, DestID: d.ID, T: at(3), Rate: 10e6, Phase: "verify", Seconds: 1},
	} {
		cat.PutSample(j.ID, s)
	}
	run, err := cat.StartRun(j.ID, at(0))
	require.NoError(t, err)
	require.NoError(t, cat.EndRun(j.ID, run, at(3)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(3), ""))
	r, err := Build(cat, j.ID, Options{})
	require.NoError(t, err)
	require.Len(t, r.Destinations, 1)
	w := r.Destinations[0].WriteRate
	require.Equal(t, Rate{Samples: 2, Mean: 60e6, Min: 40e6, Max: 80e6, P95: 80e6}, w)
	rb := r.Destinations[0].ReadBackRate
	require.Equal(t, Rate{Samples: 1, Mean: 40e6, Min: 40e6, Max: 40e6, P95: 40e6}, rb)
	// Each card's own rate to the destination stays its own.
	require.Equal(t, 40e6, r.Cards[1].Destinations[0].WriteRate.Max)
}
