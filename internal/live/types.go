package live

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/dit-org/dit/internal/units"
)

// Phase is where a run of a card is.
type Phase string

// The phases of a run, in order.
const (
	Queued    Phase = "queued"    // waiting: not started, or waiting for a second-run slot
	Copying   Phase = "copying"   // read from its source, written to every destination (copies read back as they land)
	Verifying Phase = "verifying" // read: its copies being read back
	Sealing   Phase = "sealing"   // every copy read back: its hash lists being written
	Done      Phase = "done"      // the run ended (its verdict: package verdict)
)

// Active reports whether a process is at work on a run in phase p.
func (p Phase) Active() bool { return p == Copying || p == Verifying || p == Sealing }

// moving reports whether a run in phase p moves bytes: copying or
// verifying (the time a card's TB/hour counts, as the summary's does).
func (p Phase) moving() bool { return p == Copying || p == Verifying }

// tbPerHour is bytes over seconds in decimal TB per hour (10^12 bytes per
// hour), unrounded; 0 when no time passed or nothing moved.
func tbPerHour(bytes int64, seconds float64) float64 {
	if bytes <= 0 || seconds <= 0 {
		return 0
	}
	return float64(bytes) / seconds * 3600 / 1e12
}

// DestState is the state of one card's copy on one destination.
type DestState string

// The states of a copy.
const (
	DestQueued     DestState = "queued"     // the card has not started
	DestWriting    DestState = "writing"    // the card's files are being written there
	DestVerifying  DestState = "verifying"  // written; its copies being read back
	DestSealing    DestState = "sealing"    // every copy read back; the card's hash lists being written
	DestVerified   DestState = "verified"   // every file of the card read back and matched there
	DestCopied     DestState = "copied"     // written, not read back (--verify none)
	DestUnverified DestState = "unverified" // the run ended before every copy there was read back
	DestFailed     DestState = "failed"     // a file of the card failed there
	// DestSealFailed: the card's hash lists (ASC MHL, MHL) could not be
	// written there, whatever its copies are: the card is NOT safe to
	// format (its verdict says failed).
	DestSealFailed DestState = "seal_failed"
)

// Ended reports whether no more work is done on the copy in this run.
func (s DestState) Ended() bool {
	switch s {
	case DestVerified, DestCopied, DestUnverified, DestFailed, DestSealFailed:
		return true
	}
	return false
}

// CopyState is what one file's copy on one destination ended as, once
// the file is final (every copy of it written and read back): the copies
// of a file event. Its words are the catalog's (copies.state).
type CopyState string

// The states of a file's copy.
const (
	CopyVerified CopyState = "verified" // written (or found there) and read back: it matched
	CopyCopied   CopyState = "copied"   // written, not read back (--verify none)
	CopyPresent  CopyState = "present"  // found there with the card's bytes, not written, not read back (--verify none)
	CopyFailed   CopyState = "failed"   // not written, or read back and not matched: Error says why
	CopySkipped  CopyState = "skipped"  // another file is there and was left alone (--on-conflict skip): Error says where
)

// Bad reports whether the copy is not there as the card has it: the
// file failed on that destination.
func (s CopyState) Bad() bool { return s == CopyFailed || s == CopySkipped }

// Estimate is a time still to go, as the model estimates it. Known is
// false when dit cannot say: a stall, or nothing measured and nothing
// planned yet. In JSON it is a number of seconds, or null when unknown.
type Estimate struct {
	Seconds float64
	Known   bool
}

// In is a known estimate of seconds (negative: 0).
func In(seconds float64) Estimate {
	if math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return Estimate{}
	}
	return Estimate{Seconds: max(seconds, 0), Known: true}
}

// Duration is the estimate as a duration (0 when unknown).
func (e Estimate) Duration() time.Duration {
	if !e.Known {
		return 0
	}
	return time.Duration(e.Seconds * float64(time.Second))
}

// String is the estimate as a person reads it: "1m05s", "unknown". It
// is rounded up to the second: what has anything left (0.4 s of a
// read-back, or a card that stopped moving short of its end) is never
// said "safe in 0s", which only what is done says.
func (e Estimate) String() string {
	if !e.Known {
		return "unknown"
	}
	secs := math.Ceil(max(e.Seconds, 0) - 1e-6)
	return units.FormatDuration(time.Duration(secs) * time.Second)
}

// MarshalJSON writes seconds (to the tenth) or null.
func (e Estimate) MarshalJSON() ([]byte, error) {
	if !e.Known {
		return []byte("null"), nil
	}
	return json.Marshal(math.Round(e.Seconds*10) / 10)
}

// UnmarshalJSON reads seconds or null.
func (e *Estimate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*e = Estimate{}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = In(v)
	return nil
}

// Later is the later of two estimates (unknown if either is).
func Later(a, b Estimate) Estimate {
	if !a.Known || !b.Known {
		return Estimate{}
	}
	return In(max(a.Seconds, b.Seconds))
}

// Stall says that a card or a destination with work left has not moved
// for StallAfter or more, and what dit knows of why.
type Stall struct {
	// Since is when it last moved; Seconds how long ago that was (at the
	// snapshot).
	Since   time.Time `json:"since"`
	Seconds float64   `json:"seconds"`
	// Where: the destination's root, or StallCard for the card's side.
	Where string `json:"where"`
	// Cause is the last error dit saw there ("s3: connection refused"),
	// or what it knows ("no data from the card").
	Cause string `json:"cause"`
	// Retry is the retry dit is at (1-based) of Retries allowed (0:
	// none yet, or no limit known).
	Retry   int `json:"retry,omitempty"`
	Retries int `json:"retries,omitempty"`
}

// StallCard is a Stall's Where when the card's side is stalled.
const StallCard = "card"

// String is the stall in words: "s3: connection refused, retry 3 of 10,
// since 40s".
func (s *Stall) String() string {
	if s == nil {
		return ""
	}
	out := s.Cause
	if s.Retry > 0 {
		if s.Retries > 0 {
			out += fmt.Sprintf(", retry %d of %d", s.Retry, s.Retries)
		} else {
			out += fmt.Sprintf(", retry %d", s.Retry)
		}
	}
	return out + ", since " + units.FormatDuration(time.Duration(math.Round(s.Seconds))*time.Second)
}

// Times are the estimates of one card: until it is copied (its last byte
// read and written), until it may leave the reader (card free: a
// cascade's first run verified and sealed; without a cascade, when it is
// safe) and until it is safe to format.
type Times struct {
	Copied   Estimate `json:"copied_s"`
	CardFree Estimate `json:"card_free_s"`
	Safe     Estimate `json:"safe_s"`
}
