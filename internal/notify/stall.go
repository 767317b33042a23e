package notify

import (
	"fmt"
	"time"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// stall is what the notice of a run's stall said: where, the engine's
// words, when.
type stall struct {
	where, words string
	at           time.Time
}

// runName names run r in a sentence: "Card A001", or "Card A001's second
// run (from the first copy)".
func runName(r run) string {
	if r.hop == 2 {
		return fmt.Sprintf("Card %s's second run (from the first copy)", r.card)
	}
	return "Card " + r.card
}

// stalled is the notice of stall event e: the run has not moved for a
// while; the engine's words say where and why ("s3: connection refused,
// retry 3 of 10, since 12s"). One a stall: the engine sends it once.
func (t *Tracker) stalled(e offload.Event) []Message {
	r := runOf(e)
	t.stalls[r] = stall{where: e.Path, words: e.Message, at: e.Time}
	text := fmt.Sprintf("%s is stalled at %s: %s.\ndit keeps trying; the card is NOT safe to format until it is verified. A notice follows when it moves again.",
		runName(r), e.Path, e.Message)
	m := t.msg(Stalled, e.Card, text, e.Time)
	m.Hop, m.Where = e.Hop, e.Path
	return []Message{m}
}

// moving is the notice that a stalled run moves again (event e): the
// stall its notice said is over. Nothing when no stall was said.
func (t *Tracker) moving(e offload.Event) []Message {
	r := runOf(e)
	s, ok := t.stalls[r]
	if !ok {
		return nil
	}
	delete(t.stalls, r)
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	text := fmt.Sprintf("%s moves again at %s, %s after the stall notice (%s).", runName(r), s.where,
		units.FormatDuration(at.Sub(s.at)), s.words)
	m := t.msg(Moving, e.Card, text, at)
	m.Hop, m.Where = e.Hop, s.where
	return []Message{m}
}
