package verdict

// State is the state of a job, a card or a run of a card.
type State string

// The states; see the package doc.
const (
	Queued      State = "queued"
	Copying     State = "copying"
	Verifying   State = "verifying"
	Sealing     State = "sealing"
	CardFree    State = "card_free"
	Safe        State = "safe_to_format"
	Verified    State = "verified" // a run (hop) only: its copies verified, its hash lists written
	Copied      State = "copied"
	Failed      State = "failed"
	Interrupted State = "interrupted"
	Running     State = "running" // a job only
	Done        State = "done"    // a job only
)

// Ended reports whether s is a state no process is at work on: terminal
// (safe, verified, copied, failed, done) or resumable (interrupted).
func (s State) Ended() bool {
	switch s {
	case Safe, Verified, Copied, Failed, Interrupted, Done:
		return true
	}
	return false
}

// SafeToFormat reports whether s says the card may be formatted.
func (s State) SafeToFormat() bool { return s == Safe }

// Bad reports whether s is an ended state that is not what was asked for.
func (s State) Bad() bool { return s == Failed || s == Interrupted }

// Label is the state as a person reads it in a sentence or a table.
func (s State) Label() string {
	switch s {
	case Safe:
		return "safe to format"
	case CardFree:
		return "card free, NOT safe"
	case Failed:
		return "FAILED"
	case Copied:
		return "copied, not verified"
	case "":
		return "unknown"
	}
	return string(s)
}

// Stored states of a card or a run as the engine records them in the
// catalog (cards.state); the catalog's own names.
const (
	storedPending     = "pending"
	storedCopying     = "copying"
	storedVerifying   = "verifying"
	storedSealing     = "sealing"
	storedVerified    = "verified"
	storedCopied      = "copied"
	storedFailed      = "failed"
	storedInterrupted = "interrupted"
)

// Run is what the catalog records of one run (hop) of a card.
type Run struct {
	// Stored is the run's state as recorded (cards.state).
	Stored string
	// AllVerified: every file the run scanned is verified on every one of
	// its destinations (and nothing on its source was unreadable).
	AllVerified bool
	// Failed counts the run's failed files and copies; Unreadable: the
	// source had entries that could not be read.
	Failed     int
	Unreadable bool
}

// Facts is what the decision needs of a job: whether a process is at work
// on it (Active), its recorded state (catalog.Job.State, a dead process's
// "running" already shown as "interrupted"), and whether it was asked to
// verify at all.
type Facts struct {
	Active     bool
	JobStored  string
	VerifyNone bool
}

// RunState decides the state of one run of a card.
func RunState(f Facts, r Run) State {
	if !f.VerifyNone && r.Stored == storedVerified && r.AllVerified && r.Failed == 0 && !r.Unreadable {
		return Verified
	}
	if f.Active {
		switch r.Stored {
		case storedPending, "":
			return Queued
		case storedCopying:
			return Copying
		case storedVerifying:
			return Verifying
		case storedSealing:
			return Sealing
		case storedInterrupted:
			return Interrupted
		case storedCopied:
			if f.VerifyNone && r.Failed == 0 && !r.Unreadable {
				return Copied
			}
		}
		return Failed
	}
	switch {
	case f.JobStored == storedInterrupted && r.Stored != storedFailed && r.Stored != storedCopied:
		return Interrupted
	case r.Stored == storedFailed || r.Failed > 0 || r.Unreadable:
		return Failed
	case r.Stored == storedCopied && f.VerifyNone:
		return Copied
	case r.Stored == storedSealing || r.Stored == storedVerified || r.Stored == storedCopied:
		// Ended with its hash lists not written (a full or failing
		// destination), or verified with a copy since proved wrong.
		return Failed
	}
	return Interrupted // pending, copying, verifying: the process ended first
}

// CardState decides a card's state from the state of its first run and,
// in a cascade (cascade true), of its second run (second "": not started).
func CardState(f Facts, first State, cascade bool, second State) State {
	if !cascade || first != Verified {
		if first == Verified {
			return Safe
		}
		return first
	}
	switch second {
	case Verified:
		return Safe
	case Failed, Interrupted:
		return second
	case "":
		if !f.Active {
			return Interrupted // free, its second run never started
		}
	}
	return CardFree
}

// JobState decides a job's state from its cards' states. reportsMissing:
// the job ended "finishing" (killed while its reports were written):
// every card has its verdict, and a resume writes the reports, so the job
// is interrupted.
func JobState(f Facts, cards []State, reportsMissing bool) State {
	if f.Active {
		return Running
	}
	switch f.JobStored {
	case storedInterrupted:
		return Interrupted
	case storedFailed:
		return Failed
	}
	interrupted := false
	for _, c := range cards {
		switch c {
		case Failed:
			return Failed
		case Safe, Copied:
		default:
			interrupted = true
		}
	}
	switch {
	case interrupted:
		return Interrupted
	case reportsMissing:
		return Interrupted
	}
	return Done
}
