package offload

import (
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload/summary"
)

// The read model (internal/offload/summary) under the names the front
// ends know: a job's summary, its figures and activity, and what a card's
// failures say to do next, read from the catalog.

type (
	// Summary is a job as the front ends report it (summary.Summary).
	Summary = summary.Summary
	// CardSummary is a card's part of it.
	CardSummary = summary.CardSummary
	// HopSummary is a cascade's second run of a card.
	HopSummary = summary.HopSummary
	// DestSummary is a card's copy on one destination.
	DestSummary = summary.DestSummary
	// Failure is a file that failed, and why.
	Failure = summary.Failure
	// JobFigures and CardFigures are the job model's figures.
	JobFigures  = summary.JobFigures
	CardFigures = summary.CardFigures
	// Activity and CardActivity are what a job moved and the time it
	// spent.
	Activity     = summary.Activity
	CardActivity = summary.CardActivity
	// CardAdvice is what a card's recorded failures say to do next.
	CardAdvice = summary.CardAdvice
	// ResumeNote is what a resume trusted and what it read again.
	ResumeNote = summary.ResumeNote
)

// Exit codes of a job (Summary.ExitCode).
const (
	ExitOK          = summary.ExitOK
	ExitFatal       = summary.ExitFatal
	ExitSomeFailed  = summary.ExitSomeFailed
	ExitInterrupted = summary.ExitInterrupted
)

// The engine's words a card or file records, which the read model reads.
const (
	ChangedSinceVerified = summary.ChangedSinceVerified
	HistoryWaits         = summary.HistoryWaits
	HistoryWritten       = summary.HistoryWritten
	MoveHistoryAside     = summary.MoveHistoryAside
)

// LoadSummary reads job jobID's summary from the catalog.
func LoadSummary(cat *catalog.Catalog, jobID int64) (*Summary, error) {
	return summary.LoadSummary(cat, jobID)
}

// JobActivity reads what job jobID moved and the time it spent.
func JobActivity(cat *catalog.Catalog, jobID int64) (*Activity, error) {
	return summary.JobActivity(cat, jobID)
}

// AdviceOf reads c's failures (and its second run's) into a CardAdvice.
func AdviceOf(c CardSummary) CardAdvice { return summary.AdviceOf(c) }

// TBPerHour is bytes over seconds in TB/hour (summary.TBPerHour).
func TBPerHour(bytes int64, seconds float64) float64 { return summary.TBPerHour(bytes, seconds) }

// RoundSeconds rounds seconds to the millisecond (summary.RoundSeconds).
func RoundSeconds(v float64) float64 { return summary.RoundSeconds(v) }
