package offload

import (
	"math"

	"github.com/dit-org/dit/internal/catalog"
)

// RateTau is the time constant of the rates and ETAs that progress events
// carry: a rate is an exponentially weighted moving average of the
// per-second rates, each second weighing 1-exp(-1/RateTau), so a stall of
// a second or two moves the ETA by a fraction, not by orders of
// magnitude. The catalog's throughput samples stay raw (the reports'
// TB/hour are computed from them).
const RateTau = 8.0 // seconds

// smoothRate is one phase's smoothed rate (bytes/s).
type smoothRate struct {
	v    float64
	seen bool
}

// add takes the raw rate of an interval of dt seconds and returns the
// smoothed rate. The first interval that moved is taken as it is.
func (s *smoothRate) add(raw, dt float64) float64 {
	if dt <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return s.v
	}
	if !s.seen {
		// Seeded by the first interval that moved: a phase's start
		// (bytes not flowing yet) does not drag its rate down.
		if raw <= 0 {
			return 0
		}
		s.v, s.seen = raw, true
		return s.v
	}
	s.v += (1 - math.Exp(-dt/RateTau)) * (raw - s.v)
	return s.v
}

// SmoothedRate is the rate the engine's progress events would show after
// samples (one card's raw read-side samples of one phase, oldest first, as
// the catalog holds them): for a front end that reads the catalog, such as
// dit serve, so that it shows the rate the CLI and the GUI show.
func SmoothedRate(samples []catalog.Sample) float64 {
	var s smoothRate
	var r float64
	for _, x := range samples {
		dt := x.Seconds
		if dt <= 0 {
			dt = 1 // samples recorded before the interval was
		}
		r = s.add(x.Rate, dt)
	}
	return r
}
