package ui

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// Card states as the running view shows them. Only stateSafe says "safe
// to format", and only the job summary (offload.LoadSummary, built from
// the catalog) sets it: never an event alone.
const (
	stateWaiting     = "Waiting"
	stateCopying     = "Copying"
	stateVerifying   = "Verifying"
	stateFinishing   = "Finishing"
	stateSealing     = "Writing hash lists"
	stateSafe        = "Verified: safe to format"
	stateFailed      = "Failed: NOT safe to format"
	stateInterrupted = "Interrupted: NOT safe to format"
)

// sample is one point of a card's throughput history.
type sample struct {
	T    time.Time
	Rate float64 // bytes/s
}

// failure is a file that failed, in words.
type failure struct {
	Path string
	Why  string
}

// cardRun is one card of the running job as the view shows it.
type cardRun struct {
	Label string
	Path  string
	// Counters from the engine (Job.Snapshot or the last progress event).
	Prog offload.CardProgress
	// Rate and ETA from the last per-second progress event.
	Rate, ETA float64
	Done      bool   // card_done seen
	EndState  string // the engine's card state at card_done
	Error     string // the engine's card error at card_done
	// From the summary, once known.
	HaveSummary bool
	Safe        bool
	Verdict     string
	Failures    []failure
	Series      []sample
}

// State is the card's state in words (see the state constants).
func (c cardRun) State() string {
	switch {
	case c.HaveSummary && c.Safe:
		return stateSafe
	case c.HaveSummary && (c.EndState == "interrupted" || strings.HasPrefix(c.Verdict, "Interrupted")):
		// Files cut off by the cancel are listed as failed; the
		// card is interrupted, and a resume retries them.
		return stateInterrupted
	case c.HaveSummary && (len(c.Failures) > 0 || c.EndState == offload.StateFailed || strings.HasPrefix(c.Verdict, "FAILED")):
		return stateFailed
	case c.HaveSummary:
		return c.Verdict
	case c.Done && c.EndState == "interrupted":
		return stateInterrupted
	case c.Done && c.EndState == offload.StateFailed:
		return stateFailed
	case c.Done:
		return stateFinishing
	case c.Prog.Phase == "sealing":
		return stateSealing
	case c.Prog.Phase == "verifying":
		return stateVerifying
	case c.Prog.Phase == "copying":
		return stateCopying
	}
	return stateWaiting
}

// Fraction is the share of the card's work done: bytes copied plus bytes
// read back, over both totals. It reaches 1 only when every copy has been
// read back.
func (c cardRun) Fraction() float64 {
	total := c.Prog.Bytes + c.Prog.VerifyTotal
	if total <= 0 {
		if c.Done && c.EndState != offload.StateFailed && c.EndState != "interrupted" {
			return 1
		}
		return 0
	}
	return min(float64(c.Prog.BytesCopied+c.Prog.BytesVerified)/float64(total), 1)
}

// runModel is the running job's state, fed by the engine's events from
// any goroutine; the view renders copies of it (view).
type runModel struct {
	mu       sync.Mutex
	jobID    int64
	name     string
	started  time.Time
	window   time.Duration
	cards    []*cardRun
	warnings []string
	paused   bool
	finished bool
	summary  *offload.Summary
	err      string
	plan     *plan.Result
	planWhy  string
	sim      string // "simulated at 1/10 of the field rates", or ""
	now      time.Time
}

// runView is a consistent copy of a runModel.
type runView struct {
	JobID    int64
	Name     string
	Started  time.Time
	Now      time.Time
	Window   time.Duration
	Cards    []cardRun
	Warnings []string
	Paused   bool
	Finished bool
	Summary  *offload.Summary
	Err      string
	Plan     *plan.Result
	PlanWhy  string
	Sim      string
}

func newRunModel(jobID int64, name string, started time.Time, p offload.Progress, paths []string) *runModel {
	m := &runModel{jobID: jobID, name: name, started: started, window: 5 * time.Minute, now: started}
	for i, c := range p.Cards {
		cr := &cardRun{Label: c.Label, Prog: c}
		if i < len(paths) {
			cr.Path = paths[i]
		}
		m.cards = append(m.cards, cr)
	}
	return m
}

func (m *runModel) card(label string) *cardRun {
	for _, c := range m.cards {
		if c.Label == label {
			return c
		}
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
			c := m.card(p.Label)
			if c == nil {
				continue
			}
			c.Prog, c.Rate, c.ETA = p, p.Rate, p.ETASeconds
			c.Series = append(c.Series, sample{T: e.Time, Rate: p.Rate})
			cut := e.Time.Add(-m.window - 10*time.Second)
			i := 0
			for i < len(c.Series) && c.Series[i].T.Before(cut) {
				i++
			}
			c.Series = c.Series[i:]
		}
		return true
	case offload.EvFile:
		if e.State != offload.StateFailed {
			return false
		}
		if c := m.card(e.Card); c != nil {
			c.addFailure(e.Path, fileFailure(e))
		}
		return false
	case offload.EvCardAdded:
		if m.card(e.Card) == nil {
			m.cards = append(m.cards, &cardRun{Label: e.Card, Path: e.Path})
		}
		return true
	case offload.EvCardDone:
		if c := m.card(e.Card); c != nil {
			c.Done, c.EndState, c.Error = true, e.State, e.Message
			c.Rate, c.ETA = 0, 0
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
func fileFailure(e offload.Event) string {
	var parts []string
	for _, cp := range e.Copies {
		if cp.State == offload.StateFailed && cp.Error != "" {
			parts = append(parts, "on "+cp.Dest+": "+cp.Error)
		}
	}
	if len(parts) == 0 {
		if e.Message != "" {
			return e.Message
		}
		return "failed"
	}
	return strings.Join(parts, "; ")
}

func (c *cardRun) addFailure(path, why string) {
	for _, f := range c.Failures {
		if f.Path == path {
			return
		}
	}
	c.Failures = append(c.Failures, failure{Path: path, Why: why})
}

// setCounters refreshes the byte and file counters from Job.Snapshot (the
// rates stay those of the last progress event).
func (m *runModel) setCounters(p offload.Progress, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.After(m.now) {
		m.now = now
	}
	for _, s := range p.Cards {
		if c := m.card(s.Label); c != nil {
			rate, eta := c.Prog.Rate, c.Prog.ETASeconds
			c.Prog = s
			c.Prog.Rate, c.Prog.ETASeconds = rate, eta
		}
	}
}

// applySummary takes the verdicts of a (card's or the job's) summary read
// from the catalog. Only cards that are done take it: a summary read while
// a card still runs says nothing final about it.
func (m *runModel) applySummary(s *offload.Summary, final bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, cs := range s.Cards {
		c := m.card(cs.Label)
		if c == nil || (!c.Done && !final) {
			continue
		}
		c.HaveSummary, c.Safe, c.Verdict = true, cs.SafeToFormat, cs.Verdict
		if c.EndState == "" {
			c.EndState = cs.State
		}
		for _, f := range cs.Failures {
			c.addFailure(f.Path, f.Error)
		}
		sort.SliceStable(c.Failures, func(i, j int) bool { return c.Failures[i].Path < c.Failures[j].Path })
	}
	if final {
		m.finished, m.summary = true, s
	}
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
		Warnings: append([]string(nil), m.warnings...), Paused: m.paused, Finished: m.finished,
		Summary: m.summary, Err: m.err, Plan: m.plan, PlanWhy: m.planWhy, Sim: m.sim}
	for _, c := range m.cards {
		cc := *c
		cc.Failures = append([]failure(nil), c.Failures...)
		cc.Series = append([]sample(nil), c.Series...)
		v.Cards = append(v.Cards, cc)
	}
	return v
}

// totals are the job's figures at a glance: the rate of all cards now,
// and the time until the last card is done with its current phase.
func (v runView) totals() (rate, eta float64) {
	for _, c := range v.Cards {
		if c.Done {
			continue
		}
		rate += c.Rate
		eta = max(eta, c.ETA)
	}
	return rate, eta
}
