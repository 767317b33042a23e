// Package seal turns a finished card into the proof that travels with each
// copy: an ASC MHL generation (package ascmhl) and, on request, an MHL v1.1
// list (package mhlv1) in the card's folder on every destination. It plugs
// into the engine as offload.Options.Seal and runs once per card and
// destination after every file of the card reached its final state.
//
// # What goes into the ASC MHL manifest
//
// Only files present in the card folder on that destination, minus what
// the ignore list matches (by default .DS_Store and ascmhl folders; the
// list of an earlier generation is kept and only grows). The process is
// "transfer"; creatorinfo names dit, its version, the host and, in the
// comment, the job, the card and where it went. Each file carries its size,
// its modification time and every ASC MHL hash the job computed, qualified
// like this:
//
//   - No earlier record of the file (a card without history): every hash
//     is "original" (the specification's "verified" means equal to an
//     earlier hash of the same format in the history, which there is not);
//     the hashdate is when the copy was read back.
//   - An earlier record (the card carried a history from an earlier hop,
//     or this folder was sealed before): every hash is "verified" when the
//     source matches the record in each algorithm both have and the copy
//     was read back equal; "failed" when the source differs from the record
//     (the card changed since the earlier hop; reported as a warning).
//   - A copy that failed read-back: it is read again from the destination
//     and its actual hashes are written "failed". A copy that is not there
//     is left out.
//   - A copy not read back (--verify none) is "original" when new, and left
//     out when an earlier record exists (nothing was verified).
//
// Folder content and structure hashes (and the root pair) are computed from
// those values over the folder as listed on the destination; a folder that
// holds a file dit did not write gets none (it would have to be read).
// With SealInfo.NoDirectoryHashes (dit offload --no-directory-hashes) the
// folders are listed without hashes and the root hash is empty, as
// `ascmhl create -n` lists them.
//
// The DIT's creator info (SealInfo.Author, Location, Comment: dit offload
// --author-name, --author-email, --author-phone, --author-role, --location,
// --comment) goes into the manifest's <creatorinfo>: an <author>, a
// <location>, and the comment after dit's own comment text.
//
// # A cloud destination
//
// A card's folder on a cloud destination (rclone:REMOTE:PATH) is not a
// folder of this machine: the engine gives a local staging folder
// (SealInfo.Stage) holding the history to extend, and uploads what the
// seal writes there. The seal sees the card's folder through a staged
// store (staged.go): the stage's own entries, and beside them the files
// whose cloud copy is verified, with their catalog sizes and times and the
// card's hashes (never read), in the folders holding them at the card's
// times (SealInfo.DirTimes); an empty folder is not listed (an object
// store keeps none), a failed copy is left out. Everything else is as
// below.
//
// # Order on disk, crashes and redo
//
// The MHL v1.1 file (if asked for) is written first, then the manifest,
// then the chain: the chain is the commit point. Before anything is
// written, ascmhl.Recover finishes or undoes what a crash left in the
// ascmhl folder (temps, a manifest not yet in the chain). The seal time
// (SealInfo.Finished, the catalog's cards.sealed) is kept for a redo: a
// newest generation by dit with this job and this time is this seal,
// already done, and nothing is appended; an MHL v1.1 list of that name
// written by this job is written again. After appending, the history is
// read back: a seal whose history does not read back whole is an error,
// so the card is not sealed (not safe to format). Warnings (files left
// out, a recovery done) come back as an *offload.SealWarning: the card is
// sealed, and the DIT reads them. Each is written to a
// temporary name, synced, renamed and its folder synced; the manifest never
// replaces a file. The card folder's modification time is restored after.
// The card itself is never written to: an earlier history on it was copied
// to the destination by the offload like any file, and the new generation
// is appended to that copy (it is refused, with a warning, when the copy is
// damaged).
//
// # Memory
//
// The card's files come from the catalog a file at a time
// (offload.SealFiles, in byte order of the path; walked more than once:
// the recovery asks only for the card's own ascmhl folder). The manifest
// is one document whose root hash comes before its files, so the seal
// walks the card's files twice, each time merged with a walk of the
// card's folder on the destination in the same order (walk.go: a folder's
// entries sorted with a sub-folder's name followed by "/", so its files
// come where their paths sort): the first qualifies every file, counts
// them for the comment and computes the folders' hashes
// (ascmhl.DirHasher: a stack of the folders open, each with its
// children's digests, 16 bytes a child with xxh64); the second writes
// each file's entry as it comes, and each folder's where it sorts,
// through ascmhl.AppendFrom into the manifest's temp file (the chain's c4
// taken as it is written). A copy that failed its read-back is read once
// (the first walk) and its hashes kept for the second. The history is
// read back after the append without its records
// (ascmhl.LoadHistoryHeads).
//
// What the seal holds is then: the listing of the folders open on the
// way down (each entry's name, read a few hundred at a time:
// ascmhl.EachDirEntry) and their children's digests, bounded by the
// widest folder (a clip folder of 1,000 frames; ~110-180 bytes a frame for a
// card of frames all in one folder: BenchmarkSealHeap), a
// record per folder (its path, time and hashes), the first names each
// warning shows, and the failed copies' hashes; not a record per file.
// The MHL v1.1 list (--mhl v1 or both) is written as the first walk
// gives the files, to a temporary file of its own (v1spool.go: unlinked,
// in the system's temp folder), then copied into the card's folder: the
// names of empty files are all it holds (2026-12-05; before, every
// file's entry and the list's whole text). What still grows with the
// files, only when there is one: the records of an earlier history the
// card carries or the folder already holds (ascmhl.History.Records). See
// docs/design.md.
//
// # Where it sits
//
// Beside the engine, not in it: it imports internal/offload (for the Seal
// hook's types) and the format libraries under internal/format; the engine
// never imports it. Whoever assembles a job attaches it.
package seal
