package live

import "time"

// Meter is the live model of one stream of bytes toward a known total
// that is not a job's run (dit verify's read-back of a job's copies): its
// rate, smoothed over Window as a job's rates are, and the time left at
// that rate. The engine feeds it its count as it moves; a front end
// renders what it returns. The zero value is ready (Window RateWindow,
// a rate measured over each second at least); it is for one goroutine.
type Meter struct {
	Window time.Duration
	// Every: the shortest interval a rate is measured over (default 1s):
	// counts given more often are kept for the next measurement.
	Every time.Duration

	started bool
	last    time.Time
	lastN   int64
	rate    smooth
}

// Observe takes done of total bytes at now and returns the rate (bytes
// per second, 0 until one is measured) and the time until done reaches
// total at it: unknown until a rate is measured, 0 once all is done.
func (m *Meter) Observe(now time.Time, done, total int64) (rate float64, eta Estimate) {
	if !m.started {
		m.started, m.last, m.lastN = true, now, done
	}
	every := m.Every
	if every <= 0 {
		every = time.Second
	}
	window := m.Window
	if window <= 0 {
		window = RateWindow
	}
	if dt := now.Sub(m.last); dt >= every {
		m.rate.add(float64(done-m.lastN)/dt.Seconds(), dt.Seconds(), window.Seconds())
		m.last, m.lastN = now, done
	}
	rate = max(m.rate.v, 0)
	switch {
	case total > 0 && done >= total:
		return rate, In(0)
	case rate > 0:
		return rate, In(float64(total-done) / rate)
	}
	return rate, Estimate{}
}
