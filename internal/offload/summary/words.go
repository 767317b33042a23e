package summary

import (
	"fmt"
)

// The engine's words the read model reads: the states a copy or file
// records, and the beginnings of the errors a card records that tell
// what to do next (AdviceOf). The pipeline (internal/offload) writes
// them, under the same names.

// Copy states (catalog.Copy.State).
const (
	StatePending  = "pending"
	StateCopied   = "copied"
	StatePresent  = "present"
	StateVerified = "verified"
	StateFailed   = "failed"
	StateSkipped  = "skipped"
)

// ChangedSinceVerified begins the error of a file whose card file changed
// after the job verified its copy: the copy is kept, and only a new job
// copies the card as it is now.
const ChangedSinceVerified = "the card's file changed since this job verified its copy"

// HistoryWaits starts what a cloud run's card records (cards.error, and
// the summary's "(hash lists)" failure) when its history is not written
// to a cloud destination because a file of the card is not verified
// there (historyWaits).
const HistoryWaits = "history not written to "

// HistoryWritten is in what a cloud run's card records when a resume has
// more to write for a card whose history this job wrote there already (a
// file added to the card since): no generation can be added (the chain
// object is never replaced), and only another job, to another folder,
// gives the card a history that lists every file.
const HistoryWritten = "holds the card's ASC MHL history that this job wrote there"

// MoveHistoryAside is what a seal that finds objects of another history
// in the card's ascmhl/ folder on a remote asks the DIT to do: the whole
// folder, as moving one object leaves a history that does not verify.
// It holds no "; " (a card's error joins its problems so).
const MoveHistoryAside = "move the card's whole ascmhl/ folder there aside (rclone moveto REMOTE:…/ascmhl REMOTE:…/ascmhl.old, not one object of it: what is left beside a new history would not verify)"

// ResumeNote is what a resume trusted from earlier runs and what it read
// again: only in the summary Run returns.
type ResumeNote struct {
	// Changed and Unvouched are copies an earlier run verified that this
	// run read again and compared with the card rather than trust them:
	// Changed, their file is not the one verified (its identity changed
	// since, or while it was read back); Unvouched, verified by a run
	// that died, with no identity recorded.
	Changed   int `json:"rechecked_changed"`
	Unvouched int `json:"rechecked_unvouched"`
	// NotReread are the card's bytes not read again (NotRereadFiles
	// files going on from the middle: the kept prefixes before their
	// last checkpoint's span, which was read again and matched). A card
	// changed inside them with its time kept is not seen; dit offload
	// --resume --reread-card reads them.
	NotReread      int64 `json:"card_bytes_not_reread"`
	NotRereadFiles int64 `json:"card_files_not_reread"`
}

// NFiles is "1 file" or "N files".
func NFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// ItThem is "it" for one thing, else "them".
func ItThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
