package live

import (
	"math"
	"time"
)

// FitWindow is the time constant over which the costs of a stream (per
// byte, per file) are measured: longer than the rates' window, so that a
// card's mix of small files and clips is learnt, short enough to follow
// a medium that slows down.
const FitWindow = 30 * time.Second

// run is the model's memory of one run between ticks.
type run struct {
	prev    Counters
	seen    bool
	copy    fit
	verify  []fit // each destination's read-back
	rate    smooth
	dRate   []smooth
	dPrev   []DestCounters
	moved   time.Time   // the card's side last moved
	dMoved  []time.Time // each destination last moved
	sealAt  time.Time   // when the run entered sealing
	read    int64       // bytes read (copied + resent) last tick
	active  float64     // seconds spent copying or verifying
	learned bool        // its sealing time was learnt
}

// costs are a run's estimated costs (seconds per MB and per file) for its
// copy and for the read-back on each destination, and whether the copy's
// are known.
type costs struct {
	ac, bc float64
	dv     []cost
	known  bool
}

type cost struct{ a, b float64 }

// observe takes the run's counters at now, dt seconds after the last
// tick, and returns its card with rates and stalls (no estimates yet).
func (m *Model) observe(r *run, c Counters, now time.Time, dt float64) Card {
	keepFit := math.Exp(-dt / FitWindow.Seconds())
	win := m.window().Seconds()
	if !r.seen {
		r.seen, r.moved = true, now
		r.dRate, r.dMoved = make([]smooth, len(c.Dests)), make([]time.Time, len(c.Dests))
		for i := range r.dMoved {
			r.dMoved[i] = now
		}
		r.prev, r.dPrev = c, append([]DestCounters(nil), c.Dests...)
		if c.Phase == Copying || c.Phase == Verifying {
			// Its first tick: as if it had started from nothing (the
			// engine's first sample reaches back to the card's start).
			r.prev = Counters{Phase: c.Phase, Bytes: c.Bytes, Files: c.Files, VerifyTotal: c.VerifyTotal}
			for i := range r.dPrev {
				r.dPrev[i] = DestCounters{Dest: c.Dests[i].Dest, State: c.Dests[i].State}
			}
		}
	}
	p := r.prev
	dB, dF := float64(c.BytesCopied-p.BytesCopied), float64(c.FilesCopied-p.FilesCopied)
	vB, vF := float64(c.BytesVerified-p.BytesVerified), float64(c.FilesVerified-p.FilesVerified)
	sealed := c.SealSteps != p.SealSteps || c.ProxiesMade != p.ProxiesMade
	if dB > 0 || dF > 0 || vB > 0 || vF > 0 || sealed || c.Phase != p.Phase || m.paused {
		r.moved = now // a paused job is held, not stalled
	}
	// Learn the copy's costs from intervals spent copying that moved, the
	// read-back's from those it had work waiting all along.
	if p.Phase == Copying && c.Phase == Copying && dt > 0 && (dB > 0 || dF > 0) && !m.paused {
		r.copy.add(dB, dF, dt, keepFit)
	} else {
		r.copy.forget(keepFit)
	}
	if c.Phase == Sealing && (p.Phase != Sealing || r.sealAt.IsZero()) {
		r.sealAt = now // its first tick may find it sealing (a resume)
	}
	if c.Phase == Done && !r.sealAt.IsZero() && !r.learned {
		r.learned = true
		m.fixed[hopKey(c.Hop)] = append(m.fixed[hopKey(c.Hop)], now.Sub(r.sealAt).Seconds())
	}
	card := cardOf(c)
	if dt > 0 && (p.Phase.moving() || c.Phase.moving()) {
		r.active += dt
	}
	card.ActiveSeconds = r.active
	card.TBPerHour = tbPerHour(c.BytesCopied+c.BytesResent, r.active)
	raw := dB / dt
	if c.Phase == Verifying || c.Phase == Sealing {
		raw = vB / dt
	}
	if dt > 0 {
		card.Rate = r.rate.add(raw, dt, win)
	}
	m.observeDests(r, c, &card, now, dt)
	m.stall(r, c, &card, now)
	r.prev = c
	return card
}

func hopKey(hop int) int {
	if hop == 2 {
		return 2
	}
	return 1
}

// observeDests fills each destination's rate and stall.
func (m *Model) observeDests(r *run, c Counters, card *Card, now time.Time, dt float64) {
	win := m.window().Seconds()
	for i, d := range c.Dests {
		if i >= len(r.dPrev) {
			r.dPrev = append(r.dPrev, d)
			r.dRate = append(r.dRate, smooth{})
			r.dMoved = append(r.dMoved, now)
		}
		for len(r.verify) <= i {
			r.verify = append(r.verify, fit{})
		}
		p := r.dPrev[i]
		w, v := float64(d.BytesWritten-p.BytesWritten), float64(d.BytesVerified-p.BytesVerified)
		// The read-back's costs, by the time it spent working.
		keep := math.Exp(-dt / FitWindow.Seconds())
		if busy := (d.VerifyBusy - p.VerifyBusy).Seconds(); busy > 0 && (v > 0 || d.FilesVerified > p.FilesVerified) {
			r.verify[i].add(v, float64(d.FilesVerified-p.FilesVerified), busy, keep)
		} else {
			r.verify[i].forget(keep)
		}
		if w > 0 || v > 0 || d.State != p.State || m.paused {
			r.dMoved[i] = now
		}
		raw := v / max(dt, 1e-9)
		if c.Phase == Copying {
			raw = w / max(dt, 1e-9)
		}
		out := &card.Dests[i]
		if dt > 0 {
			out.Rate = r.dRate[i].add(raw, dt, win)
		}
		// It holds the card when it is behind what the card gave (while
		// copying), or has copies to read back once all are written: one
		// that took every byte the card gave is waiting, not stalled.
		// A destination that says an error while it has bytes to take
		// holds it too (a stream to a remote gone: the card waits on it).
		left := (c.Phase == Copying && d.BytesWritten < min(c.BytesCopied, d.Bytes)) ||
			(c.Phase == Copying && d.LastError != "" && d.BytesWritten < d.Bytes) ||
			(c.Phase == Verifying && d.BytesVerified < d.VerifyTotal)
		if since := now.Sub(r.dMoved[i]); left && !d.State.Ended() && since >= m.stallAfter() {
			cause := d.LastError
			if cause == "" {
				cause = "nothing written or read back there"
			}
			out.Stall = &Stall{Since: r.dMoved[i], Seconds: since.Seconds(), Where: d.Dest, Cause: cause, Retry: d.Retry, Retries: d.RetryOf}
		}
		r.dPrev[i] = d
	}
}

// stall decides whether the run is stalled: a destination that has not
// moved (with its reason), else the card's side.
func (m *Model) stall(r *run, c Counters, card *Card, now time.Time) {
	if !c.Phase.Active() {
		return
	}
	var quiet *Stall
	for i := range card.Dests {
		if s := card.Dests[i].Stall; s != nil && (card.Stall == nil || (card.Stall.Cause == "" && s.Cause != "")) {
			if c.Dests[i].LastError != "" {
				card.Stall = s
			} else if quiet == nil {
				quiet = s
			}
		}
	}
	since := now.Sub(r.moved)
	if card.Stall != nil || since < m.stallAfter() {
		return
	}
	switch {
	case c.CardError != "":
		card.Stall = &Stall{Since: r.moved, Seconds: since.Seconds(), Where: StallCard, Cause: c.CardError}
	case quiet != nil:
		card.Stall = quiet
	case c.Phase == Copying:
		card.Stall = &Stall{Since: r.moved, Seconds: since.Seconds(), Where: StallCard, Cause: "no data from the card"}
	case c.Phase == Sealing:
		card.Stall = &Stall{Since: r.moved, Seconds: since.Seconds(), Where: StallCard, Cause: "its hash lists are not being written"}
	default:
		card.Stall = &Stall{Since: r.moved, Seconds: since.Seconds(), Where: StallCard, Cause: "nothing read back"}
	}
}

// cardOf is the card of counters c, figures capped at their totals.
func cardOf(c Counters) Card {
	k := Card{Label: c.Label, Hop: c.Hop, Phase: c.Phase, Files: c.Files, FilesCopied: min(c.FilesCopied, c.Files),
		FilesDone: min(c.FilesDone, c.Files), FilesFailed: c.FilesFailed, Bytes: c.Bytes,
		BytesCopied: min(c.BytesCopied, c.Bytes), BytesResent: c.BytesResent,
		ReadBack: ReadBack{VerifyTotal: c.VerifyTotal, BytesVerified: min(c.BytesVerified, c.VerifyTotal),
			VerifyFiles: c.VerifyFiles, FilesVerified: min(c.FilesVerified, c.VerifyFiles)},
		Current: c.Current, Retries: c.Retries, After: c.After.capped()}
	if k.Hop != 2 {
		k.Hop = 0
	}
	for _, d := range c.Dests {
		k.Dests = append(k.Dests, Dest{Dest: d.Dest, State: d.State, Bytes: d.Bytes, BytesWritten: min(d.BytesWritten, d.Bytes),
			BytesResent: d.BytesResent, VerifyTotal: d.VerifyTotal, BytesVerified: min(d.BytesVerified, d.VerifyTotal),
			VerifyFiles: d.VerifyFiles, FilesVerified: min(d.FilesVerified, d.VerifyFiles), FilesFailed: d.FilesFailed, Current: d.Current, Retries: d.Retries, LastError: d.LastError})
	}
	return k
}
