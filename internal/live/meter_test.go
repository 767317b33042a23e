package live

import (
	"testing"
	"time"
)

// A meter's rate is measured over a second at least and smoothed; its
// estimate is the bytes left at that rate, unknown before a rate, 0 at
// the end. Virtual time.
func TestMeter(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var m Meter
	const total = 4_000_000_000
	if r, e := m.Observe(t0, 0, total); r != 0 || e.Known {
		t.Fatalf("before a rate: %v %v", r, e)
	}
	// Counts given within the second are kept for the measurement.
	if r, e := m.Observe(t0.Add(300*time.Millisecond), 50_000_000, total); r != 0 || e.Known {
		t.Fatalf("within the first second: %v %v", r, e)
	}
	r, e := m.Observe(t0.Add(2*time.Second), 400_000_000, total)
	if r != 200e6 || !e.Known || e.Seconds != 18 {
		t.Fatalf("at 200 MB/s with 3.6 GB left: %v %v", r, e)
	}
	// A slower second moves the rate by a fraction (window 8 s).
	r, _ = m.Observe(t0.Add(3*time.Second), 500_000_000, total)
	if r >= 200e6 || r <= 100e6 {
		t.Fatalf("smoothed: %v", r)
	}
	if _, e := m.Observe(t0.Add(4*time.Second), total, total); !e.Known || e.Seconds != 0 {
		t.Fatalf("done: %v", e)
	}
}
