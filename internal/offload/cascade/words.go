package cascade

import (
	"fmt"
	"strings"
)

// The words a second run records and says when one of its rules fails.
// Paths are as a person opens them (dest.DisplayPath), given by the
// pipeline; every message says the card is not safe to format, or to
// keep it.

// FileError is why the second run fails file m: its first copy (shown:
// where it is) differs from the card, naming both hashes; dests are the
// second run's destinations, jobID the job dit verify checks.
func (m *Mismatch) FileError(shown, dests string, jobID int64) string {
	return fmt.Sprintf("second run (first copy %s to %s): the first copy differs from the card: %s %s read from the card, %s from the first copy: it changed since it was verified; not copied, and the card is NOT safe to format: check the first copy with dit verify %d, and keep the card",
		shown, dests, m.Algo, m.Card, m.FirstCopy, jobID)
}

// UploadError is FileError for a second run to remote destinations,
// which streams the first copy (shown) up: the file is not uploaded.
func (m *Mismatch) UploadError(shown string, jobID int64) string {
	return fmt.Sprintf("second run (first copy %s): the first copy differs from the card: %s %s read from the card, %s from the first copy: not uploaded, and the card is NOT safe to format: check the first copy with dit verify %d, and keep the card",
		shown, m.Algo, m.Card, m.FirstCopy, jobID)
}

// WithdrawnWhy is why the first copy of file m (shown: where it is) has
// its verdict withdrawn: it differs from the card, both hashes named.
func (m *Mismatch) WithdrawnWhy(shown string) string {
	return fmt.Sprintf("the copy %s differs from the card (found by the second run): %s %s read from the card, %s from the copy: it changed since it was verified; keep the card and copy it again",
		shown, m.Algo, m.Card, m.FirstCopy)
}

// GoneWhy is why the first copy of a file (shown) that the first copy
// lost has its verdict withdrawn.
func GoneWhy(shown string) string {
	return fmt.Sprintf("the copy %s is gone (found by the second run): it was verified, and is no longer there; keep the card and copy it again", shown)
}

// MissingError is why a second run fails when the first copy (shown)
// lost files verified in the first run (lost, as Expect.Missing lists
// them; the first five named).
func MissingError(shown string, lost []string) string {
	named := lost
	if len(named) > 5 {
		named = append(named[:5:5], fmt.Sprintf("and %d more", len(lost)-5))
	}
	return fmt.Sprintf("second run: %d file(s) verified in the first run are missing from the first copy %s: %s: it lost them since; the card is NOT safe to format: keep the card and copy it again",
		len(lost), shown, strings.Join(named, ", "))
}

// UnreadableError is why a second run fails, never started, when its
// first copy (shown) cannot be read (err); resumed: a recorded second
// run taken up again, which says to copy the card again if it is here.
func UnreadableError(shown string, err error, resumed bool) string {
	msg := fmt.Sprintf("the first copy %s cannot be read: %v: the card is NOT safe to format", shown, err)
	if resumed {
		msg += "; if the card is still here, copy it again"
	}
	return msg
}

// NotStarted is the warning of a second run of card label that could
// not start.
func NotStarted(label string, err error) string {
	return fmt.Sprintf("second run of %s not started: %v", label, err)
}

// FreeNotice is the card-free notice of card label, verified on the
// first destinations (dests).
func FreeNotice(label, dests string) string {
	return fmt.Sprintf("card %s is free: verified on %s; it may leave the reader, NOT be formatted until the second run is verified", label, dests)
}
