package ui

import (
	"fmt"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// Card states as the running view shows them. Only stateSafe says "safe
// to format", and only the engine's verdict sets it (verdict.Safe, from
// its card_done event or the job's summary, both read from the catalog):
// never a run's end alone. In a cascade a card is first stateFree ("card
// free": verified on the first-run destinations, it may leave the
// reader, NOT be formatted), read from the engine's card_free event; it
// is safe to format only once the verdict says both runs verified it.
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

// stalledSuffix follows a run's phase while the live model says it has
// not moved ("Copying - stalled"); the stall's cause is said beside.
const stalledSuffix = " - stalled"

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
	// Prog is the live model's picture of the run (package live): its
	// counters, rate, estimates and stall, from the last progress event
	// or Job.Snapshot. The view renders it and computes nothing of it.
	Prog     offload.CardProgress
	Done     bool          // run_done seen
	EndState verdict.State // the run's state at run_done (verified, copied, failed, interrupted)
	Error    string        // the engine's run error at run_done
	// Failures are what failed in the run, in the engine's order: its
	// failed files (file events, then the summary's), and what the
	// summary says failed beside them (its hash lists not written): the
	// first failuresHeld of them; FailuresMore counts the others (a card
	// of a million frames whose destination went away holds a hundred).
	Failures     []failure
	FailuresMore int
	// SumFailed is the summary's count of the run's failed files, once
	// read (SumRead): with the live model's FilesFailed before, the one
	// figure every count of failed files is said with (failedFiles).
	SumFailed int
	SumRead   bool
	// Series is the model's rate of the run at each progress event (the
	// throughput chart).
	Series []sample
}

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

// hopRun is a cascade's second run of a card: its first copy copied to
// the second-run destinations (Hop 2 in the engine's events).
type hopRun struct {
	runState
}

// settled reports whether the card has nothing left to run, so that a
// summary read now is its verdict: its run ended, and in a cascade a
// first run that verified the card has a second run, which ended too.
func (c cardView) settled() bool {
	if !c.Done {
		return false
	}
	if !c.Cascade || c.EndState != verdict.Verified {
		return true
	}
	return c.Then != nil && c.Then.Done
}

// thenEnd is the state the card's second run ended in ("" while it runs
// or has not started).
func (c cardView) thenEnd() verdict.State {
	if c.Then == nil || !c.Then.Done {
		return ""
	}
	return c.Then.EndState
}

// thenFailed reports whether the card's second run lost a file or ended
// failed.
func (c cardView) thenFailed() bool {
	return c.Then != nil && (len(c.Then.Failures) > 0 || c.thenEnd() == verdict.Failed)
}

// interrupted reports whether the card ended interrupted (its verdict,
// or a run that the engine said ended so).
func (c cardView) interrupted() bool {
	if c.HaveSummary {
		return c.Status == verdict.Interrupted
	}
	return c.Done && c.EndState == verdict.Interrupted
}

// State is the card's state in words (see the state constants): the
// engine's verdict once it gave one (card_done, or the job's summary),
// else what its runs say.
func (c cardView) State() string {
	if c.HaveSummary {
		return c.statusText()
	}
	switch {
	case c.Done && c.EndState == verdict.Interrupted:
		return stateInterrupted
	case c.Done && c.EndState == verdict.Failed:
		return stateFailed
	case c.Free && c.thenFailed():
		return stateThenFailed
	case c.Free && c.thenEnd() == verdict.Interrupted:
		return stateInterrupted
	case c.Free:
		// Whatever its second run does: the card may leave the reader,
		// and is not safe to format until the engine's verdict says so.
		return stateFree
	case c.Done:
		return stateFinishing
	}
	return c.phaseState()
}

// statusText is the engine's verdict of a card that ended, in the GUI's
// words; a state it has no words for reads as the engine's sentence.
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
	if c.Verdict == "" {
		return c.Status.Label()
	}
	return c.Verdict
}

// stalled reports whether the live model says the run has not moved for
// a while (live.StallAfter); a run that ended is not stalled.
func (r runState) stalled() bool { return !r.Done && r.Prog.Stall != nil }

// phaseState is a running run's phase in words, and "stalled" when the
// model says it has not moved.
func (r runState) phaseState() string {
	var st string
	switch r.Prog.Phase {
	case live.Sealing:
		st = stateSealing
	case live.Verifying:
		st = stateVerifying
	case live.Copying:
		st = stateCopying
	case live.Queued:
		st = runQueued
	default:
		st = stateWaiting
	}
	if r.stalled() {
		st += stalledSuffix
	}
	return st
}

// runText is the state of one run of a cascade, on its row.
func (r runState) runText() string {
	switch {
	case r.Done && r.EndState == verdict.Verified:
		return runDone
	case r.Done && r.EndState == verdict.Copied:
		return runCopied
	case r.Done && r.EndState == verdict.Interrupted:
		return runStopped
	case r.Done:
		return runFailed
	case len(r.Failures) > 0 && r.failedFiles() > 0:
		return r.phaseState() + " (" + plural(r.failedFiles(), "file") + " failed)"
	case len(r.Failures) > 0:
		return r.phaseState() + " (failures)" // no file counted yet (the next progress counts it), or not a file: its hash lists
	}
	return r.phaseState()
}

// Fraction is the share of the run's work done, as the model counts it
// (copy and read-back weighed by their bytes, live.Card.Percent): it
// reaches 1 only when every copy has been read back.
func (r runState) Fraction() float64 {
	if r.Prog.Bytes+r.Prog.VerifyTotal <= 0 {
		if r.Done && !r.EndState.Bad() {
			return 1
		}
		return 0
	}
	return r.Prog.Percent() / 100
}

// take records the model's snapshot of the run at a progress event.
func (r *runState) take(p offload.CardProgress, t time.Time, window time.Duration) {
	r.Prog = p
	r.Series = append(r.Series, sample{T: t, Rate: p.Rate})
	cut := t.Add(-window - 10*time.Second)
	i := 0
	for i < len(r.Series) && r.Series[i].T.Before(cut) {
		i++
	}
	r.Series = r.Series[i:]
}

// restart forgets how the run ended: the engine runs it again
// (card_retried).
func (r *runState) restart() {
	r.Done, r.EndState, r.Error, r.Failures, r.FailuresMore = false, "", "", nil, 0
	r.SumFailed, r.SumRead = 0, false
}

// failedFiles is the engine's count of the run's failed files: the
// summary's once read, else the live model's (the count each
// destination's row says its own of). What failed beside files (the
// hash lists) is listed with the failures, never counted as a file.
func (r runState) failedFiles() int {
	if r.SumRead {
		return r.SumFailed
	}
	return r.Prog.FilesFailed
}

// copyOut is a copy of the run to render; paused: the job is paused, so
// the model's stalls (it does not know of the pause) are left out.
func (r *runState) copyOut(paused bool) runState {
	o := *r
	o.Failures = append([]failure(nil), r.Failures...)
	o.Series = append([]sample(nil), r.Series...)
	o.Prog.Dests = append([]offload.DestProgress(nil), r.Prog.Dests...)
	if paused {
		o.Prog.Stall = nil
		for i := range o.Prog.Dests {
			o.Prog.Dests[i].Stall = nil
		}
	}
	return o
}

// failuresHeld is how many of a run's failures its card holds to list
// (a panel lists 20): the others are counted.
const failuresHeld = 100

// addFailure lists what failed at path (once), or counts it beyond
// failuresHeld.
func (c *runState) addFailure(path, why string) {
	for _, f := range c.Failures {
		if f.Path == path {
			return
		}
	}
	if len(c.Failures) == failuresHeld {
		c.FailuresMore++
		return
	}
	c.Failures = append(c.Failures, failure{Path: path, Why: why})
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
	return c.Free || (!c.Cascade && c.Done && c.EndState == verdict.Verified) || (c.HaveSummary && c.Safe)
}
