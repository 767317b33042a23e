package live

import (
	"sync"
	"time"
)

// Model is the live model of one job: fed the engine's counters once a
// tick, it returns the job's snapshot with every rate, stall and
// estimate decided. Safe for use by one goroutine at a time (the
// engine's sampler); Last may be called from any.
type Model struct {
	cfg   Config
	start time.Time
	last  time.Time
	runs  map[any]*run
	fixed map[int][]float64 // sealing times learnt, by hop
	// read: bytes read from the cards (hop 1) in this process, every run
	// (the job's TB/hour); reads: each run's last count.
	read    int64
	jobRate smooth
	paused  bool
	// secondOrder: the cards not yet free in the order their second runs
	// were queued at the last estimate (playSeconds), by label.
	secondOrder map[string]int
	mu          sync.Mutex
	snapshot    Progress
}

// NewModel returns the model of a job started (in this process) at start.
func NewModel(cfg Config, start time.Time) *Model {
	return &Model{cfg: cfg, start: start, last: start, runs: map[any]*run{}, fixed: map[int][]float64{}}
}

func (m *Model) window() time.Duration {
	if m.cfg.Window > 0 {
		return m.cfg.Window
	}
	return RateWindow
}

func (m *Model) stallAfter() time.Duration {
	if m.cfg.StallAfter > 0 {
		return m.cfg.StallAfter
	}
	return StallAfter
}

// Last returns the latest snapshot (empty before the first tick).
func (m *Model) Last() Progress {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshot
}

// Pause tells the model the job is paused (or no longer): while paused
// nothing is stalled (nothing is meant to move), the estimates are
// unknown and the snapshot says Paused.
func (m *Model) Pause(paused bool) { m.paused = paused }

// Tick takes every current run's counters at now and returns the
// snapshot. Runs not given any more (replaced by a retry) are forgotten,
// their bytes kept in the job's.
func (m *Model) Tick(now time.Time, runs []Counters) Progress {
	dt := now.Sub(m.last).Seconds()
	if dt < 0 {
		dt = 0
	}
	m.last = now
	var p Progress
	seen := map[any]bool{}
	var jobRead float64
	for _, c := range runs {
		r := m.runs[c.Key]
		if r == nil {
			r = &run{}
			m.runs[c.Key] = r
		}
		seen[c.Key] = true
		card := m.observe(r, c, now, dt)
		if c.Hop != 2 {
			read := c.BytesCopied + c.BytesResent
			if d := read - r.read; d > 0 {
				m.read += d
				jobRead += float64(d)
			}
			r.read = read
		}
		p.Cards = append(p.Cards, card)
	}
	for k := range m.runs {
		if !seen[k] {
			delete(m.runs, k)
		}
	}
	m.estimate(&p, runs, now)
	m.jobFigures(&p, now, dt, jobRead)
	if m.paused {
		p.Job.Paused, p.Job.ETA = true, Times{}
		for i := range p.Cards {
			if p.Cards[i].Phase != Done {
				p.Cards[i].ETA, p.Cards[i].ETASeconds = Times{}, Estimate{}
			}
		}
	}
	m.mu.Lock()
	m.snapshot = p
	m.mu.Unlock()
	return p
}

// jobFigures fills the job's part of p.
func (m *Model) jobFigures(p *Progress, now time.Time, dt, read float64) {
	j := &p.Job
	j.At = now
	active := m.cfg.EarlierActive + now.Sub(m.start)
	j.Elapsed = active.Seconds()
	j.BytesRead = m.cfg.EarlierBytes + m.read
	j.TBPerHour = tbPerHour(j.BytesRead, active.Seconds())
	if dt > 0 {
		j.Rate = m.jobRate.add(read/dt, dt, m.window().Seconds())
	}
	free, safe, copied := In(0), In(0), In(0)
	for _, c := range p.Cards {
		if c.Hop != 2 {
			j.Cards++
			j.Bytes += c.Bytes
			j.BytesCopied += c.BytesCopied
			if c.Phase != Queued && c.Phase != Copying {
				j.Copied++
			}
		}
		if c.Stall != nil {
			j.Stalled++
		}
		copied, free, safe = Later(copied, c.ETA.Copied), Later(free, c.ETA.CardFree), Later(safe, c.ETA.Safe)
	}
	j.ETA = Times{Copied: copied, CardFree: free, Safe: safe}
}

// Peek is the latest snapshot with every run's counts as given now (the
// engine's counters between two ticks): rates, stalls and estimates stay
// those of the last tick. It learns nothing.
func (m *Model) Peek(runs []Counters) Progress {
	last := m.Last()
	out := Progress{Job: last.Job}
	for _, c := range runs {
		card := cardOf(c)
		for _, l := range last.Cards {
			if l.Label == card.Label && l.Hop == card.Hop {
				card.Rate, card.ETA, card.ETASeconds, card.Stall = l.Rate, l.ETA, l.ETASeconds, l.Stall
				card.ActiveSeconds, card.TBPerHour = l.ActiveSeconds, l.TBPerHour
				for i := range card.Dests {
					if i < len(l.Dests) {
						card.Dests[i].Rate, card.Dests[i].Stall = l.Dests[i].Rate, l.Dests[i].Stall
					}
				}
				break
			}
		}
		out.Cards = append(out.Cards, card)
	}
	return out
}
