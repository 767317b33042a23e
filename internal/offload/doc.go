// Package offload is dit's engine: it copies cards to destinations, hashes
// inline, verifies every copy by reading it back, records everything in the
// catalog and tells the front ends (CLI, GUI) what happens through events.
//
// # Use
//
//	job, err := offload.New(ctx, offload.Options{
//		JobSpec: offload.JobSpec{Cards: ..., Dests: ...},
//		Env:     offload.Env{Catalog: cat},
//		Hooks:   offload.Hooks{OnEvent: f}})
//	summary, err := job.Run(ctx)         // or offload.Resume(ctx, cat, id, opts)
//
// Options has three parts (options.go), embedded so that o.Cards, o.FS
// and o.OnEvent are its own fields too. JobSpec is what the job is: New
// records every field of it and Resume restores every one, so a resumed
// job runs as it was started (the front end's JobSpec is not used; its
// MHL must be "" or agree). Env is what one run is given, anew on a
// resume: the filesystem, the catalog, the clock, the limiter, block
// sizes, the hash lists' creator info. Hooks are the functions the job
// calls: OnEvent, Seal, AfterJob.
//
// New refuses bad input before anything is written: no card or destination,
// a missing path, a card given twice, a destination equal to, inside or
// containing a card, two cards that would land in one folder, a destination
// another dit is writing to, or not enough free space (the shortfall is
// named). Errors of the command line are [UsageError]s.
//
// # Concurrency design
//
// Every card has its own pipeline, and all cards run at once:
//
//	reader ──block──> hashing.Multi of the file (one goroutine per algorithm)
//	   │   └─block──> writer[dest] (one goroutine per destination)
//	   └──fileTask──> finisher ──> verifier[dest] (+ source re-reader)
//
// The reader takes a buffer from the card's bounded pool (filesInFlight x
// Buffers x BlockSize bytes, whatever the file and card sizes), reads the
// card once, file after file, and hands the same block to the file's
// hashers and to every writer; the block returns to the pool when the last
// of them releases it. The reader does not wait for a file's hashes or
// copies: it reads on while up to filesInFlight (4) consecutive files are
// hashed and written behind it (ahead.go: the read-ahead). Each of them
// has hashers of its own (a ring of filesInFlight hashing.Multi, taken in
// turn), so a card keeps several MD5 streams busy at once and the process's
// MD5 service hashes them in vector lanes (internal/hashing/lanes); a
// file's checkpoints, resume seed and restart are its own Multi's. A
// destination's writer still writes the files in order, one at a time,
// lagging the reader by up to filesInFlight files; the finisher takes
// them in the order read, so the copies are recorded, read back and
// counted in that order, each byte once. Writers make each
// copy durable under a temporary name, then rename it (see below). The
// finisher waits for a file's writers and digests, records the file and
// hands each copy to its destination's verifier, so verification runs
// behind the copy of later files. A verifier drops the copy's pages from
// the page cache and reads it back from the medium (fsys.OpenNoCache:
// O_DIRECT on Linux where the filesystem has it),
// recomputes the fastest selected hash (or all, VerifyAll) and compares
// with the source digest. Options.Limiter paces all three: WaitRead before
// each block read from a card, WaitWrite before each block written,
// WaitVerify before each block read back (a copy, or the card re-read).
// A file is verified when every copy is. A card is then "sealing" while
// Options.Seal writes its hash lists on every destination, and "verified"
// (safe to format) only when they are written: copied, verified, sealed,
// in that order, each durable before the next is recorded. The job is
// then "finishing" while Options.AfterJob writes its reports, and "done"
// after, even when the reports fail or AfterJob panics (recovered): the
// failure is a warning, the job's error starts with ReportsNotWritten,
// and a resume writes them again. A failing destination fails only its
// copies; an unreadable file fails only itself; a card that disappears
// fails its remaining files, and the other cards go on. On an array
// destination a copy read back through parity (a blade returned bad data)
// still verifies, but the array's notable events end the job as warnings
// (EvWarning, Summary.Warnings).
//
// # Cascading copy
//
// With Options.Then a job copies each card in two runs (cascade.go, the
// glue; the rules: package cascade, internal/offload/cascade). The
// first run is the pipeline above, card to Options.Dests. When the card is
// verified and sealed there it is "card free" (EvCardFree; its DoneAt in
// the catalog): one verified copy exists, the card may leave the reader,
// not be formatted. Its second run is then a card of its own (catalog
// cards.hop 2, from_card the card): the same pipeline reading the first
// copy on Dests[0] (through the array reader on a dit array, so a blade
// that returns bad data is repaired from parity, never copied) and writing
// the Then destinations. Every file read is compared with the hashes the
// card gave in the first run: one that differs fails as "second run ... the
// first copy differs from the card", naming both hashes, and what this run
// wrote of it is removed (a damaged file never carries a real name on a
// shuttle), and its first copy is failed in the catalog at once
// (failFirstCopy: the card is no longer free); a file verified in the
// first run and missing from the first copy fails the second run, and its
// first copy too. The first run's hash lists go along with the
// first copy, so each shuttle's ASC MHL history carries the first copy's
// generation and a new one (process transfer) for the second hop. The
// seal rewrites the copied chain file (ascmhl/ascmhl_chain.xml) by design:
// a copy that is the source's chain followed only by generations this job
// wrote for this card there is dit's own (earlier.SealedChain), so a resume
// takes it as done and writes nothing, and the second run does not hold
// the first copy's chain, extended by the first run's seal, against the
// card; any other chain at that name is a conflict, as any file. At most
// Options.ThenParallel second runs read at once (a second run hands its
// turn on once it has read the first copy; its read-back goes on), and
// they overlap the next cards' first runs. Safe to format (Summary) needs
// both runs verified. A resume goes on with both runs; a card that is free
// and no longer mounted is not needed ("does not need it"), a resumed
// second run waits for its card's first run when that is taken up again,
// and a second run whose first copy cannot be read fails, so the card is
// not safe. Recheck (dit verify) reads each card row's copies on the
// destinations of its own run.
// Events and progress of a second run carry its card's label and Hop 2;
// a Limiter sees it as a card beyond the job's first
// cards, writing the Then destinations (their command-line index after
// Dests). Package cascade holds the rules as plain data and functions:
// which destination is which run's (Split; a row's own: catalog.Dest.Run), the expectations
// (Expected, Expect.Check: a Mismatch and its words naming both hashes;
// Expect.Missing), the first copy's scan and the turn gate (Turns); the
// pipeline starts, waits for and fails the runs and records their
// failures (failFirstCopy, failLostFirstCopies, dropWritten).
//
// # Destinations: folders, arrays, remotes
//
// A destination is a folder, a dit array or a remote (internal/offload/
// dest: the kinds and the interface the pipeline sees). Folders and
// arrays are filesystems, reached through fsys.FS (the pipeline above).
// A remote, written rclone:REMOTE:PATH (docs/cloud.md), is a store of
// whole objects (dest.Store); its kind (internal/offload/dest/remote,
// rclone and S3's rules) registers itself and this package never
// imports it. A remote is uploaded from a verified local copy: beside a
// -d folder it is taken to the cascade's second run (splitStores,
// store.go), whose card row runs runStore (storerun.go) instead of the
// pipeline: what the store holds is listed, every file not held with the
// card's MD5 is uploaded (Store.Put of the first copy; every remote at
// once, each by its own transfer), then each object is verified by the
// storage's own MD5 (dest.Object.StorageMD5) against the card's MD5 of
// the first run, or else read back from the remote and hashed. A job
// whose only destinations are remote ones streams each card file from its
// one read to every destination (Store.PutStream, storestream.go); an
// upload that fails is read again from the card and sent again
// (StreamRetries, waits growing from StreamBackoff: storeretry.go),
// never over an object, the bytes read and sent again counted apart; with
// VerifySourceDest each file is then read again from the card's medium
// (OpenNoCache) and must hash as the read that was sent (rereadCard). A
// job with one hashes MD5 too. The remote kind's settings (the rclone)
// are Env.Remote, a dest.Settings this package does not look into (it
// imports no internal/cloud: arch_test.go) but for their configuration
// file and upload limit, which are JobSpec (RcloneConfig, RemoteBwLimit:
// recorded, restored on resume; settleRemote), and a resume checks every remote destination (checkStores, in
// the remote kind's words) before the job is touched. A single-part ETag
// other than the card's MD5 fails the object without a download; the
// message says what is known (mismatchCause: an object there before this
// run's upload, a first copy that no longer matches the card, or other
// bytes stored than were sent).
// The card is then sealed in the cloud (storeseal.go), on each cloud
// destination only once every file of the card is verified there (its
// chain object is written once: a history written with a file left out
// could never list it); until then nothing of the history is sent, the
// card stays "sealing", failed, and says why (HistoryWaits, the
// summary's verdict), and a resume that verifies the files writes it:
// the history to
// extend (the card's ascmhl folder, or the first copy's) is copied to a
// local staging folder, Options.Seal appends the generation there
// (SealInfo.Stage: the files are the verified cloud copies, never read),
// and the stage is uploaded, the chain last, each object verified like
// the footage; the card is "sealing", not safe to format, until it is.
// The history's manifests go up with the footage; the card's chain file
// does not: its one object is the new history's chain (copy row
// verify_algos RemoteByHistory). A resumed seal builds the same bytes (the
// seal time and the copies' verification times are kept): what the remote
// holds of it is verified, not sent again, and an object there that
// differs fails the seal, naming it, and stays, before anything of the
// history is sent; an earlier job's history of the card there that reads
// back whole and records every verified file with the card's hashes is
// kept instead, with a warning (earlier.RemoteHistory), and this job's own,
// written in an earlier run, without one. A resume with more to write
// for a card whose history this job wrote there (a file added since) is
// refused so, saying to offload it again to another folder
// (HistoryWritten).
// A resume sends nothing the remote holds verified. Recheck checks cloud
// copies the same way (internal/offload/recheck, store.go; with All, by read-back, except an
// object whose ETag already differs), counting those checked by a listing
// apart from bytes read back (RecheckProgress.Checked), and reads back the
// ASC MHL history dit wrote for each card sealed in the cloud: its chain,
// and every manifest it lists hashing as the chain records (C4); the
// history's chain is reported "resealed", a changed one fails the card:
// it records its hash lists not written (state sealing, HistoryChanged
// and the reason: the summary's "(hash lists)" failure), every later
// Recheck fails it again, and a resume seals it again (written where
// gone, an object that differs fails the seal, naming it).
// With no chain there, a seal refuses while the card's ascmhl folder
// holds an object that is not one of its history's (another history's
// manifest left over), saying to move the whole folder aside
// (MoveHistoryAside).
//
// # On disk
//
// Each card lands in DEST/<Layout>, default {job}/{card}. A copy is written
// to ".<name>.<random>.dit-tmp" in its final folder (a name too long for
// that, up to 255 bytes, gets ".<first 64 bytes>~<xxh64 of the name, 16
// hex>.<random>.dit-tmp": tempPattern), its mtime set to the
// source's, fsynced, closed, renamed with a no-replace rename (an existing
// file is never overwritten; see Conflict), and the folder fsynced; only
// then is it read back. A clip's blocks are reserved before it is written
// (fsys.Preallocate). On a plain filesystem a destination's writer hands
// each new copy's fsync and rename to up to 8 goroutines and goes on with
// the next file, and the folder's fsync (for the copies renamed into it,
// up to 32 files or 8 MiB) waits for them on its own goroutine: fsyncs
// that arrive together share the filesystem's journal commit (frames to a
// drive slow to flush: 2-3 x faster). Copies under 8 MiB (frames,
// sidecars) are not fsynced one by one where the filesystem has a syncfs(2)
// that flushes the drive (Linux 5.17+: ext4, XFS, Btrfs, F2FS, tmpfs; not
// exFAT, FAT, NTFS or FUSE, whose syncfs may leave the bytes in the
// drive's cache or the FUSE server; only copies on the destination's own
// filesystem, not one mounted below it): a batch of them, written and their times set, is made durable
// by one syncfs, then renamed, then the folder fsynced (two journal
// commits and cache flushes a batch, not one a frame: frames to ext4 a
// quarter faster); a syncfs that reports a write-back error (perhaps not
// one of ours) has that batch's copies, and every later one of the
// destination, fsynced one by one, each reporting its own. The folders a
// card's copies need are created first, and every folder from the
// destination down to their parents is fsynced, created now or found
// there (a copy's path is durable, not only its name in its own folder).
// A file found at a destination with the card's bytes (another tool's
// copy, perhaps still only in the page cache) is made durable before it
// is read back (its batch's syncfs, or its own fsync, then its folder's):
// it counts only once durable, and an fsync that fails is that copy's
// failure. On any error the temp is removed,
// so nothing partial ever carries a real name. Nor does a copy of ours
// that failed after its rename (read-back mismatch, wrong size, read
// error, or written from a read the card did not give again): it is
// moved aside to NAME.dit-failed (FailedSuffix; NAME.dit-failed.2 and on
// when that exists, never replacing a file), through fsys, so on a dit
// array too, and its failure names it. A resume or a later job writing
// that card folder copies the file again to its name (a file that failed:
// from two reads that agree) and removes the failed copies found there
// once the new copy verifies. Temps left by a killed
// process are removed when a job next writes to that card folder (only
// names of that shape, never one of the card's own
// files, and never through a symbolic link: a link on the way from a
// destination to a card folder is refused). While a job runs, each destination holds DEST/.dit.lock
// (flock; "pid N on HOST, job J, lock TOKEN"), released when the job ends
// or the process dies. Once every lock is taken each is read back: a lock
// file holding another destination's token means two -d folders are one
// (a share mounted twice), refused, so one copy never counts as two.
//
// A card that stops answering (an input/output error on a file, and a
// file read whole before no longer reads; or three files in a row) fails
// its remaining files with one message that says how to resume, not one
// error each.
//
// # Mid-file resume
//
// A file of at least twice Options.CheckpointEvery (64 MiB) is
// checkpointed while it is copied: every CheckpointEvery bytes, each
// folder destination's writer fsyncs its temp and records (catalog table
// partials) how far it is, the xxh3-64 of that prefix as read from the
// card and the card side (resume.Checkpoint, internal/offload/resume):
// when every hash algorithm of the
// job can save its state (md5, sha1, c4, xxh64: encoding.BinaryMarshaler;
// not xxh3, xxh128 or blake3), the card's hashers' saved states at that
// point (a hashing.Multi snapshot) and the xxh3-64 of the card's bytes
// since the checkpoint before (the span). Ctrl-C keeps such temps; kill
// -9 and power cuts leave them. A resume goes on copy by copy: each kept
// temp is read back from its medium (all at once) and goes on from the
// last of its two recorded checkpoints whose digest its bytes still have
// (never trusted blindly; none: that copy is written from the start, the
// others still go on).
//
// When every copy goes on from a checkpoint with a card side, the card's
// file is read only from the span before the lowest of them: the span is
// read again and must hash as recorded (and so must the span of each
// higher point a copy goes on from), the card's hashers are restored to
// the lowest point's states and fed the rest, each copy given the bytes
// from its own point on. A resume whose copies go on from 80 % reads 20 %
// of the file plus one span (one checkpoint interval, give or take a
// block) from the card. The check of the card's file is a sample: same size,
// same modification time, and the same bytes in the span; a change to
// the card's file before the span that keeps its size and time is not
// seen, and the copies and the recorded hashes are then those of the
// card's file as it was read when the prefix was copied (the copies
// still verify against the hashes of what was read). Such a resume
// records no new checkpoints (the prefix's xxh3-64 is not known): if it
// is interrupted too, the next one goes on from the same points.
//
// Otherwise (a copy from the start, a job hashing with xxh3, xxh128 or
// blake3, a checkpoint of an older dit without a card side) the card's
// file is read from the start, fed to the hashers, each copy given the
// bytes from its own point on, and at each point the card's whole prefix
// must hash as the checkpoint recorded. Either way a card whose file is
// not the one the kept part came from (same size and time, other bytes)
// has what this run wrote of it undone, a warning says so, and the file
// is copied whole from one read. A dit array commits a file whole, so a
// copy to an array starts the file over.
//
// Package resume holds these rules: the card side of a checkpointed
// file (resume.CardSide: the checkpoints due, the checks of the card's
// bytes at each copy's point, from the start or from the middle) and the
// proof of a kept temp (resume.Prove: the last checkpoint its bytes
// still have); resume.go here opens the files, runs them for a file and
// counts what they read.
//
// The read that proves a kept prefix is also its read-back (resume.Prove):
// it comes from the medium (OpenNoCache), the bytes a previous run made
// durable, and is hashed with the verification algorithms too; those
// hashers stay in memory with the copy, and its verification reads only
// the rest (from its resume point) and goes on from them, so the digests
// compared are of one read-back of the whole copy, every byte read back
// once. Only of the file read then: a copy that is another file at
// verification (os.SameFile against the temp as proved: replaced, written
// again from the start) is read back whole, as is one that went on from a
// point other than its proof's, one whose medium cannot seek, or a proof
// at an offset that is not a multiple of 4096 (O_DIRECT). A byte of the
// prefix that changes in place after its proof is, like a byte that
// changes after any verification, not seen by this job. The proof's reads
// count as the destination's verify progress.
//
// # Resume
//
// An interrupted job (Ctrl-C: ctx cancelled, exit 130; or killed) keeps its
// catalog rows. Resume re-scans the cards: a file verified on a destination
// whose source size and mtime are unchanged, and whose copy still has its
// size and time, is not read again; a copy this job wrote but never
// verified is compared byte for byte and replaced if it differs; a
// verified copy changed since is compared like anyone's file and never
// replaced; a card whose file changed since never overwrites its verified
// copy; everything else is copied and verified as new. Verified copies
// are never rewritten. A file that failed (the card read differently
// twice, a copy that did not verify) is never taken as done: its copies
// are compared with a new read of the card, and one this job wrote is
// replaced only when two reads of the card agree (a probe read before the
// copy read); the recorded hashes become those of that stable read. A card
// whose hash lists a crash interrupted is sealed again with the seal time
// it started with (the sealer finishes or undoes the interrupted
// generation, see internal/format/ascmhl.Recover), and a job left finishing writes
// its reports. A resume that finds nothing to do writes nothing: no new
// hash list generation, no reports. A resumed job keeps the settings it was started
// with, its hash lists (Options.MHL, recorded in the catalog) included: a
// front end seals with the recorded choice, and a different one is refused
// (ResumeMHL), so every card of a job carries the same lists.
// resumejob.go rebuilds the Job from the catalog (the destinations of
// each run as recorded: resume.RecordedPaths; each card taken up as
// resume.TakeupOf says); a verified card not
// mounted is not needed, and its copies not vouched for are read again
// (absent.go, by package resume's rules: Rechecks, RecheckCopy, the
// Absent warning).
//
// # Memory
//
// A card's plan is held compact while it is copied and read back
// (planList, planlist.go: every path in one arena, and per file its
// size, time and a byte a destination for its plan: ~40 bytes plus its
// path's; the scan's list is not kept beside it). A file's plan
// (filePlan, its destPlans) is made from it when the reader comes to the
// file and let go once its final state is recorded: only the files in
// the pipeline are held whole, never the card's list of them (Job.plans
// counts them; planwindow_test.go holds them under the window). The
// list is let go once the card's verdict is read (releasePlan), before
// its seal; at most verifyQueue (4,096) copies a
// destination wait for their read-back. The seal (SealInfo.Files, a
// SealFiles cursor) and Recheck walk the card's files from the catalog a
// file at a time. A cloud run (storewindow.go) holds a window of the
// card's files (storeWindow) whole at once, a byte a file and destination
// between their upload and their read-back, which reads them back from
// the catalog; each remote's listing is read a folder at a time as the
// windows come to it (storelists.go), at most two folders held. The
// scan's list itself is on disk but for a few blocks (source.Files'
// spill). The budget and what still grows with the files:
// docs/design.md, "Memory of an offload".
//
// # Files
//
// Subpackages (none imports the pipeline: arch_test.go):
//
//	cascade   the rules of a cascade's second run: which destination is
//	          which run's, the first run's expectations and a file read
//	          from the first copy checked against them (the words of a
//	          failure naming both hashes), what the first copy lost, the
//	          ThenParallel turns
//	dest      the destination kinds and the Store interface; what the
//	          pipeline and the later checks share (MountArrays, HashFile,
//	          UsageError); dest/remote, the remote kind (rclone, S3)
//	earlier   what earlier jobs and runs left and what of it is trusted:
//	          FindPrior, a resume's Vouch, the chain dit's seal rewrote,
//	          an earlier job's history in a remote folder
//	recheck   dit verify: every recorded copy read back again
//	resume    what a resume takes up and by which rules: a big file's
//	          checkpoints (card state, card side, a kept temp proved),
//	          the recorded destinations, an absent card's copies
//	summary   the read model: a recorded job as the front ends say it
//
// What stays here is the pipeline's own: a second run is a card run of
// this pipeline (a cardRun reading the first copy), started, waited for
// and failed under the job's lock with the first run's state
// (cascade.go); a resumed job is a Job rebuilt from the catalog
// (resumejob.go); one file's copy taken up again runs in the reader,
// the writers and the verifiers (resume.go). Those files are the glue
// that applies the subpackages' rules to the card runs and records what
// they decide.
//
// A job (the package's API and its order of work):
//
//	options.go     Options (JobSpec, Env, Hooks), verify modes, conflicts
//	prepare.go     New: checks, the catalog's job, locks and plans (lockAndPlan)
//	resumejob.go   Resume: the job's recorded settings, its cards taken up again
//	absent.go      a verified card not mounted at a resume: its copies whose
//	               identity changed read again (package resume's rules) and
//	               the withdrawn ones recorded
//	job.go         Run, the progress sampler, cards started and ended, AfterJob
//	addcard.go     a card added to, removed from or retried in a running job
//	cascade.go     the second run (hop 2) of a card, read from the first copy:
//	               started, waited for, failed (package cascade's rules)
//	store.go, storespec.go, storerun.go, storestream.go, storeretry.go, storeseal.go:
//	remote destinations (dest.Store)
//	earlier.go     FindPrior, Prior, ScanCard (package earlier) under offload's names
//	recheck.go     Recheck, RecheckWith (package recheck) under offload's names
//	readmodel.go   the read model (package summary: Summary, the job model's
//	               figures, activity and rates, advice) under offload's names
//	events.go      events and progress; hooks.go: Limiter, the Seal hook
//
// One card's run (cardRun), by goroutine and duty:
//
//	card.go        cardRun and its messages; run: the pipeline started and ended
//	plan.go        what to do with each file on each destination (planFile)
//	planlist.go    the card's plan, compact; a file's plan made when it is read
//	read.go        the reader: copyFile, one read of a file to hashers and writers
//	resume.go      mid-file resume: kept temps opened and proved, the card
//	               side set up (package resume's rules), a copy's read-back
//	               going on from its proof
//	health.go      a card that stops answering; what a read error means
//	writer.go      a destination's writer (destWriter): temp, compare, commit
//	batch.go       the writer's batches: flush rules, the syncer (syncfs, folder fsync)
//	finish.go      the finisher and a file's final state (finalize)
//	verify.go      the verifiers: every copy read back from its medium
//	finishcard.go  the card's end: folder times, its verdict, the seal
//	ahead.go       the read-ahead: files in flight, each file's own hashers
//	sealedchain.go, vouch.go, storeearlier.go: earlier's rules (package
//	earlier) on this run
//	aside.go, lock.go, pool.go, paths.go, arraypath.go
//	(dest.DisplayPath under offload's names),
//	space_array.go: copies moved aside, destination locks,
//	the buffer pool, paths, dit arrays
package offload
