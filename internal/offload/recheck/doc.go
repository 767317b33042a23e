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
//	            the array on a dit array, past the page cache:
//	            fsys.OpenNoCache) with dest.HashFile
//	inflight.go the pool the folder copies are read back with: a few
//	            at once a destination, reported and recorded in order
//	store.go    a remote's copy: the listing's storage MD5, or read back
//	            (with All, or without one); what the remote holds read a
//	            folder at a time as the walk comes to it (dest.Lister);
//	            the ASC MHL history dit wrote in the cloud read back,
//	            chain and manifests (C4, hashed as read); a changed one
//	            fails the card (HistoryChanged), so a resume seals it
//	            again
//
// # Several copies at once
//
// A folder destination's copies are read back FilesInFlight (8) at once,
// each on a goroutine of its own with its own hashers and two blocks of
// SlotBlock (4 MiB): 64 MiB a destination, and at most MaxInFlight (16)
// copies in all (a job of three or more folder destinations reads fewer
// of each at once: 5 each of three, 4 each of four), so at most 128 MiB
// of blocks, plus 8 MiB for a cloud copy read back (one at a time, where
// the job has a cloud destination), and at most 256 copies waiting for
// their turn, each with its record (a long file at the front holds the
// walk once that many are behind it). With several files hashing at
// once the process's MD5 lanes (internal/hashing/lanes, three or more
// streams) fill, and a core reads while the other hashes. What is found
// is reported (OnResult), recorded and counted (CopiesDone) in the
// catalog's order, each copy in its turn, as when they were read one
// after another (internal/hashing/inorder); progress counts the bytes of
// the copies under way as they are read, and is reported from JobWith's
// goroutine. A cloud copy, and a copy never made, take their turn in
// that order without a slot. Each copy is still read past the page
// cache (fsys.OpenNoCache). A destination on one spinning disk is read
// in up to eight places at once, a 4 MiB block at a time: it seeks where
// it read a file straight through before (not measured here: no disk).
//
// What a cloud destination holds is listed a folder at a time
// (dest.Lister over dest.Store.ListDir: on S3 a delimited listing of the
// folder's prefix, a request a thousand keys) as the walk of the card's
// files comes to the folder, the last two folders' listings kept: never
// the card's whole folder, so that what a check holds stays flat in the
// number of files on the card (a folder of a card holds its entries,
// ~130-400 B each, while the walk is in it). The walk is in path order
// (the catalog's, byte order): a folder's files come together but for
// those of its folders in between (A/a, A/b/x, A/c: A, A/b, then A
// again), so a folder comes back after its folders, and is listed again
// if more than one came between.
//
// The remote destinations are reached through internal/offload/dest
// (dest.OpenStore, dest.CheckRemotes) with the job's recorded rclone
// configuration; the remote kind itself is registered by the caller.
//
// Package offload gives Job and JobWith as Recheck and RecheckWith, and
// the types under their Recheck names, the API the front ends use.
package recheck
