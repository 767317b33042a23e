//go:build linux

package faultfuse

import "time"

// SlowWritesAfter paces writes, once n bytes have been written to the
// mount (all files together, from now), to rate bytes per second: a
// drive whose write cache ran out after n bytes. A write is answered
// when the pace allows, so the writer sees the lower rate.
func (f *FS) SlowWritesAfter(n int64, rate float64) {
	f.mu.Lock()
	f.slowAfter, f.slowRate, f.written = n, rate, 0
	f.slowFrom = time.Time{}
	f.mu.Unlock()
}

// pace returns how long the write of n more bytes waits.
func (f *FS) pace(n int) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.slowRate <= 0 {
		return 0
	}
	f.written += int64(n)
	over := f.written - f.slowAfter
	if over <= 0 {
		return 0
	}
	if f.slowFrom.IsZero() {
		f.slowFrom = time.Now()
	}
	due := f.slowFrom.Add(time.Duration(float64(over) / f.slowRate * float64(time.Second)))
	return time.Until(due)
}
