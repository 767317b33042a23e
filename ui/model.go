package ui

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// runModel is the running job's state, fed by the engine's events from
// any goroutine; the view renders copies of it (view).
type runModel struct {
	mu       sync.Mutex
	jobID    int64
	name     string
	started  time.Time
	window   time.Duration
	cards    []*cardView
	warnings []string
	// prepared are what the assembly said before the start
	// (assembly.Prepared: its warnings, then its notes), kept shown.
	prepared []string
	paused   bool
	finished bool
	summary  *offload.Summary
	err      string
	plan     *plan.Result
	planWhy  string
	sim      string // "simulated at 1/10 of the field rates", or ""
	now      time.Time
	// A cascade: the first-run and second-run destinations; the second
	// runs read the first copy, on dests[0].
	dests, then []string
}

// runView is a consistent copy of a runModel.
type runView struct {
	JobID    int64
	Name     string
	Started  time.Time
	Now      time.Time
	Window   time.Duration
	Cards    []cardView
	Warnings []string
	Prepared []string
	Paused   bool
	Finished bool
	Summary  *offload.Summary
	Err      string
	Plan     *plan.Result
	PlanWhy  string
	Sim      string
	// A cascade: its first-run destinations, its second-run ones, and
	// the first-run destination the second runs read (FirstCopy).
	Dests, Then []string
	FirstCopy   string
}

func newRunModel(jobID int64, name string, started time.Time, p offload.Progress, paths []string) *runModel {
	m := &runModel{jobID: jobID, name: name, started: started, window: 5 * time.Minute, now: started}
	i := 0
	for _, c := range p.Cards {
		if isSecond(c.Label, c.Hop) {
			continue
		}
		cr := &cardView{Label: c.Label}
		cr.Prog = c
		if i < len(paths) {
			cr.Path = paths[i]
		}
		i++
		m.cards = append(m.cards, cr)
	}
	// A resumed cascade: second runs recorded before (their cards were
	// free then).
	for _, c := range p.Cards {
		if isSecond(c.Label, c.Hop) {
			if k, h := m.run(c.Label, c.Hop, true); h != nil {
				k.Cascade, k.Free = true, true
				h.Prog = c
			}
		}
	}
	return m
}

// isSecond reports whether a card label (or progress) is a cascade's
// second run of a card.
func isSecond(label string, hop int) bool {
	return hop == 2 || strings.HasSuffix(label, offload.SecondRunSuffix)
}

// setCascade marks the job a cascade: its first-run destinations (the
// second runs read the first one) and its second-run destinations.
func (m *runModel) setCascade(dests, then []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(then) == 0 {
		return
	}
	m.dests, m.then = append([]string(nil), dests...), append([]string(nil), then...)
	for _, c := range m.cards {
		c.Cascade = true
	}
}

func (m *runModel) card(label string) *cardView {
	for _, c := range m.cards {
		if c.Label == label {
			return c
		}
	}
	return nil
}

// run finds the run an event or a progress names: the card, and its
// second run when the label is one ("A001 (2nd run)"; made when mk is
// set and it is not known yet).
func (m *runModel) run(label string, hop int, mk bool) (*cardView, *hopRun) {
	if !isSecond(label, hop) {
		return m.card(label), nil
	}
	c := m.card(strings.TrimSuffix(label, offload.SecondRunSuffix))
	if c == nil {
		return nil, nil
	}
	if c.Then == nil && mk {
		c.Then = &hopRun{Label: label}
		c.Cascade = true
	}
	return c, c.Then
}

// state is the run that label names (nil: none).
func (m *runModel) state(label string, hop int, mk bool) *runState {
	c, h := m.run(label, hop, mk)
	switch {
	case h != nil:
		return &h.runState
	case c != nil && !isSecond(label, hop):
		return &c.runState
	}
	return nil
}

// apply takes one engine event. It reports whether the view should be
// redrawn now (progress, a card's end, a warning); file events only
// change what the next redraw shows.
func (m *runModel) apply(e offload.Event) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !e.Time.IsZero() && e.Time.After(m.now) {
		m.now = e.Time
	}
	switch e.Type {
	case offload.EvProgress:
		if e.Progress == nil {
			return false
		}
		for _, p := range e.Progress.Cards {
			if r := m.state(p.Label, p.Hop, true); r != nil {
				r.take(p, e.Time, m.window)
			}
		}
		return true
	case offload.EvFile:
		if e.State != offload.StateFailed {
			return false
		}
		if r := m.state(e.Card, 0, true); r != nil {
			r.addFailure(e.Path, fileFailure(e))
		}
		return false
	case offload.EvCardAdded:
		if !isSecond(e.Card, 0) && m.card(e.Card) == nil {
			m.cards = append(m.cards, &cardView{Label: e.Card, Path: e.Path, Cascade: len(m.then) > 0})
		}
		return true
	case offload.EvRunDone:
		if r := m.state(e.Card, 0, true); r != nil {
			r.Done, r.EndState, r.Error = true, e.State, e.Message
			r.Rate, r.ETA = 0, 0
		}
		return true
	case offload.EvCardFree:
		// The card may leave the reader: not be formatted (only the
		// summary says safe to format).
		if c := m.card(e.Card); c != nil {
			c.Cascade, c.Free = true, true
			if c.FreeAt.IsZero() {
				c.FreeAt = e.Time
			}
			if e.Path != "" {
				c.Path = e.Path
			}
		}
		return true
	case offload.EvWarning:
		msg := e.Message
		if e.Card != "" && !strings.Contains(msg, e.Card) {
			msg = e.Card + ": " + msg
		}
		m.warnings = append(m.warnings, msg)
		return true
	}
	return false
}

// fileFailure says why a file failed, naming each destination that failed.
func fileFailure(e offload.Event) string { return notify.FileFailure(e) }

// setCounters refreshes the byte and file counters from Job.Snapshot (the
// rates stay those of the last progress event).
func (m *runModel) setCounters(p offload.Progress, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.After(m.now) {
		m.now = now
	}
	for _, s := range p.Cards {
		if r := m.state(s.Label, s.Hop, true); r != nil {
			r.counters(s)
		}
	}
}

// applySummary takes the verdicts of a (card's or the job's) summary read
// from the catalog. Only cards that are done take it: a summary read while
// a card still runs says nothing final about it.
func (m *runModel) applySummary(s *offload.Summary, final bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(s.Then) > 0 && len(m.then) == 0 {
		m.then = append([]string(nil), s.Then...)
		m.dests = append([]string(nil), s.Destinations...)
		for _, c := range m.cards {
			c.Cascade = true
		}
	}
	for _, cs := range s.Cards {
		c := m.card(cs.Label)
		if c == nil {
			continue
		}
		if cs.CardFree {
			// Free is not safe to format: the card may leave the reader.
			c.Cascade, c.Free = true, true
			if !cs.FreeAt.IsZero() {
				c.FreeAt = cs.FreeAt
			}
		}
		if !c.settled() && !final {
			continue // a summary read while the card still runs says nothing final about it
		}
		c.HaveSummary, c.Safe, c.Verdict, c.Status = true, cs.SafeToFormat, cs.Verdict, cs.Status
		c.SafeAt = cs.SafeAt
		if c.EndState == "" {
			c.EndState = cs.State
		}
		for _, f := range cs.Failures {
			c.addFailure(f.Path, f.Error)
		}
		sort.SliceStable(c.Failures, func(i, j int) bool { return c.Failures[i].Path < c.Failures[j].Path })
		if cs.Then != nil {
			if c.Then == nil {
				c.Then = &hopRun{Label: c.Label + offload.SecondRunSuffix}
				c.Then.Done = true
			}
			if c.Then.EndState == "" || final {
				c.Then.EndState = cs.Then.State
			}
			if final {
				c.Then.Done = true // the job has ended: so has every run
			}
			for _, f := range cs.Then.Failures {
				c.Then.addFailure(f.Path, f.Error)
			}
			sort.SliceStable(c.Then.Failures, func(i, j int) bool { return c.Then.Failures[i].Path < c.Then.Failures[j].Path })
		}
	}
	if final {
		m.finished, m.summary = true, s
	}
}

// setEject records an eject of the card at path (or labelled label).
func (m *runModel) setEject(path, label, state, msg string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.cards {
		if (path != "" && c.Path == path) || (path == "" && c.Label == label) {
			c.Eject, c.EjectMsg = state, msg
			return true
		}
	}
	return false
}

// fail ends the model with an error that stopped the job.
func (m *runModel) fail(err string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finished, m.err = true, err
}

func (m *runModel) setPaused(p bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paused = p
}

// setPrepared keeps what the assembly said before the start: its
// warnings (a destination drive that reports problems, the CPU benchmark
// cache) and notes (measured rates used, measurements that look old).
func (m *runModel) setPrepared(warnings, notes []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prepared = nil
	for _, w := range warnings {
		m.prepared = append(m.prepared, "Warning: "+w)
	}
	for _, n := range notes {
		m.prepared = append(m.prepared, "Note: "+n)
	}
}

func (m *runModel) setPlan(r *plan.Result, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.plan, m.planWhy = r, why
}

// view returns a copy to render.
func (m *runModel) view() runView {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := runView{JobID: m.jobID, Name: m.name, Started: m.started, Now: m.now, Window: m.window,
		Warnings: append([]string(nil), m.warnings...), Prepared: append([]string(nil), m.prepared...), Paused: m.paused, Finished: m.finished,
		Summary: m.summary, Err: m.err, Plan: m.plan, PlanWhy: m.planWhy, Sim: m.sim}
	v.Dests, v.Then = append([]string(nil), m.dests...), append([]string(nil), m.then...)
	if len(m.dests) > 0 {
		v.FirstCopy = m.dests[0]
	}
	for _, c := range m.cards {
		cc := *c
		cc.runState = c.runState.copyOut()
		if c.Then != nil {
			h := *c.Then
			h.runState = c.Then.runState.copyOut()
			cc.Then = &h
		}
		v.Cards = append(v.Cards, cc)
	}
	return v
}

// safeETA is the estimated time until every card of the job that can
// still be safe to format is (the slowest card's SafeETA); -1 when a card
// cannot tell yet.
func (v runView) safeETA() float64 {
	eta := 0.0
	for _, c := range v.Cards {
		if c.HaveSummary || c.Done && c.EndState != offload.StateVerified {
			continue // its verdict is known
		}
		e := c.SafeETA(len(v.Then))
		if e < 0 {
			return -1
		}
		eta = max(eta, e)
	}
	return eta
}

// totals are the job's figures at a glance: the rate of all cards now,
// and the time until the last card is done with its current phase.
func (v runView) totals() (rate, eta float64) {
	for _, c := range v.Cards {
		if !c.Done {
			rate += c.Rate
			eta = max(eta, c.ETA)
		}
		if c.Then != nil && !c.Then.Done {
			rate += c.Then.Rate
			eta = max(eta, c.Then.ETA)
		}
	}
	return rate, eta
}

// setClips records a card's clips; it tells whether the card is known.
func (m *runModel) setClips(label string, k clipInfo) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.card(label)
	if c == nil {
		return false
	}
	c.Clips = &k
	return true
}
