package offload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
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

// dit serve reads the raw samples from the catalog: replayed, they give
// the rate the engine's progress events showed.
func TestSmoothedRateFromSamples(t *testing.T) {
	var s smoothRate
	var samples []catalog.Sample
	var want float64
	for i, raw := range []float64{0, 38e6, 38e6, 0.3e6, 38e6, 20e6} {
		dt := 1.0
		if i == 1 {
			dt = 0.4 // the card started within the tick
		}
		want = s.add(raw, dt)
		samples = append(samples, catalog.Sample{Rate: raw, Seconds: dt, Phase: "copy"})
	}
	require.Equal(t, want, SmoothedRate(samples))
	require.Zero(t, SmoothedRate(nil))
}
