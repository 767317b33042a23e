package offload

import "time"

// Event types.
const (
	EvJobStarted  = "job_started"
	EvCardStarted = "card_started"
	EvFile        = "file"     // a file reached its final state on every destination
	EvProgress    = "progress" // once per second
	// EvRunDone: one run of a card ended (Hop 2: a cascade's second
	// run): State is the run's (verified, copied, failed, interrupted).
	// It is not the card's verdict: see EvCardDone.
	EvRunDone = "run_done"
	// EvSafeToFormat: the card is verified on every destination of every
	// run, its hash lists written: it may be formatted. Sent once, just
	// before its EvCardDone.
	EvSafeToFormat = "safe_to_format"
	// EvCardDone: the card reached its end in this process: State is its
	// verdict (package verdict: safe_to_format, copied, failed,
	// interrupted), Message says why, Summary is the card as the catalog
	// has it. A cascade's card is done after its second run (or when its
	// first run ended without making it free).
	EvCardDone = "card_done"
	EvWarning  = "warning"
	// EvCardFree: in a cascade, the card is verified on every first-run
	// destination (its hash lists written): it may leave the reader, not
	// be formatted. Its second run starts.
	EvCardFree = "card_free"
	// EvCardCopied: a card (or a second run) has read its last file; its
	// copies are still being read back. A scheduler re-plans on it.
	EvCardCopied = "card_copied"
	// EvCardRetried: a card of the running job whose run ended unverified
	// (removed, failed) runs again (Job.RetryCard).
	EvCardRetried = "card_retried"
)

// EventSchema is the version of the event stream (dit offload --json),
// documented in docs/events.md; it changes when a field or an event
// changes meaning.
const EventSchema = 2

// Event is what the engine tells its front ends. The CLI prints them (as
// JSON lines with --json); the GUI renders them. Fields not relevant to a
// type are empty.
type Event struct {
	Type     string        `json:"type"`
	Schema   int           `json:"schema,omitempty"` // job_started: EventSchema
	Time     time.Time     `json:"time"`
	JobID    int64         `json:"job_id"`
	Card     string        `json:"card,omitempty"`
	Hop      int           `json:"hop,omitempty"` // run_done: 2 for a cascade's second run
	Path     string        `json:"path,omitempty"`
	State    string        `json:"state,omitempty"`
	Message  string        `json:"message,omitempty"`
	Bytes    int64         `json:"bytes,omitempty"` // card_added: bytes to copy
	Copies   []CopyState   `json:"copies,omitempty"`
	Progress *Progress     `json:"progress,omitempty"`
	Summary  *CardSummary  `json:"summary,omitempty"`
	Elapsed  time.Duration `json:"-"`
}

// CopyState is one file on one destination in an EvFile event.
type CopyState struct {
	Dest  string `json:"dest"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// Progress is a snapshot of every card.
type Progress struct {
	Cards []CardProgress `json:"cards"`
}

// CardProgress is one card's live state.
type CardProgress struct {
	Label         string `json:"label"`
	Hop           int    `json:"hop,omitempty"` // 2: a cascade's second run (from the first copy)
	Phase         string `json:"phase"`         // queued | copying | verifying | sealing | done
	Files         int    `json:"files"`
	FilesDone     int    `json:"files_done"`
	FilesFailed   int    `json:"files_failed"`
	Bytes         int64  `json:"bytes"`          // to copy
	BytesCopied   int64  `json:"bytes_copied"`   // read from the card and written
	VerifyTotal   int64  `json:"verify_total"`   // bytes to read back over all destinations
	BytesVerified int64  `json:"bytes_verified"` // read back so far
	Current       string `json:"current,omitempty"`
	// Rate is the phase's rate (copying: bytes copied, verifying: read
	// back) and ETASeconds the time until the card is copied and read
	// back (0: unknown), both smoothed over the last seconds (RateTau) so
	// that a brief stall does not make the ETA jump; every front end shows
	// these. The catalog's samples are the raw per-second rates.
	Rate       float64 `json:"rate_bytes_per_s"`
	ETASeconds float64 `json:"eta_s"`
	// Dests: the card's copies, one per destination of this run, in the
	// order of the job's destinations: a lagging or failing one shows.
	Dests []DestProgress `json:"dests,omitempty"`
}

// Destination states in DestProgress.
const (
	DestQueued     = "queued"     // the card has not started
	DestWriting    = "writing"    // the card's files are being written there
	DestVerifying  = "verifying"  // written; its copies being read back
	DestSealing    = "sealing"    // every copy read back; the card's hash lists being written
	DestVerified   = "verified"   // every file of the card read back and matched there
	DestCopied     = "copied"     // written, not read back (--verify none)
	DestUnverified = "unverified" // the run ended before every copy there was read back
	DestFailed     = "failed"     // a file of the card failed there (see the file events)
)

// DestProgress is one card's copy on one destination, counted where the
// copies are written and read back.
type DestProgress struct {
	Dest  string `json:"dest"` // the destination's root
	State string `json:"state"`
	// Bytes: what the plan writes there, at most (a file already there
	// with the card's bytes is compared, not written; a resumed copy goes
	// on from its checkpoint); BytesWritten: bytes that reached it.
	Bytes         int64 `json:"bytes"`
	BytesWritten  int64 `json:"bytes_written"`
	VerifyTotal   int64 `json:"verify_total"`   // bytes to read back there
	BytesVerified int64 `json:"bytes_verified"` // read back so far
	FilesFailed   int   `json:"files_failed"`
	// Current: the file being read back there ("" between files).
	Current string `json:"current,omitempty"`
	// Rate: bytes written per second while the card is copied, read back
	// per second after that; smoothed like CardProgress.Rate.
	Rate float64 `json:"rate_bytes_per_s"`
}
