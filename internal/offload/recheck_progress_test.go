package offload

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
)

// RecheckWith reports how far it is: copies and bytes, growing to the
// totals; the results are those of Recheck.
func TestRecheckProgress(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"a.mov": bigContent(300<<10, 1), "b.mov": bigContent(5, 2), "c/d.wav": bigContent(70<<10, 3)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s, err := e.run(e.opts([]string{card}, []string{d1, d2}))
	require.NoError(t, err)
	var seen []RecheckProgress
	var results []RecheckResult
	// A virtual clock: each report is half a second after the last.
	clock := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ok, err := RecheckWith(context.Background(), e.cat, nil, s.JobID, RecheckOptions{
		OnResult:   func(r RecheckResult) { results = append(results, r) },
		OnProgress: func(p RecheckProgress) { seen = append(seen, p) },
		Now: func() time.Time {
			clock = clock.Add(500 * time.Millisecond)
			return clock
		},
	})
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, results, 6)
	want := int64(2 * (300<<10 + 5 + 70<<10))
	require.NotEmpty(t, seen)
	counts := func(p RecheckProgress) RecheckProgress { p.Rate, p.ETA = 0, live.Estimate{}; return p }
	require.Equal(t, RecheckProgress{Copies: 6, Bytes: want}, seen[0])
	require.Equal(t, RecheckProgress{Copies: 6, CopiesDone: 6, Bytes: want, BytesRead: want}, counts(seen[len(seen)-1]))
	require.Equal(t, live.In(0), seen[len(seen)-1].ETA, "all read back")
	rated := false
	for i := 1; i < len(seen); i++ {
		require.GreaterOrEqual(t, seen[i].BytesRead, seen[i-1].BytesRead)
		require.GreaterOrEqual(t, seen[i].CopiesDone, seen[i-1].CopiesDone)
		// The engine's rate and estimate: an estimate once a rate is
		// measured, none before.
		require.Equal(t, seen[i].Rate > 0 || seen[i].BytesRead == want, seen[i].ETA.Known, "report %d: %+v", i, seen[i])
		rated = rated || seen[i].Rate > 0
	}
	require.True(t, rated, "a rate is measured")
	ok, err = Recheck(context.Background(), e.cat, nil, s.JobID, true, func(RecheckResult) {})
	require.NoError(t, err)
	require.True(t, ok)
}
