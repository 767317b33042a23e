// Package recheck is dit verify: every copy a finished job recorded is
// read back from its medium again (or, for a remote, checked by the
// storage's own MD5, or read back from the remote) and compared with the
// hashes the catalog holds for it; what it finds is recorded (a copy that
// no longer verifies fails, and its file with it) and reported copy by
// copy, with progress. It exists so that a newcomer finds the later check
// of a job apart from the pipeline that ran it (internal/offload): it
// reads only the catalog and the destinations, and imports nothing of
// the pipeline (arch_test.go holds that line).
//
//	recheck.go  Job, JobWith (Options, Progress, Result): each card's
//	            copies on the destinations of its own run (a cascade's
//	            second run on the --then ones), a file at a time from the
//	            catalog; a folder's or an array's copy read back (through
//	            the array on a dit array) with dest.HashFile
//	store.go    a remote's copy: the listing's storage MD5, or read back
//	            (with All, or without one); the ASC MHL history dit wrote
//	            in the cloud read back, chain and manifests (C4); a changed
//	            one fails the card (HistoryChanged), so a resume seals it
//	            again
//
// The remote destinations are reached through internal/offload/dest
// (dest.OpenStore, dest.CheckRemotes) with the job's recorded rclone
// configuration; the remote kind itself is registered by the caller.
//
// Package offload gives Job and JobWith as Recheck and RecheckWith, and
// the types under their Recheck names, the API the front ends use.
package recheck
