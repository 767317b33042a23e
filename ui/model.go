package ui

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// Card states as the running view shows them. Only stateSafe says "safe
// to format", and only the job summary (offload.LoadSummary, built from
// the catalog) sets it: never an event alone. In a cascade a card is
// first stateFree ("card free": verified on the first-run destinations,
// it may leave the reader, NOT be formatted), read from the engine's
// card_free event; it is safe to format only once the summary says both
// runs verified it.
const (
	stateWaiting     = "Waiting"
	stateCopying     = "Copying"
	stateVerifying   = "Verifying"
	stateFinishing   = "Finishing"
	stateSealing     = "Writing hash lists"
	stateSafe        = "Verified: safe to format"
	stateFailed      = "Failed: NOT safe to format"
	stateInterrupted = "Interrupted: NOT safe to format"
	stateFree        = "Card free - eject: NOT safe to format yet"
	stateThenFailed  = "Second run FAILED: NOT safe to format (keep the card)"
)

// States of one run of a card (a cascade's first or second run), shown
// on its own row: never "safe to format".
const (
	runQueued   = "Queued (waits for a turn)"
	runWaitFree = "Starts when the card is free"
	runDone     = "Done: verified"
	runCopied   = "Done: copied (not verified)"
	runFailed   = "FAILED"
	runStopped  = "Interrupted"
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

// runState is one run of a card as the engine reports it: the card's own
// (first) run, or a cascade's second run (from the first copy).
type runState struct {
	// Counters from the engine (Job.Snapshot or the last progress event).
	Prog offload.CardProgress
	// Rate and ETA from the last per-second progress event.
	Rate, ETA float64
	Done      bool   // card_done seen
	EndState  string // the engine's card state at card_done
	Error     string // the engine's card error at card_done
	Failures  []failure
	Series    []sample
	// work is the run's bytes copied and read back at each progress
	// event of the last workWindow: their rates tell when it ends.
	work []workSample
}

// workSample is a run's bytes copied and read back at T.
type workSample struct {
	T              time.Time
	Copied, ReadBk int64
}

// workWindow is how far back the time-to-safe estimate looks.
const workWindow = 10 * time.Second

// cardView is one card of the running job as the view shows it (the
// engine's own card run is offload.cardRun; this is its picture here).
type cardView struct {
	Label    string
	Path     string
	runState // the first run: read from the card
	// A cascade (the job has second-run destinations): Free once the
	// engine said card_free (or the summary CardFree), at FreeAt; Then is
	// the card's second run once the engine reports it.
	Cascade bool
	Free    bool
	FreeAt  time.Time
	Then    *hopRun
	// Eject: "" (not asked), ejectBusy, ejectDone or ejectFailed, and what
	// the eject said.
	Eject    string
	EjectMsg string
	// From the summary, once known: Status is the verdict model's state
	// of the card (package verdict), the one the GUI shows.
	HaveSummary bool
	Status      verdict.State
	Safe        bool
	SafeAt      time.Time
	Verdict     string
	// Clips is what the card holds in clips, from the catalog once the
	// clips of the card are recognised (after its copy is done); nil
	// until then.
	Clips *clipInfo
}

// clipInfo is a card's clips in short: its camera (or family), card type,
// clip count and summed duration.
type clipInfo struct {
	Camera  string
	Type    string
	Count   int
	Seconds float64
}

// text is the card's clips in words: "ARRI ALEXA 35 (ARRIRAW): 4 clips,
// 1m 12s"; a card of no clip says so.
func (k clipInfo) text() string {
	if k.Count == 0 {
		return "No clips recognised (files)"
	}
	cam := k.Camera
	if cam == "" {
		cam = "Camera not named"
	}
	if k.Type != "" && k.Type != clips.TypeFiles {
		cam += " (" + k.Type + ")"
	}
	dur := "duration unknown"
	if k.Seconds > 0 {
		dur = units.FormatDuration(time.Duration(k.Seconds * float64(time.Second)))
	}
	return fmt.Sprintf("%s: %s, %s", cam, plural(k.Count, "clip"), dur)
}

// summariseClips sums up a card's clips as the catalog holds them.
func summariseClips(rows []catalog.Clip) clipInfo {
	cs := make([]clips.Clip, len(rows))
	var sec float64
	for i, r := range rows {
		cs[i] = clips.Clip{Name: r.Name, Family: r.Family, Camera: r.Camera, Type: r.Type}
		sec += r.Seconds
	}
	k := clips.Summarise(cs)
	cam := k.Camera
	if cam == "" {
		cam = k.Family
	}
	return clipInfo{Camera: cam, Type: k.Type, Count: len(rows), Seconds: sec}
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

// hopRun is a cascade's second run of a card: its first copy copied to
// the second-run destinations ("A001 (2nd run)" in the engine's events).
type hopRun struct {
	Label string
	runState
}

// settled reports whether the card has nothing left to run, so that a
// summary read now is its verdict: its run ended, and in a cascade a
// first run that verified the card has a second run, which ended too.
func (c cardView) settled() bool {
	if !c.Done {
		return false
	}
	if !c.Cascade || c.EndState != offload.StateVerified {
		return true
	}
	return c.Then != nil && c.Then.Done
}

// State is the card's state in words (see the state constants).
func (c cardView) State() string {
	thenFailed := c.Then != nil && (len(c.Then.Failures) > 0 || (c.Then.Done && c.Then.EndState == offload.StateFailed))
	thenStopped := c.Then != nil && c.Then.Done && c.Then.EndState == "interrupted"
	switch {
	case c.HaveSummary && c.Status != "":
		return c.statusText()
	case c.HaveSummary && c.Safe:
		return stateSafe
	case c.HaveSummary && (c.EndState == "interrupted" || strings.HasPrefix(c.Verdict, "Interrupted") || thenStopped):
		// Files cut off by the cancel are listed as failed; the
		// card is interrupted, and a resume retries them.
		return stateInterrupted
	case c.HaveSummary && (len(c.Failures) > 0 || c.EndState == offload.StateFailed || strings.HasPrefix(c.Verdict, "FAILED")):
		return stateFailed
	case c.HaveSummary && (thenFailed || strings.HasPrefix(c.Verdict, "Second run FAILED")):
		return stateThenFailed
	case c.HaveSummary:
		return c.Verdict
	case c.Done && c.EndState == "interrupted":
		return stateInterrupted
	case c.Done && c.EndState == offload.StateFailed:
		return stateFailed
	case c.Free && thenFailed:
		return stateThenFailed
	case c.Free && thenStopped:
		return stateInterrupted
	case c.Free:
		// Whatever its second run does: the card may leave the reader,
		// and is not safe to format until the summary says so.
		return stateFree
	case c.Done:
		return stateFinishing
	}
	return c.phaseState()
}

// statusText is the verdict model's state of a card that ended, in the
// GUI's words.
func (c cardView) statusText() string {
	switch c.Status {
	case verdict.Safe:
		return stateSafe
	case verdict.Interrupted:
		return stateInterrupted
	case verdict.Failed:
		if c.Free {
			return stateThenFailed
		}
		return stateFailed
	case verdict.CardFree:
		return stateFree
	}
	return c.Verdict
}

// phaseState is a running run's phase in words.
func (r runState) phaseState() string {
	switch r.Prog.Phase {
	case "sealing":
		return stateSealing
	case "verifying":
		return stateVerifying
	case "copying":
		return stateCopying
	case "queued":
		return runQueued
	}
	return stateWaiting
}

// runText is the state of one run of a cascade, on its row.
func (r runState) runText() string {
	switch {
	case r.Done && r.EndState == offload.StateVerified:
		return runDone
	case r.Done && r.EndState == offload.StateCopied:
		return runCopied
	case r.Done && r.EndState == "interrupted":
		return runStopped
	case r.Done:
		return runFailed
	case len(r.Failures) > 0:
		return r.phaseState() + " (" + plural(len(r.Failures), "file") + " failed)"
	}
	return r.phaseState()
}

// Fraction is the share of the run's work done: bytes copied plus bytes
// read back, over both totals. It reaches 1 only when every copy has been
// read back.
func (r runState) Fraction() float64 {
	total := r.Prog.Bytes + r.Prog.VerifyTotal
	if total <= 0 {
		if r.Done && r.EndState != offload.StateFailed && r.EndState != "interrupted" {
			return 1
		}
		return 0
	}
	return min(float64(r.Prog.BytesCopied+r.Prog.BytesVerified)/float64(total), 1)
}

// take records a progress event of the run.
func (r *runState) take(p offload.CardProgress, t time.Time, window time.Duration) {
	r.Prog, r.Rate, r.ETA = p, p.Rate, p.ETASeconds
	r.Series = append(r.Series, sample{T: t, Rate: p.Rate})
	cut := t.Add(-window - 10*time.Second)
	i := 0
	for i < len(r.Series) && r.Series[i].T.Before(cut) {
		i++
	}
	r.Series = r.Series[i:]
	r.work = append(r.work, workSample{T: t, Copied: p.BytesCopied, ReadBk: p.BytesVerified})
	i = 0
	for i < len(r.work)-2 && r.work[i].T.Before(t.Add(-workWindow)) {
		i++
	}
	r.work = r.work[i:]
}

// rates are the run's copy and read-back rates (bytes a second) over
// the last workWindow; 0 when unknown.
func (r runState) rates() (copyRate, readRate float64) {
	if len(r.work) < 2 {
		return 0, 0
	}
	a, b := r.work[0], r.work[len(r.work)-1]
	dt := b.T.Sub(a.T).Seconds()
	if dt <= 0 {
		return 0, 0
	}
	return float64(b.Copied-a.Copied) / dt, float64(b.ReadBk-a.ReadBk) / dt
}

// runETA is the time the run needs to end at the rates it has had:
// copying and reading back go on at once, so the longer of the two; -1
// when a rate is not known yet.
func runETA(copyLeft, readLeft int64, copyRate, readRate float64) float64 {
	eta := 0.0
	for _, w := range [][2]float64{{float64(copyLeft), copyRate}, {float64(readLeft), readRate}} {
		switch {
		case w[0] <= 0:
		case w[1] <= 0:
			return -1
		default:
			eta = max(eta, w[0]/w[1])
		}
	}
	return eta
}

// eta is the run's time to its end (see runETA); 0 when it is done.
func (r runState) eta() float64 {
	if r.Done {
		return 0
	}
	c, v := r.rates()
	return runETA(r.Prog.Bytes-r.Prog.BytesCopied, r.Prog.VerifyTotal-r.Prog.BytesVerified, c, v)
}

// SafeETA is the estimated time until the card is safe to format, in
// seconds: its run's time to end at the copy and read-back rates it has
// had and, in a cascade, its second run's (one not started yet: the card
// copied once and read back from each second-run destination at the first
// run's rates). 0 when the card is safe; -1 when there is no rate to tell
// yet, or the card ended not safe (no time makes it safe).
func (c cardView) SafeETA(thenDests int) float64 {
	switch {
	case c.HaveSummary && c.Safe:
		return 0
	case c.HaveSummary, c.Done && c.EndState != offload.StateVerified:
		return -1
	}
	eta := c.eta()
	if eta < 0 || !c.Cascade {
		return eta
	}
	var second float64
	switch {
	case c.Then != nil:
		second = c.Then.eta()
	default:
		cr, vr := c.rates()
		second = runETA(c.Prog.Bytes, c.Prog.Bytes*int64(thenDests), cr, vr)
	}
	if second < 0 {
		return -1
	}
	return eta + second
}

// counters refreshes the byte and file counters (Job.Snapshot), keeping
// the rates of the last progress event.
func (r *runState) counters(p offload.CardProgress) {
	rate, eta, old := r.Prog.Rate, r.Prog.ETASeconds, r.Prog.Dests
	r.Prog = p
	r.Prog.Rate, r.Prog.ETASeconds = rate, eta
	keepDestRates(&r.Prog, old)
}

func (r *runState) copyOut() runState {
	o := *r
	o.Failures = append([]failure(nil), r.Failures...)
	o.Series = append([]sample(nil), r.Series...)
	o.work = append([]workSample(nil), r.work...)
	return o
}

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

func (c *runState) addFailure(path, why string) {
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

// Eject states of a card.
const (
	ejectBusy   = "ejecting"
	ejectDone   = "ejected"
	ejectFailed = "failed"
)

// ejectable reports whether the card may be ejected now: it is free (a
// cascade's first run verified it: card_free, or the summary), or,
// without a cascade, its run ended verified (every handle on it closed);
// and it is not being ejected or ejected already.
func (c cardView) ejectable() bool {
	if c.Path == "" || c.Eject == ejectBusy || c.Eject == ejectDone {
		return false
	}
	return c.Free || (!c.Cascade && c.Done && c.EndState == offload.StateVerified) || (c.HaveSummary && c.Safe)
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

// totals are the job's figures at a glance: the rate of all cards now,
// and the time until the last card is done with its current phase.
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
