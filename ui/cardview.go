package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/offload"
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

func (c *runState) addFailure(path, why string) {
	for _, f := range c.Failures {
		if f.Path == path {
			return
		}
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
	return c.Free || (!c.Cascade && c.Done && c.EndState == offload.StateVerified) || (c.HaveSummary && c.Safe)
}
