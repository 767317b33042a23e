package offload

import (
	"time"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/verdict"
)

// EventType is what an Event tells; front ends switch on it.
type EventType string

// Event types.
const (
	EvJobStarted  EventType = "job_started"
	EvCardStarted EventType = "card_started"
	EvFile        EventType = "file"     // a file reached its final state on every destination
	EvProgress    EventType = "progress" // once per second: the live model's snapshot (package live)
	// EvRunDone: one run of a card ended (Hop 2: a cascade's second
	// run): State is the run's (verified, copied, failed, interrupted).
	// It is not the card's verdict: see EvCardDone.
	EvRunDone EventType = "run_done"
	// EvSafeToFormat: the card is verified on every destination of every
	// run, its hash lists written: it may be formatted. Sent once, just
	// before its EvCardDone.
	EvSafeToFormat EventType = "safe_to_format"
	// EvCardDone: the card reached its end in this process: State is its
	// verdict (package verdict: safe_to_format, copied, failed,
	// interrupted), Message says why, Summary is the card as the catalog
	// has it. A cascade's card is done after its second run (or when its
	// first run ended without making it free).
	EvCardDone EventType = "card_done"
	EvWarning  EventType = "warning"
	// EvCardFree: in a cascade, the card is verified on every first-run
	// destination (its hash lists written): it may leave the reader, not
	// be formatted. Its second run starts.
	EvCardFree EventType = "card_free"
	// EvCardCopied: a card (or a second run) has read its last file; its
	// copies are still being read back. A scheduler re-plans on it.
	EvCardCopied EventType = "card_copied"
	// EvCardRetried: a card of the running job whose run ended unverified
	// (removed, failed) runs again (Job.RetryCard).
	EvCardRetried EventType = "card_retried"
	// EvStalled: a card or a destination of it has not moved for
	// live.StallAfter: Message says where and why (live.Stall.String);
	// sent once a stall, EvMoving when it moves again.
	EvStalled EventType = "stalled"
	EvMoving  EventType = "moving"
	// EvDecided: every card of the job has its verdict, before the
	// reports, clip thumbnails and proxies are made: Job is the job's
	// summary as it will end (State final; its reports not listed yet).
	// What follows can add warnings, never change a verdict.
	EvDecided EventType = "job_decided"
)

// EventSchema is the version of the event stream (dit offload --json),
// documented in docs/events.md; it changes when a field or an event
// changes meaning.
const EventSchema = 3

// Event is what the engine tells its front ends. The CLI prints them (as
// JSON lines with --json); the GUI renders them. Fields not relevant to a
// type are empty.
type Event struct {
	Type     EventType     `json:"type"`
	Schema   int           `json:"schema,omitempty"` // job_started: EventSchema
	Time     time.Time     `json:"time"`
	JobID    int64         `json:"job_id"`
	Card     string        `json:"card,omitempty"`
	Hop      int           `json:"hop,omitempty"` // run_done: 2 for a cascade's second run
	Path     string        `json:"path,omitempty"`
	State    verdict.State `json:"state,omitempty"`
	Message  string        `json:"message,omitempty"`
	Bytes    int64         `json:"bytes,omitempty"` // card_added: bytes to copy
	Copies   []CopyState   `json:"copies,omitempty"`
	Progress *Progress     `json:"progress,omitempty"`
	Summary  *CardSummary  `json:"summary,omitempty"`
	Job      *Summary      `json:"job,omitempty"` // job_decided
	Elapsed  time.Duration `json:"-"`
}

// CopyState is one file on one destination in an EvFile event: State
// is what its copy there ended as (Copy* below).
type CopyState struct {
	Dest  string         `json:"dest"`
	State live.CopyState `json:"state"`
	Error string         `json:"error,omitempty"`
}

// The states of a file's copy in an EvFile event (CopyState.State).
const (
	CopyVerified = live.CopyVerified
	CopyCopied   = live.CopyCopied
	CopyPresent  = live.CopyPresent
	CopyFailed   = live.CopyFailed
	CopySkipped  = live.CopySkipped
)

// copyOf is the copy of result r on the destination at root, as a file
// event tells it (r is final: its state is one of the catalog's words).
func copyOf(root string, r destResult) CopyState {
	return CopyState{Dest: root, State: live.CopyState(r.state), Error: r.err}
}

// Progress is the live model's snapshot of the job (package live):
// the job's figures and estimates, and every run of every card.
type Progress = live.Progress

// CardProgress is one run of a card, live.
type CardProgress = live.Card

// DestProgress is one card's copy on one destination, live.
type DestProgress = live.Dest

// Destination states in DestProgress.
const (
	DestQueued     = live.DestQueued
	DestWriting    = live.DestWriting
	DestVerifying  = live.DestVerifying
	DestSealing    = live.DestSealing
	DestVerified   = live.DestVerified
	DestCopied     = live.DestCopied
	DestUnverified = live.DestUnverified
	DestFailed     = live.DestFailed
	DestSealFailed = live.DestSealFailed
)
