package live

import (
	"cmp"
	"slices"
	"time"
)

// remaining is what a run has left, in seconds: until copied, until
// verified (every copy read back) and until ended (sealed).
type remaining struct {
	copied, verified, ended float64
	known                   bool
}

// costsOf returns the run's costs: measured, pulled toward the plan's,
// else borrowed from the job's other runs of the same hop.
func (m *Model) costsOf(r *run, c Counters, others []costs) costs {
	pr := m.prior(c.Label, c.Hop)
	var a0, bc0 float64
	if pr.Rate > 0 {
		a0 = 1e6 / pr.Rate
	}
	bc0 = pr.PerFile.Seconds()
	ac, bc, ok := r.copy.coeffs(a0, bc0)
	if !ok {
		// Not measured, not planned: the mean of the job's other runs.
		var n float64
		for _, o := range others {
			if o.known {
				ac, bc, n = ac+o.ac, bc+o.bc, n+1
			}
		}
		if n == 0 {
			return costs{}
		}
		ac, bc, ok = ac/n, bc/n, true
	}
	// A destination reads back, until measured, as fast as the plan
	// says, else as fast as the card is read.
	av0, bv0 := ac, bc
	if pr.VerifyRate > 0 {
		av0 = 1e6 / pr.VerifyRate
	}
	if pr.VerifyPerFile > 0 {
		bv0 = pr.VerifyPerFile.Seconds()
	}
	k := costs{ac: ac, bc: bc, known: ok}
	for i := range c.Dests {
		var f fit
		if i < len(r.verify) {
			f = r.verify[i]
		}
		av, bv, _ := f.coeffs(av0, bv0)
		k.dv = append(k.dv, cost{av, bv})
	}
	return k
}

func (m *Model) prior(label string, hop int) Prior {
	if m.cfg.Prior == nil {
		return Prior{}
	}
	return m.cfg.Prior(label, hop)
}

// fixedOf is a run's fixed cost after its read-back: the sealing times
// learnt in this job for its hop, else the plan's.
func (m *Model) fixedOf(c Counters) float64 {
	if f := m.fixed[hopKey(c.Hop)]; len(f) > 0 {
		var s float64
		for _, v := range f {
			s += v
		}
		return s / float64(len(f))
	}
	pr := m.prior(c.Label, c.Hop)
	return pr.Fixed.Seconds() + pr.SealPerFile.Seconds()*float64(c.Files)
}

// left is what run c has left at costs k.
func (m *Model) left(r *run, c Counters, k costs, now time.Time) remaining {
	fixed := m.fixedOf(c)
	switch c.Phase {
	case Done:
		return remaining{known: true}
	case Sealing:
		return sealLeft(r, c, fixed, now)
	}
	if !k.known {
		return remaining{}
	}
	var out remaining
	out.known = true
	bLeft, fLeft := float64(max(c.Bytes-c.BytesCopied, 0)), float64(max(c.FilesToCopy-c.FilesCopied, 0))
	if c.Phase == Queued || c.Phase == Copying {
		out.copied = k.ac*bLeft/1e6 + k.bc*fLeft
	}
	out.verified = out.copied
	if m.cfg.Verify {
		// Each destination reads back what it has left; the last file
		// copied is read back after the copy ends (the tail).
		last := bLeft
		if fLeft > 0 {
			last = bLeft / fLeft
		}
		for i, d := range c.Dests {
			if i >= len(k.dv) || d.State.Ended() {
				continue
			}
			vb := float64(max(d.VerifyTotal-d.BytesVerified, 0))
			vf := float64(max(d.VerifyFiles-d.FilesVerified, 0))
			all := k.dv[i].a*vb/1e6 + k.dv[i].b*vf
			tail := 0.0
			if out.copied > 0 {
				tail = k.dv[i].a*min(last, vb)/1e6 + k.dv[i].b*min(1, vf)
			}
			out.verified = max(out.verified, out.copied+tail, all)
		}
	}
	out.ended = out.verified + fixed
	return out
}

// sealPast is how far past its expected time (the plan's or this job's,
// fixed) a seal with nothing else to go on is still said to end about
// now; past it, its end is unknown.
const sealPast = 1.5

// sealLeft is what a run writing its hash lists has left. Once its walks
// of the files have come some way (FilesSealed of SealFiles), the time it
// has sealed over the part done says the rest: a card of a million
// frames seals for a minute where a plan's fixed time says seconds.
// Else the expected time (fixed) less the time sealed so far, at least
// nothing, and unknown once it has run sealPast times as long: never
// "safe in 0s" for a seal that goes on.
func sealLeft(r *run, c Counters, fixed float64, now time.Time) remaining {
	var el float64
	if !r.sealAt.IsZero() {
		el = now.Sub(r.sealAt).Seconds()
	}
	if c.SealFiles > 0 && c.FilesSealed > 0 && c.FilesSealed < c.SealFiles && el > 0 {
		done := float64(c.FilesSealed) / float64(c.SealFiles)
		return remaining{ended: el * (1 - done) / done, known: true}
	}
	if el > sealPast*fixed {
		return remaining{}
	}
	return remaining{ended: max(fixed-el, 0), known: true}
}

// secondLeft is the time a cascade's second run of card c (not started)
// takes once it starts: its copy and the whole run.
func (m *Model) secondLeft(c Counters, others []costs) (copyT, total float64, ok bool) {
	n := max(m.cfg.ThenDests, 1)
	sc := Counters{Label: c.Label, Hop: 2, Phase: Queued, Files: c.Files, FilesToCopy: c.Files, Bytes: c.Bytes,
		VerifyFiles: c.Files * n, VerifyTotal: c.Bytes * int64(n)}
	for range n {
		sc.Dests = append(sc.Dests, DestCounters{State: DestQueued, Bytes: c.Bytes, VerifyTotal: c.Bytes, VerifyFiles: c.Files})
	}
	k := m.costsOf(&run{}, sc, others)
	if !k.known {
		return 0, 0, false
	}
	rem := m.left(&run{}, sc, k, time.Time{})
	return rem.copied, rem.ended, rem.known
}

// estimate fills every card's ETA in p (built from runs, in order).
func (m *Model) estimate(p *Progress, runs []Counters, now time.Time) {
	rems := make([]remaining, len(runs))
	ks := make([]costs, len(runs))
	var byHop [3][]costs
	for i, c := range runs {
		ks[i] = m.costsOf(m.runs[c.Key], c, byHop[hopKey(c.Hop)])
		byHop[hopKey(c.Hop)] = append(byHop[hopKey(c.Hop)], ks[i])
	}
	for i, c := range runs {
		if !ks[i].known {
			// Nothing measured or planned: borrow from every other run
			// of its hop, those listed after it too.
			ks[i] = m.costsOf(m.runs[c.Key], c, byHop[hopKey(c.Hop)])
		}
		rems[i] = m.left(m.runs[c.Key], c, ks[i], now)
	}
	second := map[string]int{}
	for i, c := range runs {
		if c.Hop == 2 {
			second[c.Label] = i
		}
	}
	// A cascade's second runs wait for a slot: play the queue forward.
	secondAt := m.playSeconds(p, runs, rems, second, byHop[2])
	for i, c := range runs {
		card := &p.Cards[i]
		r := rems[i]
		if !r.known || card.Stall != nil {
			card.ETA = Times{}
			if c.Phase == Done {
				card.ETA = Times{Copied: In(0), CardFree: In(0), Safe: In(0)}
			} else if c.Phase != Queued && c.Phase != Copying {
				card.ETA.Copied = In(0)
			}
			card.ETASeconds = card.ETA.Safe
			continue
		}
		t := Times{Copied: In(r.copied), CardFree: In(r.ended), Safe: In(r.ended)}
		if c.Hop == 2 {
			t = Times{Copied: In(0), CardFree: In(0), Safe: secondAt[c.Label]}
		} else if m.cfg.Cascade && !(c.Phase == Done && c.FilesFailed > 0) {
			t.Safe = secondAt[c.Label]
		}
		card.ETA, card.ETASeconds = t, t.Safe
	}
}

// secondMargin and secondShare: a card expected free later than another
// by less than secondMargin seconds, or secondShare of its time, keeps
// its place behind it in the second runs' queue.
const (
	secondMargin = 2.0
	secondShare  = 0.1
)

// playSeconds returns when each card's second run ends, in seconds from
// now: the runs copying hold the ThenSlots slots until they are copied,
// the others take them in the order their cards become free.
func (m *Model) playSeconds(p *Progress, runs []Counters, rems []remaining, second map[string]int, hop2 []costs) map[string]Estimate {
	out := map[string]Estimate{}
	if !m.cfg.Cascade {
		return out
	}
	slots := max(m.cfg.ThenSlots, 1)
	var free []float64
	type wait struct {
		label        string
		ready        float64 // when its card is free (0: free, waiting)
		copyT, total float64
		known, free  bool
	}
	var waits []wait
	for i, c := range runs {
		r := rems[i]
		stalled := p.Cards[i].Stall != nil
		switch {
		case c.Hop == 2 && c.Phase == Queued:
			waits = append(waits, wait{label: c.Label, copyT: r.copied, total: r.ended, known: r.known && !stalled, free: true})
		case c.Hop == 2:
			if c.Phase == Copying {
				free = append(free, r.copied)
			}
			if r.known && !stalled {
				out[c.Label] = In(r.ended)
			} else {
				out[c.Label] = Estimate{}
			}
		case c.Phase != Done || c.FilesFailed == 0:
			if _, ok := second[c.Label]; ok {
				continue
			}
			if c.Phase == Done && c.FilesFailed > 0 {
				continue
			}
			ct, tot, ok := m.secondLeft(c, hop2)
			waits = append(waits, wait{label: c.Label, ready: r.ended, copyT: ct, total: tot, known: ok && r.known && !stalled})
		}
	}
	for len(free) < slots {
		free = append(free, 0)
	}
	// The cards free already first (they wait in the queue), then the
	// others by when they will be. Two cards about to be free at about
	// the same time keep the order they were given at the last tick
	// until one leads by a margin: each card's "safe in" moves by a whole
	// second run when their order flips, and estimates a second apart
	// flipped it back and forth.
	key := func(w wait) float64 {
		rank, ok := m.secondOrder[w.label]
		if !ok {
			rank = len(m.secondOrder)
		}
		return w.ready + float64(rank)*max(secondMargin, secondShare*w.ready)
	}
	slices.SortStableFunc(waits, func(a, b wait) int {
		switch {
		case a.free != b.free:
			if a.free {
				return -1
			}
			return 1
		case a.free:
			return 0
		}
		return cmp.Compare(key(a), key(b))
	})
	order := map[string]int{}
	for _, w := range waits {
		if !w.free {
			order[w.label] = len(order)
		}
	}
	m.secondOrder = order
	unknown := false
	for _, w := range waits {
		slices.Sort(free)
		start := max(w.ready, free[0])
		free[0] = start + w.copyT
		if !w.known || unknown {
			// Every later card waits behind one that cannot be told.
			unknown = true
			out[w.label] = Estimate{}
			continue
		}
		out[w.label] = In(start + w.total)
	}
	return out
}
