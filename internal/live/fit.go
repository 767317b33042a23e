package live

import "math"

// fit estimates the time a stream of work takes as a cost per byte and a
// cost per file: t = a*MB + b*files, by weighted least squares over the
// intervals the stream was busy, older intervals forgotten with the
// model's Window (exponential forgetting), and pulled toward a prior (the
// plan's figures) with the weight of priorSeconds of evidence, so that
// what is not yet measured (a card of large clips has said nothing of its
// per-file cost) stays at the prior and what is measured wins within a
// few seconds.
type fit struct {
	sBB, sBF, sFF, sBT, sFT float64
	// n is the (forgotten) count of busy seconds behind the sums.
	n float64
}

// priorSeconds is how many seconds of measurement the prior weighs.
const priorSeconds = 3

// refPerFile is the scale of a per-file cost (1 ms) when no prior gives
// one: the pull toward 0 that keeps b defined before files are seen.
const refPerFile = 0.001

// add takes one busy interval: dB bytes and dF files in dt seconds,
// after forgetting the sums by factor keep (0 < keep <= 1).
func (f *fit) add(dB float64, dF float64, dt float64, keep float64) {
	f.sBB, f.sBF, f.sFF, f.sBT, f.sFT, f.n = f.sBB*keep, f.sBF*keep, f.sFF*keep, f.sBT*keep, f.sFT*keep, f.n*keep
	mb := dB / 1e6
	f.sBB += mb * mb
	f.sBF += mb * dF
	f.sFF += dF * dF
	f.sBT += mb * dt
	f.sFT += dF * dt
	f.n += dt
}

// forget decays the sums over an interval that taught nothing.
func (f *fit) forget(keep float64) {
	f.sBB, f.sBF, f.sFF, f.sBT, f.sFT, f.n = f.sBB*keep, f.sBF*keep, f.sFF*keep, f.sBT*keep, f.sFT*keep, f.n*keep
}

// coeffs returns the seconds per MB (a) and per file (b). a0 and b0 are
// the prior (a0 <= 0: no prior rate). ok is false when the cost per byte
// is neither measured nor planned.
func (f *fit) coeffs(a0, b0 float64) (a, b float64, ok bool) {
	var la, lb float64
	if a0 > 0 {
		la = priorSeconds / (a0 * a0)
	}
	ref := b0
	if ref <= 0 {
		ref = refPerFile
	}
	lb = priorSeconds / (ref * ref)
	b0 = max(b0, 0)
	if la == 0 && f.sBB == 0 {
		return 0, 0, false
	}
	m11, m12, m22 := f.sBB+la, f.sBF, f.sFF+lb
	r1, r2 := f.sBT+la*a0, f.sFT+lb*b0
	det := m11*m22 - m12*m12
	if det > 0 {
		a, b = (r1*m22-m12*r2)/det, (m11*r2-m12*r1)/det
	}
	if det <= 0 || a < 0 || b < 0 || math.IsNaN(a) || math.IsNaN(b) {
		// Fit one with the other at its bound.
		switch {
		case det <= 0 || a < 0:
			a = 0
			b = max(r2/m22, 0)
			if m11 > 0 {
				a = max((r1-m12*b)/m11, 0)
			}
		default:
			b = 0
			a = max(r1/m11, 0)
		}
	}
	return a, b, true
}

// smooth is a rate smoothed over the model's Window: the first interval
// that moved is taken as it is (a phase's start does not drag it down).
type smooth struct {
	v    float64
	seen bool
}

func (s *smooth) add(raw, dt, window float64) float64 {
	if dt <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return s.v
	}
	if !s.seen {
		if raw <= 0 {
			return 0
		}
		s.v, s.seen = raw, true
		return s.v
	}
	s.v += (1 - math.Exp(-dt/window)) * (raw - s.v)
	return s.v
}
