package ui

import (
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/verdict"
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
	// job is the live model's picture of the job (rate, TB/hour, its
	// estimates, the runs stalled) from the last snapshot; haveJob once
	// one came.
	job     live.Job
	haveJob bool
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
	// Job is the live model's picture of the job (HaveJob: one came).
	Job     live.Job
	HaveJob bool
	// A cascade: its first-run destinations, its second-run ones, and
	// the first-run destination the second runs read (FirstCopy).
	Dests, Then []string
	FirstCopy   string
}

func newRunModel(jobID int64, name string, started time.Time, p offload.Progress, paths []string) *runModel {
	m := &runModel{jobID: jobID, name: name, started: started, window: 5 * time.Minute, now: started}
	if !p.Job.At.IsZero() {
		m.job, m.haveJob = p.Job, true
	}
	i := 0
	for _, c := range p.Cards {
		if c.Hop == 2 {
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
		if c.Hop == 2 {
			if k, h := m.run(c.Label, c.Hop, true); h != nil {
				k.Cascade, k.Free = true, true
				h.Prog = c
			}
		}
	}
	return m
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
// second run when hop is 2 (made when mk is set and it is not known
// yet).
func (m *runModel) run(label string, hop int, mk bool) (*cardView, *hopRun) {
	c := m.card(label)
	if hop != 2 || c == nil {
		return c, nil
	}
	if c.Then == nil && mk {
		c.Then = &hopRun{}
		c.Cascade = true
	}
	return c, c.Then
}

// state is the run of card label at hop (nil: none).
func (m *runModel) state(label string, hop int, mk bool) *runState {
	c, h := m.run(label, hop, mk)
	switch {
	case h != nil:
		return &h.runState
	case c != nil && hop != 2:
		return &c.runState
	}
	return nil
}

// apply takes one engine event. It reports whether the view should be
// redrawn now (progress, a card's end, a warning, a stall); file events
// only change what the next redraw shows.
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
		m.job, m.haveJob = e.Progress.Job, true
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
		if r := m.state(e.Card, e.Hop, true); r != nil {
			r.addFailure(e.Path, fileFailure(e))
		}
		return false
	case offload.EvCardAdded:
		if e.Hop != 2 && m.card(e.Card) == nil {
			m.cards = append(m.cards, &cardView{Label: e.Card, Path: e.Path, Cascade: len(m.then) > 0})
		}
		return true
	case offload.EvRunDone:
		if r := m.state(e.Card, e.Hop, true); r != nil {
			r.Done, r.EndState, r.Error = true, e.State, e.Message
		}
		return true
	case offload.EvCardRetried:
		m.retried(e.Card, e.Hop)
		return true
	case offload.EvCardDone:
		if c := m.card(e.Card); c != nil {
			c.takeVerdict(e.State, e.Message, e.Summary)
		}
		return true
	case offload.EvCardFree:
		// The card may leave the reader: not be formatted (only the
		// verdict says safe to format).
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
	case offload.EvStalled, offload.EvMoving:
		// The stall itself is in the model's snapshot (Card.Stall).
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

// retried: the engine runs the card's run at hop again (card_retried):
// how it ended, and the card's verdict, are no longer so.
func (m *runModel) retried(label string, hop int) {
	c := m.card(label)
	if c == nil {
		return
	}
	if r := m.state(label, hop, false); r != nil {
		r.restart()
	}
	c.HaveSummary, c.Status, c.Safe, c.Verdict, c.SafeAt = false, "", false, "", time.Time{}
}

// fileFailure says why a file failed, naming each destination that failed.
func fileFailure(e offload.Event) string { return notify.FileFailure(e) }

// setCounters takes the model's snapshot now (Job.Snapshot: the counts as
// they are, the rates, estimates and stalls of the model's last tick).
func (m *runModel) setCounters(p offload.Progress, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.After(m.now) {
		m.now = now
	}
	if !p.Job.At.IsZero() {
		m.job, m.haveJob = p.Job, true
	}
	for _, s := range p.Cards {
		if r := m.state(s.Label, s.Hop, true); r != nil {
			r.Prog = s
		}
	}
}

// applySummary takes the verdicts of the job's summary read from the
// catalog (final: at the job's end). Only cards that are done take it: a
// summary read while a card still runs says nothing final about it.
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
	for i := range s.Cards {
		cs := &s.Cards[i]
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
		c.takeVerdict(cs.Status, cs.Verdict, cs)
		if final && c.Then != nil {
			c.Then.Done = true // the job has ended: so has every run
		}
	}
	if final {
		m.finished, m.summary = true, s
	}
}

// takeVerdict records the engine's verdict of the card (st, in words
// why; cs the card as the catalog has it, when read): its state, its
// runs' ends and their failed files.
func (c *cardView) takeVerdict(st verdict.State, why string, cs *offload.CardSummary) {
	c.HaveSummary, c.Status, c.Safe, c.Verdict = true, st, st.SafeToFormat(), why
	if cs == nil {
		return
	}
	c.Verdict, c.SafeAt = cs.Verdict, cs.SafeAt
	if cs.CardFree {
		c.Cascade, c.Free = true, true
		if !cs.FreeAt.IsZero() {
			c.FreeAt = cs.FreeAt
		}
	}
	if c.EndState == "" {
		c.EndState = cs.FirstRun
	}
	c.Failures, c.FailuresMore = summaryFailures(c.Failures, cs.Failures, cs.FailuresMore)
	c.SumFailed, c.SumRead = cs.Failed, true
	if cs.Then == nil {
		return
	}
	if c.Then == nil {
		c.Then = &hopRun{}
		c.Then.Done = true
	}
	c.Then.EndState = cs.Then.Status
	c.Then.Failures, c.Then.FailuresMore = summaryFailures(c.Then.Failures, cs.Then.Failures, cs.Then.FailuresMore)
	c.Then.SumFailed, c.Then.SumRead = cs.Then.Failed, true
}

// summaryFailures are a run's failures as its summary gives them: they
// replace what the events said (a file that failed and was copied again
// is not failed), in the summary's order (its first failed files, then
// what else failed: its hash lists), each with the event's words when
// one said why (they name the destination); more, the summary's count
// of the failed files it left out (FailuresMore), is the count of those
// not held. The summary bounds its list (offload's FailuresListed, and
// what failed beside the files always listed): it is held whole.
func summaryFailures(events []failure, fs []offload.Failure, more int) ([]failure, int) {
	out := make([]failure, 0, len(fs))
	for _, f := range fs {
		why := f.Error
		for _, e := range events {
			if e.Path == f.Path {
				why = e.Why
				break
			}
		}
		out = append(out, failure{Path: f.Path, Why: why})
	}
	return out, more
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
		Summary: m.summary, Err: m.err, Plan: m.plan, PlanWhy: m.planWhy, Sim: m.sim, Job: m.job, HaveJob: m.haveJob}
	v.Dests, v.Then = append([]string(nil), m.dests...), append([]string(nil), m.then...)
	if len(m.dests) > 0 {
		v.FirstCopy = m.dests[0]
	}
	for _, c := range m.cards {
		cc := *c
		cc.runState = c.runState.copyOut(m.paused)
		if c.Then != nil {
			h := *c.Then
			h.runState = c.Then.runState.copyOut(m.paused)
			cc.Then = &h
		}
		v.Cards = append(v.Cards, cc)
	}
	if m.paused {
		// The model does not know of the pause: what it calls stalled
		// only waits for Resume.
		v.Job.Stalled = 0
	}
	return v
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
