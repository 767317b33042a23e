// Package ascmhl reads, writes and verifies ASC MHL histories (ASC Media
// Hash List v2.0, specification v1.0 of the American Society of
// Cinematographers): the proof that travels with a copy of a camera card.
//
// # On disk
//
// A history covers one folder (its scope; for dit, a card's folder on a
// destination) and lives in that folder's ascmhl/ sub-folder:
//
//	A001/                                  the scope
//	A001/ascmhl/0001_A001_2026-11-20_093000Z.mhl   generation 1 (a manifest)
//	A001/ascmhl/0002_A001_2026-11-21_140000Z.mhl   generation 2 (next hop)
//	A001/ascmhl/ascmhl_chain.xml           the chain: every generation and its c4
//
// A manifest is named NNNN_<folder>_<YYYY-MM-DD>_<HHMMSS>Z.mhl: the
// generation number (4 digits or more), the scope's folder name (characters
// that a file name or XML cannot carry become "_"; cut to its first 160
// bytes, [MaxFolderPart], so that a folder name of up to 255 bytes still
// gives a manifest name, and a temporary name, that a file system takes),
// and the UTC start of the operation that wrote it. A manifest is never changed once written; the
// chain is rewritten with each new generation. Both are UTF-8 XML.
//
// Manifest (namespace urn:ASC:MHL:v2.0; element order as the schema wants):
//
//	<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
//	  <creatorinfo>
//	    <creationdate>2026-11-20T10:02:13Z</creationdate>
//	    <hostname>cart-1</hostname>
//	    <tool version="1.0.0">dit</tool>
//	    <author email="jane@example.org" phone="+49 30 1234" role="DIT">Jane Doe</author>
//	    <location>Stage 5, Babelsberg</location>
//	    <comment>dit job 12 "Day01": card A001 copied from ... to ...; second unit</comment>
//	  </creatorinfo>
//	  <processinfo>
//	    <process>transfer</process>
//	    <roothash><content><md5>..</md5><xxh64>..</xxh64></content>
//	              <structure><md5>..</md5><xxh64>..</xxh64></structure></roothash>
//	    <ignore><pattern>.DS_Store</pattern><pattern>ascmhl</pattern><pattern>ascmhl/</pattern></ignore>
//	  </processinfo>
//	  <hashes>
//	    <hash>
//	      <path size="1234" lastmodificationdate="2026-11-20T08:12:00Z">Clips/A001C001.mov</path>
//	      <md5 action="original">..</md5>
//	      <xxh64 action="verified" hashdate="2026-11-20T10:01:55Z">..</xxh64>
//	    </hash>
//	    <directoryhash>
//	      <path lastmodificationdate="...">Clips</path>
//	      <content>...</content><structure>...</structure>
//	    </directoryhash>
//	  </hashes>
//	</hashlist>
//
// The creator info's author, location and comment are what the DIT gives
// (Manifest.Authors, Location, Comment; dit offload and dit mhl create
// --author-name, --author-email, --author-phone, --author-role,
// --location, --comment); an email the schema would refuse
// (name@domain.tld) is refused by Marshal ([Author.Check]).
//
// Paths are relative to the scope, "/"-separated, byte for byte as on disk
// (NFC and NFD names stay as they are); "&", "<", ">" and quotes are
// escaped by the XML writer, and tab, LF and CR are written as character
// references, so they read back exactly. "/" is the only separator (the
// specification's RelativePathType): a "\" is a character of a name, as
// Linux and macOS allow and the reference tool records and verifies it
// (CLIPS/a\b.mov is the file "a\b.mov" in CLIPS); only on Windows, where
// no name can hold one, is a path with "\" refused ([ValidName]). A path
// of more than 65535 bytes is not recorded. [CanCarry] says whether a
// name can be recorded at all, for the engine to ask of every name on a
// card before copying, so that a card is refused at the start rather than
// copied and never made safe. A folder's path has no trailing
// slash (as the reference tool writes it). Hash elements come in the
// schema's order c4, md5, sha1, xxh128, xxh3, xxh64, each with an action
// (original, verified, failed) and, when known, a hashdate; sizes are
// always written (size="0" for an empty file); times are UTC. <hashes> is
// left out when there is nothing to list (an empty one fails the schema).
//
// Names XML cannot carry: a name that is not valid UTF-8 or holds a control
// character other than tab, LF and CR cannot appear in an XML document. Its
// <path> then holds a readable form (each such byte, and "%", as %XX; see
// [DisplayName]) and the record gets
//
//	<metadata><dit:pathbytes xmlns:dit="urn:dit-org:dit:mhl:v1" encoding="base64">...</dit:pathbytes></metadata>
//
// with the exact bytes; the schema allows any content in metadata. dit's
// reader uses those bytes; other tools see the readable form.
//
// Directory hashes follow the specification (DirectoryHashType, Appendix G)
// exactly as the reference tool computes them: a folder's content hash
// hashes its children's hash values (files' values, sub-folders' content
// hashes), decoded to bytes and sorted by their text; its structure hash
// hashes, sorted, hash(name bytes + value bytes) of each child, where a
// sub-folder contributes its structure hash. The root pair is the
// processinfo's roothash. A generation without directory hashes (dit mhl
// create / dit offload --no-directory-hashes) lists its folders with empty
// <content/> and <structure/> and writes an empty <roothash>
// (Manifest.EmptyRootHash): the schema allows both, and the reference
// tool's verify -dh needs a roothash element in every generation (it
// stops on its own create -n output, which has none).
//
// Chain (namespace urn:ASC:MHL:DIRECTORY:v2.0):
//
//	<ascmhldirectory xmlns="urn:ASC:MHL:DIRECTORY:v2.0">
//	  <hashlist sequencenr="1">
//	    <path>0001_A001_2026-11-20_093000Z.mhl</path>
//	    <c4>c4...</c4>          the C4 id of the manifest file's exact bytes
//	  </hashlist>
//	</ascmhldirectory>
//
// # Writing
//
// [Append] writes a new generation: the manifest under a temporary name,
// synced, renamed (never replacing a file), then the chain the same way
// (replacing the old one), each folder synced; the chain is the commit
// point. It refuses to extend a damaged history. Everything goes through
// a [Store]: [OSStore] is an OS folder (through os.Root, so nothing leads
// outside it); a dit array destination plugs its logical folders in by
// implementing the same few methods, so that `dit array extract` and the
// FUSE view show a tree the reference tool accepts.
//
// [AppendFrom] is Append for a manifest too big to hold: the header is a
// Manifest without files or folders, the entries come through a
// [ManifestWriter] in the manifest's order (each folder after everything
// in it, paths in byte order; [DirKey]) and go to the temporary file as
// they are written (a Store that is a [StreamWriter], as OSStore and
// FSStore are, takes them as a stream; another gets the bytes whole),
// the chain's c4 taken on the way. The bytes are Marshal's for the same
// manifest ([WriteManifest] writes them to any io.Writer). Its folder
// hashes come from a [DirHasher], which computes DirHashes' values over a
// tree walked depth first, holding only the folders open (per child, two
// digests an algorithm). [LoadHistoryHeads] reads a history back as
// LoadHistory checks it, keeping no record.
//
// A crash or a power cut between the manifest and the chain leaves a
// manifest that is not in the chain, and perhaps a temp of the chain
// (".ascmhl_chain.xml.<hex>.dit-tmp"). [Recover] puts that right before
// the next write: the chain is finished from a complete temp that lists
// the manifest with its exact c4 (a dit array, whose renames never
// replace, removes the old chain before renaming the new one), else a
// manifest dit wrote that never reached the chain is removed; temps of
// dit's own go. A manifest of another tool is never removed. An ascmhl
// folder with neither chain nor manifest is no history at all.
//
// # Creating a generation in place
//
// [Create] is `dit mhl create` (the model: `ascmhl create -dr`): it
// recovers what a crash left (Recover), reads the history (a damaged one
// is refused, [ErrDamaged], before anything is written), hashes every
// file of the scope not ignored, and appends a generation with process
// "in-place" through Append:
//
//   - a file the history records (under its path, renames followed) is
//     "verified" in each format it was recorded in and is hashed in now
//     (a file recorded in none of the formats asked for is also hashed in
//     its fastest recorded one, so it is always checked); a value that
//     differs is "failed" and a finding (kind "failed") naming both
//     values; a format never recorded is added "original", except to a
//     failed file (as the reference tool does);
//   - a new file is "original";
//   - a rename: a new file with the size and the values (every format
//     both have; one only the old record has is computed) of a recorded
//     file whose path is gone. The same name is tried first, then path
//     order; each old path is taken once. The new record carries
//     previousPath and its values are "original", as the reference tool
//     writes a rename (the specification's example says "verified"; the
//     reference tool's verify finds a renamed file of a nested history
//     only as "original"), after being checked equal to the old record.
//     A folder is renamed when every renamed file of a recorded folder
//     that is gone moved to one new folder under the same inner path, or
//     else when exactly one new folder has its content hash;
//   - a recorded file or folder that is gone (not renamed, not ignored)
//     is a finding (kind "missing"); a file that cannot be read is a
//     finding (kind "unreadable") and is not recorded;
//   - folder and root hashes as above, unless NoDirectoryHashes;
//   - the ignore list: the history's, plus ascmhl and ascmhl/ if another
//     tool's list lacked them, plus CreateOptions.Ignore (it only grows);
//   - a nested history (an ascmhl folder in a sub-folder) gets a
//     generation of its own for its files (its own ignore list, plus the
//     given patterns without a slash), written first; the scope's
//     generation lists the nested folder as a directoryhash (its root
//     pair) and references the new manifest with its c4, as the
//     reference tool does.
//
// The generation is written even with findings: it records what was
// found, failed values included (the reference tool does the same). Each
// history is read back after its generation is appended.
//
// # Comparing and flattening
//
// `dit mhl diff` is Verify with SizesOnly (and Ignore for extra
// patterns): new, missing and resized files, no file read, as `ascmhl
// diff` does; without SizesOnly the same call re-hashes.
//
// [Flatten] consolidates the history and its nested histories into one
// manifest of process "flatten", as the specification's ASC MHL Flatten
// and `ascmhl flatten` do: each file under its current path (renames
// followed, previousPath kept), per format the earliest value not marked
// failed with its action and hashdate, size and modification time from the
// latest record; ignored files and files recorded only as failed are left
// out; no folder hashes. It reads no file but the histories' and writes
// nothing: the caller writes the manifest, outside the history, under
// [PackingListName] (packinglist_<folder>_<date>_<time>Z.mhl, the
// reference tool's name) or a name of its own.
//
// # Reading and verifying
//
// [LoadHistory] reads the chain and every manifest it lists, checks each
// manifest's c4 against the chain, and reports as Problems a manifest that
// is missing, was edited, is not in the chain or is not a valid manifest
// (wrong root element, namespace or version; a missing required element;
// an invalid action, hash value, size or date; a path or previousPath that
// is absolute or holds ".." — refused, never read), and a chain that is
// damaged (not a chain, an entry out of count, naming a path outside the
// ascmhl folder, or with a malformed c4): a damaged history is a finding
// of the verification, never a failure to run it. Hash formats ASC MHL
// does not define are skipped with a warning (warnings are capped at 100,
// the rest counted).
//
// [Verify] re-hashes every file of the scope and names each that is
// missing, changed, new (neither recorded nor ignored) or recorded only as
// failed, and each folder recorded in the history (a <directoryhash>) that
// is gone, as the reference tool does; with DirectoryHashes it also checks
// the newest generation's folder and root hashes. Renames follow the
// specification's previousPath (what `ascmhl create -dr` writes): a record
// carrying previousPath moves the earlier records of the old path to the
// new one, so the file is checked under its new name against its first
// record, and the old name is no longer expected; renamed folders likewise.
// Nested histories (an ascmhl folder in a sub-folder: a card's history
// inside a day's) are read too, and each <hashlistreference> a manifest
// makes to a nested history's manifest is checked against that manifest's
// c4: a nested manifest forged together with its own chain passes the
// nested history alone, not the reference. The reference tool only logs
// such a mismatch; dit reports it. Ignore patterns use the gitignore
// syntax of the specification's Appendix C (package ignore).
//
// # How big a history
//
// Manifests are never held whole: each is read once, as a stream
// (encoding/xml token by token), its c4 computed on the same read. Verify
// keeps of each file record only what the check needs, packed: its
// folder once for all the folder's files (a number in the record), its
// name and the earliest value of each algorithm (as bytes) together in
// 1 MiB blocks, a 32-byte record in pages of 16,384, a 4-byte table
// slot; folders, root hashes, references and ignore patterns are kept as
// they are. A file costs about 40 bytes plus its name (not its folder's
// path) and hash bytes: 79 bytes a file for 100,000 files of 21-byte
// names with an xxh64 each, 97 when each path was kept whole
// (TestVerifyIndexFootprint); memory grows with the number of records,
// not with the manifests' size.
//
// That bulk is kept on disk (indexspill.go, since 2026-12-05): an
// unlinked file in dit's cache folder (~/.cache/dit; internal/fsys.SetSpillDir),
// the arena's full blocks written out as the load fills the next, the
// last block and the record pages when the load is done (the index no
// longer changes), and read back through a cache of 256 pages of 4 KiB
// (1 MiB). What stays in memory a file is its table slot and an 8-bit
// tag of its hash (5 B a slot: 6.7-13.3 B a file, the table between
// three eighths and three quarters full; a probe reads a record only
// when the tags match) and, while Verify runs, a bit for "found on
// disk"; the folders stay in memory (once each). While the history
// loads, the records of its earlier generations are in memory too (a
// later generation may change any of them: 32 B a file); the last
// generation's go to disk a page of 16,384 at a time as they come (no
// record changes them after), so a history of one generation holds
// none. Measured (TestHistoryIndexOnDiskIsFlat, 2026-12-05, 2-core VM;
// peaks are the live heap at the collections during the load): a
// million files of two generations (an xxh64, then an md5 each) held in
// 12.0 B a file once read (the heap after a collection; 124 B with the
// index in memory), 46 B a file at the load's peak (125 in memory); of
// one generation, 11.9 B a file after and 17 B at the peak. `dit
// offload` of a card of a million frames carrying a history of one
// generation (read for the card, then the copy's for its seal): max RSS
// 126 MiB, 236 MiB before (docs/benchmarks.md).
// A Get takes ~2 µs in the manifest's order (1.5 in memory), ~8 µs in
// no order (2.3 in memory: two reads of 4 KiB the cache does not hold).
// A spill that cannot be made or written leaves the index in memory
// from there on; Windows keeps it in memory (an open file cannot be
// unlinked there). Bytes that cannot be read back panic, naming the
// folder: a record is never made up, so no missing or changed file
// looks recorded.
//
// A large history (its manifests above 16 MiB) is not indexed when it
// can be merged (verifymerge.go): when each manifest lists its files in
// the manifest's order (as dit writes them) with no previousPath, the
// history reads whole (no problem) and the folder holds no nested
// history, Verify walks the folder in the manifest's order and reads the
// manifests a second time as it goes, one stream each, merged by path: a
// path's records make its record in a small index of the last 16,384
// paths, and a record the walk passes by is a missing file. The first
// reading keeps the folders only and checks the order; each stream takes
// its manifest's c4 again (a manifest changed in between is a finding).
// Memory is then flat in the files (TestVerifyMergeIsTheIndex checks the
// merge finds what the index finds); a history that cannot be merged
// (another tool's order, renames, nested histories) is read a second
// time into the index, as above.
//
// Verify and Create read HashWorkers (4) files at once, each into a
// 1 MiB buffer of its own (4 MiB), so that the process's MD5 lanes
// (internal/hashing/lanes) have streams to fill; what follows each file's
// hash (its findings, OnFinding, OnFile) runs in the order of the walk,
// as if the files were read one after another (hashpool.go). The pool
// holds at most MaxQueued (256) steps, files and what is queued between
// them: a long file at the front keeps the walk waiting once that many
// are behind it, rather than every file after it held with its hashes
// (TestPoolHoldsABoundedWindow).
//
// Measured (TestVerifyLargeManifestBoundedMemory, Go 1.26, linux/amd64, 2
// shared cores): a manifest of one million files (210 MB of XML, one xxh64
// each, 37-byte paths) verifies, merged, with a peak heap in use of 19 MB
// (2026-12-04; the test now samples the live heap, which a loaded
// machine's lagging collector does not move: 8 MB merged and 10 MB
// indexed at 200,000 files, 2026-12-05; the figures that follow are the index's, which a history
// that cannot be merged still takes). Indexed: 149 MB (72 MB
// of it the records, the rest garbage the collector has not yet
// reclaimed; 193-201 MB and 85-95 MB when each path was kept whole;
// measured with the index in memory, before it went to disk) in
// 7-8 s on a quiet machine (measured with the index before), of which
// parsing is about 5.5 s (37 MB/s); the
// reader it replaced held the file and a tree of it: 1.37 GB and 16 s for
// the same manifest. The binary, `dit mhl verify` on that manifest with
// none of its files there (a million MISSING lines printed): max RSS 272
// MB, 11 s (before: 777 MB, 37 s). Ten million such files would hold about
// 0.75 GB of records, and the heap may grow to twice that before the
// collector reclaims the parser's garbage: dit handles histories of a few
// million files on a machine with a few GB of memory (figures of the
// index in memory: on disk it holds ~12 B a file once read). Paths are
// limited to 64 KiB, and all paths and values of one history to 4 GiB.
//
// VerifyResult.History keeps every file record in Manifest.Files only while
// the history's manifests add up to 16 MiB or less (about 80,000 records);
// above that Manifest.Files is nil. History.Records are the records by
// path in that packed index (records.go: a Record is made when one is
// asked for), ~80 B a file on disk and ~9-13 B in memory, whichever way
// the history was read (until 2026-12-04 a map of Records, ~500 B a
// file; until 2026-12-05 the index whole in memory, ~80 B a file). LoadHistoryIndexed reads
// a history that way for the seal extending it and for an offload
// checking a card against the history it carries (the manifests' heads
// and the records, no File). What Verify reports is held whole: a million
// missing files make a million findings. With DirectoryHashes, Verify also
// holds every file's hashes to compute the folder hashes. LoadHistory (dit
// mhl info, the already-offloaded lookup's chain checks) also streams, but
// returns every record as a File: about 470 MB of heap at peak for the same
// million-file manifest (`dit mhl info`: max RSS 404 MB, before 720 MB).
// Create and Flatten read the history that way too. With DirectoryHashes,
// Verify computes the folders' hashes as it walks (a DirHasher: the
// folders open, each with its children's digests) and keeps each
// folder's result, nothing a file.
//
// Create streams the generation when it can (createstream.go): a first
// walk lists the folder without reading a file; when there is no nested
// history, every file and folder the history records is still there (no
// rename to pair, nothing missing) and no name begins with the byte
// 0xff, a second walk goes in the manifest's order (each folder's
// entries sorted by name, a sub-folder's as its name + "/"), hashing
// through the pool, and writes each entry as its hash comes, with the
// folders' hashes from a DirHasher. The root hash goes in the manifest's
// head, before the entries, and is known only at the end: the entries go
// to a temporary file (CreateOptions.TempDir, default os.TempDir(); a few
// hundred bytes a file, removed after) and from there into the manifest
// (AppendFrom), read back with LoadHistoryHeads. The bytes are those the
// whole generation gives (TestCreateStreamedIsTheWholeBytes). What it
// holds is the pool's window (4 MiB of buffers, at most 256 files), the
// open folders (their listings and digests: bounded by the widest
// folder) and the history's records when there is a history (LoadHistory,
// as above); not the folder's files. Otherwise (renames, missing
// entries, nested histories) it builds the generation whole, each file of
// the scope with its hashes (about 1.4 kB a file).
//
// # Where it sits
//
// On the floor below the engine (internal/format): the engine, the sealer
// (internal/seal), the reports and `dit mhl` all read and write histories
// through it, and it imports none of them. Of dit it imports only its
// sibling ignore (the pattern matcher), internal/hashing (the hash
// encodings), internal/fsys (FSStore: a history on an engine filesystem
// such as an array) and internal/crashpoint (the crash tests' named steps);
// arch_test.go keeps it so.
package ascmhl
