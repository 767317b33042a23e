package live

import "time"

// Progress is the live picture of a job at one moment: the job's
// figures and estimates, and one entry per run of each card (a cascade's
// card has two: Hop 1 from the card, Hop 2 from the first copy).
type Progress struct {
	Job   Job    `json:"job"`
	Cards []Card `json:"cards"`
}

// Job is the job's part of a snapshot.
type Job struct {
	// At is the snapshot's time; Elapsed the seconds this job has been
	// active (its earlier runs' active time included).
	At      time.Time `json:"at"`
	Elapsed float64   `json:"elapsed_s"`
	// Bytes: the cards' bytes to copy; BytesCopied: distinct bytes read
	// from the cards and written (never above Bytes); BytesRead: every
	// byte read from the cards for a copy in every run (what TBPerHour
	// counts, as the job's summary does).
	Bytes       int64 `json:"bytes"`
	BytesCopied int64 `json:"bytes_copied"`
	BytesRead   int64 `json:"bytes_read"`
	// Rate: bytes per second read from the cards, smoothed over Window;
	// TBPerHour: BytesRead over Elapsed, in decimal TB per hour, the job's
	// end-to-end figure so far (the summary's, live).
	Rate      float64 `json:"rate_bytes_per_s"`
	TBPerHour float64 `json:"tb_per_hour"`
	// Paused: the job is held (its estimates unknown until it goes on).
	Paused bool `json:"paused,omitempty"`
	// Cards: the job's cards; Copied: those read whole (past copying);
	// Stalled: runs with a stall.
	Cards   int `json:"cards"`
	Copied  int `json:"cards_copied"`
	Stalled int `json:"cards_stalled"`
	// ETA: until every card is copied, free (a cascade) and safe to
	// format; unknown while any card is stalled.
	ETA Times `json:"eta"`
}

// Card is one run of a card.
type Card struct {
	Label string `json:"label"`
	// Hop is 2 for a cascade's second run (read from the first copy).
	Hop   int   `json:"hop,omitempty"`
	Phase Phase `json:"phase"`
	// Files and Bytes are what the run copies; FilesCopied and
	// BytesCopied what was read and written so far, each file and byte
	// once (BytesCopied <= Bytes); BytesResent: bytes read or sent again
	// after a retry, counted apart.
	Files       int   `json:"files"`
	FilesCopied int   `json:"files_copied"`
	FilesDone   int   `json:"files_done"` // final on every destination
	FilesFailed int   `json:"files_failed"`
	Bytes       int64 `json:"bytes"`
	BytesCopied int64 `json:"bytes_copied"`
	BytesResent int64 `json:"bytes_resent,omitempty"`
	// ReadBack: what the run reads back, over all its destinations.
	ReadBack
	Current string `json:"current,omitempty"`
	// Rate is the phase's rate (copying: bytes copied; verifying: read
	// back), smoothed over Window.
	Rate float64 `json:"rate_bytes_per_s"`
	// ActiveSeconds is the time the run was copying or verifying so far
	// (paused time included, as in the job's Elapsed; its time queued or
	// writing its hash lists not); TBPerHour is the bytes the run read
	// from its source (BytesCopied + BytesResent: the card, or for a
	// second run the first copy) over ActiveSeconds, in decimal TB per
	// hour (10^12 bytes per hour): the card's end-to-end figure so far,
	// as the summary gives it once the card ended (0 before anything is
	// read).
	ActiveSeconds float64 `json:"active_s"`
	TBPerHour     float64 `json:"tb_per_hour"`
	// ETA: until the card is copied, free and safe to format (for a
	// second run: its card's). ETASeconds is ETA.Safe (the time to safe
	// to format), kept as the one figure older consumers read.
	ETA        Times    `json:"eta"`
	ETASeconds Estimate `json:"eta_s"`
	// Retries: files (or uploads) dit tried again in this run; Stall:
	// the card or a destination of it has not moved (nil: moving).
	Retries int    `json:"retries,omitempty"`
	Stall   *Stall `json:"stall,omitempty"`
	// After: the seal's files and the proxies, done of to do (never
	// above).
	After
	// Dests: the run's copies, in the order of its destinations.
	Dests []Dest `json:"dests,omitempty"`
}

// ReadBack is a run's read-back over all its destinations: VerifyTotal
// bytes to read back, BytesVerified read back so far (<= VerifyTotal);
// VerifyFiles and FilesVerified the same in files (a file once per
// destination). Its fields are the card's own in JSON.
type ReadBack struct {
	VerifyTotal   int64 `json:"verify_total"`
	BytesVerified int64 `json:"bytes_verified"`
	VerifyFiles   int   `json:"verify_files"`
	FilesVerified int   `json:"files_verified"`
}

// Dest is one card's copy on one destination.
type Dest struct {
	Dest  string    `json:"dest"`
	State DestState `json:"state"`
	// Bytes: what the run writes there, at most; BytesWritten: bytes that
	// reached it (each once, <= Bytes); BytesResent: sent again after a
	// retry.
	Bytes         int64 `json:"bytes"`
	BytesWritten  int64 `json:"bytes_written"`
	BytesResent   int64 `json:"bytes_resent,omitempty"`
	VerifyTotal   int64 `json:"verify_total"`
	BytesVerified int64 `json:"bytes_verified"`
	// VerifyFiles: the run's files to read back there; FilesVerified:
	// read back so far (<= VerifyFiles).
	VerifyFiles   int    `json:"verify_files"`
	FilesVerified int    `json:"files_verified"`
	FilesFailed   int    `json:"files_failed"`
	Current       string `json:"current,omitempty"`
	// Rate: written per second while copying, read back per second
	// after; smoothed over Window.
	Rate float64 `json:"rate_bytes_per_s"`
	// Retries: attempts dit made again there; LastError the last one's
	// reason (kept while it is recent).
	Retries   int    `json:"retries,omitempty"`
	LastError string `json:"last_error,omitempty"`
	Stall     *Stall `json:"stall,omitempty"`
}

// Percent is the part of the run done, 0-100 (never above): copy and
// read-back weighed by their bytes.
func (c Card) Percent() float64 {
	total := c.Bytes + c.VerifyTotal
	if total <= 0 {
		if c.Phase == Done {
			return 100
		}
		return 0
	}
	done := min(c.BytesCopied, c.Bytes) + min(c.BytesVerified, c.VerifyTotal)
	return min(100, 100*float64(done)/float64(total))
}

// PhasePercent is the part of the current phase done, 0-100: copying
// its bytes copied, verifying its bytes read back, sealing its files
// named in hash lists (when counted).
func (c Card) PhasePercent() float64 {
	n, d := c.BytesCopied, c.Bytes
	switch {
	case c.Phase == Sealing && c.SealFiles > 0:
		n, d = int64(c.FilesSealed), int64(c.SealFiles)
	case c.Phase == Verifying || c.Phase == Sealing || c.Phase == Done:
		n, d = c.BytesVerified, c.VerifyTotal
	}
	if d <= 0 {
		if c.Phase == Done || c.Phase == Sealing {
			return 100
		}
		return 0
	}
	return min(100, 100*float64(min(n, d))/float64(d))
}
