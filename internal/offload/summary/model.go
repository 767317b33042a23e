package summary

import (
	"math"
	"time"

	"github.com/dit-org/dit/internal/verdict"
)

// The job model: the figures of a job and of each of its cards that
// every JSON dit writes of a job carries, under one name, with one
// meaning, computed once (LoadSummary). The summary (dit offload's end,
// dit job show --json, dit serve) embeds JobFigures in [Summary] and
// CardFigures in each [CardSummary]; the job report (reports/jobreport)
// embeds the same two in its "totals" and each of its "cards", filled
// from the summary. A figure both give is read from here, so the two
// cannot disagree.

// JobFigures are a job's figures (the first run's cards; a cascade's
// second runs are counted in Failed and in the times).
type JobFigures struct {
	// Files and Bytes are the cards' files and their size, as scanned.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Failed counts the files that failed, on every card, in every run
	// (a cascade's second run's too).
	Failed int `json:"failed"`
	// Seconds is the wall time from start to finish, pauses included (a
	// job not finished, killed or running: to the end of its last run, a
	// killed run ending at its last sample); ActiveSeconds the time the
	// job ran (its runs summed), PausedSeconds the rest; Runs > 1 means it
	// was interrupted and resumed (see Activity). To the millisecond.
	Seconds       float64 `json:"seconds"`
	ActiveSeconds float64 `json:"active_seconds"`
	PausedSeconds float64 `json:"paused_seconds"`
	Runs          int     `json:"runs"`
	// BytesCopied are the bytes read from the cards in every run (a file
	// read again after an interruption counts again) to be written to a
	// destination: a file read only to be checked against a copy already
	// there (an object in the cloud folder from an earlier job) counts
	// none. TBPerHour is them over ActiveSeconds in decimal TB per hour
	// (10^12 bytes per hour), unrounded (0: nothing moved). Front ends
	// say "nothing copied" where BytesCopied is 0, not a rate.
	BytesCopied int64   `json:"bytes_copied"`
	TBPerHour   float64 `json:"tb_per_hour"`
}

// CardFigures are one card's figures: its first run's (in a cascade its
// verdict and safe to format are the card's, both runs decided).
type CardFigures struct {
	Label string `json:"label"`
	// Status is the card's state as the verdict model decides it
	// (package verdict); Verdict the sentence that says why.
	Status       verdict.State `json:"state"`
	Verdict      string        `json:"verdict"`
	SafeToFormat bool          `json:"safe_to_format"`
	// Files and Bytes are the card's, as scanned; Failed the files of it
	// that failed (its first run).
	Files  int   `json:"files"`
	Bytes  int64 `json:"bytes"`
	Failed int   `json:"failed"`
	// When the card was copied and verified (its first run).
	CopyStarted  time.Time `json:"copy_started,omitzero"`
	CopyFinished time.Time `json:"copy_finished,omitzero"`
	VerifyStart  time.Time `json:"verify_started,omitzero"`
	VerifyEnd    time.Time `json:"verify_finished,omitzero"`
	// BytesCopied are the bytes read from the card in every run of the
	// job; TBPerHour is them over the time the card was active (copying
	// or verifying: end to end), in TB/hour, unrounded, 0 when nothing
	// was moved.
	BytesCopied int64   `json:"bytes_copied"`
	TBPerHour   float64 `json:"tb_per_hour"`
	// A cascade (dit offload --then): the card is free (CardFree, at
	// FreeAt) once its first run verified it on every -d destination and
	// wrote its hash lists: it may leave the reader, not be formatted. It
	// is safe to format (SafeToFormat, at SafeAt) only once the second
	// run verified it on every --then destination too. Without a cascade
	// SafeAt is when the card was verified and sealed.
	CardFree bool      `json:"card_free,omitempty"`
	FreeAt   time.Time `json:"card_free_at,omitzero"`
	SafeAt   time.Time `json:"safe_to_format_at,omitzero"`
}

// TBPerHour is bytes over seconds in decimal TB per hour (10^12 bytes
// per hour), unrounded (a small or slow job's figure must not round to
// 0); 0 when no time passed. The job's is computed from its
// ActiveSeconds as published, so bytes_copied / active_seconds in the
// JSON gives tb_per_hour exactly; renderers round for people.
func TBPerHour(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / seconds * 3600 / 1e12
}

// RoundSeconds is a time in seconds as the job model gives it: to the
// millisecond.
func RoundSeconds(v float64) float64 { return roundTo(v, 3) }

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
