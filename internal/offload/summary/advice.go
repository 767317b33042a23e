package summary

import "strings"

// CardAdvice is what a card's recorded failures say a DIT does next,
// read where those failures are written (the markers below are the
// engine's own words): front ends count it and word the next step, they
// do not read failure text. The summary counts it as it reads every
// failure of a run (CardSummary.Advice, HopSummary.Advice), those it
// does not list too.
type CardAdvice struct {
	// Changed: failures of files changed on the card since their copies
	// were verified (ChangedSinceVerified).
	Changed int `json:"changed_since_verified,omitempty"`
	// HistoryWaits: a cloud history waits for files not verified there
	// (HistoryWaits); HistoryWritten: one this job wrote before cannot
	// list more files (HistoryWritten); MoveAside: another history's
	// objects are in the card's ascmhl/ folder there (MoveHistoryAside).
	// Each for the card's run or its second run.
	HistoryWaits   bool `json:"history_waits,omitempty"`
	HistoryWritten bool `json:"history_written,omitempty"`
	MoveAside      bool `json:"move_history_aside,omitempty"`
}

// note counts one failure, why its error, into a.
func (a *CardAdvice) note(why string) {
	if strings.HasPrefix(why, ChangedSinceVerified) {
		a.Changed++
	}
	a.HistoryWaits = a.HistoryWaits || strings.HasPrefix(why, HistoryWaits)
	a.HistoryWritten = a.HistoryWritten || strings.Contains(why, HistoryWritten)
	a.MoveAside = a.MoveAside || strings.Contains(why, MoveHistoryAside)
}

// AdviceOf is what c's failures (and its second run's) say to do next:
// Changed counts the card's run's, listed or not; the history flags are
// either run's.
func AdviceOf(c CardSummary) CardAdvice {
	a := c.Advice
	if h := c.Then; h != nil {
		a.HistoryWaits = a.HistoryWaits || h.Advice.HistoryWaits
		a.HistoryWritten = a.HistoryWritten || h.Advice.HistoryWritten
		a.MoveAside = a.MoveAside || h.Advice.MoveAside
	}
	return a
}
