package summary

import "strings"

// CardAdvice is what a card's recorded failures say a DIT does next,
// read where those failures are written (the markers below are the
// engine's own words): front ends count it and word the next step, they
// do not read failure text.
type CardAdvice struct {
	// Changed: failures of files changed on the card since their copies
	// were verified (ChangedSinceVerified).
	Changed int
	// HistoryWaits: a cloud history waits for files not verified there
	// (HistoryWaits); HistoryWritten: one this job wrote before cannot
	// list more files (HistoryWritten); MoveAside: another history's
	// objects are in the card's ascmhl/ folder there (MoveHistoryAside).
	// Each for the card's run or its second run.
	HistoryWaits, HistoryWritten, MoveAside bool
}

// AdviceOf reads c's failures (and its second run's) into a CardAdvice.
func AdviceOf(c CardSummary) CardAdvice {
	var a CardAdvice
	for _, f := range c.Failures {
		if strings.HasPrefix(f.Error, ChangedSinceVerified) {
			a.Changed++
		}
	}
	fs := c.Failures
	if c.Then != nil {
		fs = append(fs[:len(fs):len(fs)], c.Then.Failures...)
	}
	for _, f := range fs {
		a.HistoryWaits = a.HistoryWaits || strings.HasPrefix(f.Error, HistoryWaits)
		a.HistoryWritten = a.HistoryWritten || strings.Contains(f.Error, HistoryWritten)
		a.MoveAside = a.MoveAside || strings.Contains(f.Error, MoveHistoryAside)
	}
	return a
}
