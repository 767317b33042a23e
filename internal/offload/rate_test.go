package offload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 26 item 6: a brief stall, then the full rate again, moves the ETA
// gradually: never by an order of magnitude in a second, and it settles
// back to the steady rate.
func TestSmoothedRateETAStepChange(t *testing.T) {
	const rest = 1.6e9 // bytes left
	var s smoothRate
	eta := func(r float64) float64 { return rest / r }
	var prev float64
	raws := []float64{38e6, 38e6, 38e6, 38e6, 38e6, 0.3e6, 0.3e6, 38e6, 38e6, 38e6}
	for i, raw := range raws {
		r := s.add(raw, 1)
		require.Greater(t, r, 0.0)
		e := eta(r)
		if i > 0 {
			require.Less(t, e/prev, 1.5, "second %d: the ETA jumped from %.0fs to %.0fs", i, prev, e)
			require.Greater(t, e/prev, 1/1.5, "second %d: the ETA dropped from %.0fs to %.0fs", i, prev, e)
		}
		prev = e
	}
	// The raw rates would have given an ETA of 1h28m for those two
	// seconds; the smoothed one stays near the steady 42 s.
	require.Less(t, prev, 60.0)
	// A sustained change is followed: after 5 time constants the rate is
	// within 2% of the new one.
	for range int(5 * RateTau) {
		s.add(10e6, 1)
	}
	require.InDelta(t, 10e6, s.v, 0.02*10e6)
	// A phase's start (nothing moved yet) does not seed the rate.
	var v smoothRate
	require.Zero(t, v.add(0, 1))
	require.Equal(t, 50e6, v.add(50e6, 1))
	require.False(t, math.IsNaN(v.add(math.NaN(), 1)))
}
