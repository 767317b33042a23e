// Package resume is what a resume takes up of an interrupted job, and
// the rules by which it takes it up: a file's copy going on from the
// middle, the settings the job was started with, a verified card that is
// not mounted any more. It exists so that a newcomer finds how an
// interrupted job goes on apart from the pipeline that copies: the
// pipeline (internal/offload: resume.go, resumejob.go, absent.go) reads
// the catalog, opens the files and records what this package decides;
// this package never imports the pipeline, nor a destination kind
// (arch_test.go holds that line). What earlier runs and jobs left and
// which of it is trusted as it is, is package earlier's
// (internal/offload/earlier: Vouch, the chain dit's seal rewrote).
//
// It owns:
//
//	checkpoint.go  the card side of a mid-file resume: a checkpoint's
//	               card state (Checkpoint: the hashers' saved states and
//	               the span's digest, in the catalog's text form), the
//	               checkpoints due as a big file is read (CardSide), and
//	               in a resume the checks of the card's bytes against each
//	               copy's resume point, read from the start or from the
//	               middle (FromTheMiddle: the hashers restored, the span
//	               read again)
//	prove.go       the destination side: a kept temp read back and proved
//	               against its checkpoints (Prove: the last checkpoint its
//	               bytes still have, an earlier one when a byte after it
//	               changed), the read's hashers kept as the copy's
//	               read-back so far (Proof, Resumes)
//	spec.go        where the job copies, as recorded (RecordedPaths: the
//	               first-run cards, the destinations of each run)
//	takeup.go      how a resume takes up each recorded card (TakeupOf:
//	               scanned again, not mounted and not needed, a second
//	               run) and a folder destination that must be there
//	               (DestThere)
//	absent.go      a verified card not mounted at a resume: which of its
//	               copies are checked (Rechecks), each read again unless
//	               vouched for and withdrawn when gone or different, in
//	               words naming both hashes (RecheckCopy), and the warning
//	               that the card is not needed, or not free (Absent)
//
// In the catalog a checkpoint is a catalog.Partial (the last two points
// of a copy, each with its digest and card state); a resume of a copy
// goes on from the last point its kept temp proves and the card still
// gives, else the file is copied again whole.
package resume
