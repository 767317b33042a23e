package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The reference cascade: two CFast cards (0.55 GB/s each, 11 GB) to a
// 2.2 GB/s array, then from the array to two 0.5 GB/s shuttles. Each card
// is free when its first run is copied (11 GB / 0.55 GB/s = 20 s); one
// second run at a time (--then-parallel 1) goes at the shuttles' 0.5 GB/s:
// the first card is safe at 20 + 22 = 42 s, the second waits for it and is
// safe at 42 + 22 = 64 s; the shuttles are named as the bottleneck.
func TestCascadeTimes(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, media: cfast2, size: 11GB}
  - {name: A002, media: cfast2, size: 11GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: s1, write_rate: 0.5GB/s, read_rate: 0.5GB/s, run: 2}
  - {name: s2, write_rate: 0.5GB/s, read_rate: 0.5GB/s, run: 2}
`)
	for _, tc := range []struct {
		parallel     int
		safe1, safe2 float64
	}{
		{1, 42, 64},
		// Both second runs at once share the shuttles: 0.25 GB/s each.
		{2, 64, 64},
	} {
		res, err := Plan(top, Options{ThenParallel: tc.parallel})
		require.NoError(t, err)
		for _, c := range res.Cards {
			near(t, 0.55*GB, c.Rate, "first run at the card's speed: the shuttles do not slow it")
			require.NotNil(t, c.FreeSeconds)
			near(t, 20, *c.FreeSeconds, c.Name)
		}
		near(t, tc.safe1, *res.Cards[0].SafeSeconds, "A001 safe, parallel %d", tc.parallel)
		near(t, tc.safe2, *res.Cards[1].SafeSeconds, "A002 safe, parallel %d", tc.parallel)
		near(t, 0.5*GB/float64(tc.parallel), res.Cards[0].SecondRate)
		require.Equal(t, "dest:s1", res.Cards[0].SecondLimitedBy[:len("dest:s1")])
		c := res.Cascade
		require.NotNil(t, c)
		near(t, 20, *c.LastFreeSeconds)
		near(t, 64, *c.LastSafeSeconds)
		require.Contains(t, c.Bottleneck, "shuttles limit")
		require.True(t, strings.Contains(c.Bottleneck, "44s") || strings.Contains(c.Bottleneck, "44 s"), c.Bottleneck)
	}
}

// The second run of a card that is free early overlaps the first run of a
// bigger card: the array is written by one and read by the other, and
// both budgets are shared: an array that reads at 0.3 GB/s holds the
// second run to 0.3 GB/s, below the shuttle's 0.5 GB/s, and says so.
func TestCascadeOverlapSharesTheArray(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, media: cfast2, size: 5.5GB}
  - {name: A002, media: cfast2, size: 11GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 0.3GB/s}
  - {name: s1, write_rate: 0.5GB/s, run: 2}
`)
	res, err := Plan(top, Options{})
	require.NoError(t, err)
	near(t, 10, *res.Cards[0].FreeSeconds)
	near(t, 20, *res.Cards[1].FreeSeconds, "A002's first run is not slowed by A001's second")
	near(t, 0.3*GB, res.Cards[0].SecondRate, "the array's reads bound the second run")
	require.Equal(t, "dest:raid", res.Cards[0].SecondLimitedBy)
	c := res.Cascade
	near(t, 0.55*GB, c.OverlapWrite, "the array writes A002's first copy...")
	near(t, 0.3*GB, c.OverlapRead, "...while A001's second run reads it")
	near(t, 0.3*GB, c.ReadCapacity)
	// A001: 10 + 5.5/0.3 = 28.33 s; A002 waits for it: 28.33 + 11/0.3.
	near(t, 10+5.5/0.3, *res.Cards[0].SafeSeconds)
	near(t, 10+5.5/0.3+11/0.3, *res.Cards[1].SafeSeconds)
}

// run: must be 1 or 2.
func TestCascadeRunKey(t *testing.T) {
	_, err := ParseTopology("t.yaml", []byte("destinations:\n  - {name: s1, run: 3}\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "run must be 1")
	require.Contains(t, err.Error(), "t.yaml")
}
