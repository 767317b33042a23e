// Package raid is dit's userspace RAID 0/4 array over SSD "blades": each
// blade is an ordinary mounted folder; each file is striped across the
// data blades (RAID 0), or across all but one with XOR parity on a
// dedicated parity blade (RAID 4), so one failed blade loses nothing and a
// blade that returns wrong bytes is caught (per-unit hashes) and repaired.
// The package depends on nothing of dit's internal/ packages.
//
// # Geometry
//
// N blades; RAID 0: k = N data blades; RAID 4: k = N-1 data blades plus the
// parity blade (role k). Roles 0..k-1 are data, k is parity. Files are
// written once, whole stripes appended, so the parity blade writes no more
// than the others and healthy reads never touch it. Each file has a
// rotation start in [0,k) (round-robin), recorded in its manifest:
//
//	W = k*su (stripe width), S = file size
//	logical offset o -> stripe s = o/W, position j = (o mod W)/su, b = o mod su
//	                    chunk offset x = s*su + b, data role r = (start+j) mod k
//	L_j = floor(S/W)*su + min(su, max(0, (S mod W) - j*su))   (data chunk length)
//	P[x] = XOR over j with x < L_j of d_j[x];  len(P) = L_0
//	degraded: d_j[x] = P[x] XOR (XOR over i != j of d_i[x]), bytes past L_i = 0
//
// The stripe unit su is fixed per array: a power of two from 64 KiB to
// 16 MiB, default 1 MiB. 2 to 16 blades; RAID 4 needs at least 3.
//
// # On-disk format (format 1), per blade
//
//	<blade>/dit-array/README.txt            what this is; do not edit
//	<blade>/dit-array/SUPERBLOCK            JSON + "\ncrc32c=XXXXXXXX\n" (CRC32C of the JSON bytes)
//	<blade>/dit-array/SUPERBLOCK.prev       the previous generation (fallback when SUPERBLOCK fails)
//	<blade>/dit-array/LOCK                  flock'd while the array is open read-write ("pid N on HOST")
//	<blade>/dit-array/chunks/<ff>/<id>.d<j> data chunk of position j: raw bytes, no header
//	<blade>/dit-array/chunks/<ff>/<id>.p    parity chunk (RAID 4, parity blade)
//	<blade>/dit-array/manifests/<ff>/<id>.bam  the file's manifest: identical replica on every blade
//	<blade>/dit-array/intents/<id>.intent   in-flight create (JSON), removed once committed
//	<blade>/dit-array/sessions/<sid>.log    "committed <id>" lines of a read-write session (informational)
//	<blade>/dit-array/scrub/state           JSON {file id: last scrub time}
//	<blade>/dit-array/HEALTH                known bad units: JSON + "\ncrc32c=XXXXXXXX\n" (see Health record)
//	<blade>/dit-array/tmp/                  staging of atomic writes; emptied at every read-write open
//
// <id> is 128 bits in 32 lowercase hex digits: 48 bits of Unix milliseconds
// then 80 random bits, so ids sort by creation; <ff> is its last two hex
// digits (256-way fan-out). Chunks are named by id, never by logical path,
// so names never meet a blade filesystem's limits (NFC/NFD, length,
// characters).
//
// SUPERBLOCK fields: magic "DIT-ARRAY-SB", format 1, array_uuid,
// array_label, level raid0|raid4, data_blades k, parity_blades 0|1,
// stripe_unit, unit_hash "xxh3-128", file_hashes, meta_crc "crc32c",
// this_blade {uuid, role}, members[] {role, blade_uuid, state
// active|missing|failed|rebuilding, events_seen, path_hint}, events (bumped
// on every membership or state change, never on file writes), dirty +
// session_id (set at a read-write open, cleared at a clean close),
// last_clean_close, created, writer, rebuild {role, kind replace|re-add
// (absent: replace), started, files_done}.
//
// Manifest (.bam), little-endian: "BAM1", u32 version (1), u32 json_len,
// the JSON metadata, u64 n_stripes, u8 roles (k + parity blades), u8
// hash_len (16), then n_stripes x roles xxh3-128 unit hashes (stripe-major,
// data positions then parity; units that do not exist in the last stripe
// are zero), then a CRC32C of everything before it. JSON metadata:
// file_id, array_uuid, generation (highest valid wins), path (logical,
// UTF-8, relative, no "." or ".." elements: checked on decode, so no
// manifest can make an extract leave its folder), dir (an empty folder:
// no chunks), size, mtime_ns, mode, source {volume, path, size, mtime_ns,
// xxh64 of the card read}, hashes {xxh64, xxh3-128 of the logical file},
// layout {level, k, su, start, chunk_lens[], parity_len}, written_with[]
// (roles present at write time: the degraded-write bitmap), events_at_write,
// session, committed_at, writer.
//
// # Write and commit protocol
//
// [Array.Create] returns a [Writer]: the caller streams bytes; per stripe
// the unit hashes and the parity (crypto/subtle.XORBytes) are computed
// inline and each unit goes to its blade's writer goroutine; a pool of
// Depth stripe buffers bounds memory at Depth*(k+1)*su per file. Per file,
// in order: (0) an intent on every blade (tmp, fsync, rename, fsync dir);
// (1) stream; (2) barrier: fsync every chunk, then every chunks/<ff>
// folder (new folders: their parent too); (3) the manifest replica on
// every blade (tmp, fsync, rename, fsync dir): the commit point is the
// first durable replica, since step 2 finished everywhere before; (4)
// remove the intents; (5) log the id in the session. Any write, fsync or
// close error fails the whole file and removes its chunks, manifests and
// intents; fsync is never retried. Degraded writes (RAID 4, one blade
// missing, OpenOptions.AllowDegraded) leave the missing role out of
// written_with.
//
// # Reading
//
// [Array.OpenFile] gives a reader whose every unit is checked against its
// hash; a unit that fails (I/O error, short read, missing chunk, mismatch,
// or no answer within OpenOptions.ReadDeadline) is rebuilt from the other
// units and parity, and the rebuilt unit is checked too. A read returns
// verified bytes or an error wrapping [ErrUnreadable] that names the file,
// the byte range and the blade: never wrong bytes. A sequential read also
// checks the whole-file xxh64. With nocache the chunks' pages are dropped
// first (fdatasync + POSIX_FADV_DONTNEED; F_NOCACHE on macOS), so a
// read-back comes from the media.
//
// # Assembly, recovery, scrub, rebuild
//
// [Open] assembles from any blade(s), in any order: the other members are
// found through the superblocks' path hints and OpenOptions.Blades. The
// superblock with the highest events is authoritative; geometry must agree;
// a blade whose uuid is not the member's (replaced) is rejected; a blade
// claiming a newer state while the others list it missing is refused (split
// brain); two blades with one role are refused; blades of another array are
// refused. A read-write open needs every member, or RAID 4 with one missing
// and AllowDegraded; it takes the LOCK on every blade, records missing
// members (events+1), and if any superblock was dirty runs recovery:
// intents with a manifest anywhere roll forward (manifest replicated),
// others roll back (chunks removed), tmp is emptied, and every file of the
// dirty sessions is quick-verified, single-unit damage repaired from
// parity. Only active members' manifest replicas are read; a file whose
// every replica is damaged is "lost" (extract fails it, scrub and status
// report it), never silently absent.
//
// # Rebuild: replace and stale re-add
//
// A present blade whose member is not active (its uuid matches) is stale,
// whatever its events say. A read-write open re-adds it: state rebuilding
// and rebuild {kind re-add} are published (events+1) before anything else,
// then every file not complete on the role is rebuilt onto it; a crash at
// any point leaves it rebuilding, and the next read-write open resumes.
// [Array.Replace] does the same onto a new, empty folder (new blade uuid,
// rebuild {kind replace}; the new blade's superblock is written last);
// running it again resumes, and a read-write open without AllowDegraded is
// refused while a replace is unfinished. A file is complete on role r when
// r is in its written_with and r's blade holds its current manifest
// replica. Per file, in order: (1) the chunk of r rebuilt from all the
// other roles (every unit checked against its hash), fsynced, renamed,
// folder fsynced; (2) if written_with lacks r (the file was written while
// r was missing), a new manifest generation listing r on every other
// blade; (3) the manifest on r's blade, last: the file is done. Only when
// every file is complete does the member become active (events+1). Every
// other role must be active for a rebuild. [Array.Health] is healthy only
// when every member is present and active, every file is on every role
// its chunks need and the health record holds no bad unit; otherwise
// degraded (one role short, or bad units parity makes up for: "files
// without redundancy"), damaged (the record says files cannot be read) or
// failed (files unreadable because blades are gone, or lost).
//
// [Array.Scrub] reads every unit, checks hashes, parity (XOR = 0), chunk
// sizes and manifest replicas, and classifies: data unit corrupt, parity
// unit corrupt, inconsistent, unrecoverable stripe (logical byte range),
// chunk size wrong, manifest replica damaged or missing, orphan chunk; a
// full scrub also reports each member not active and each file without
// redundancy or unreadable, so it is never clean while the array is not
// healthy. With repair it rewrites in place only what it can prove
// (reconstructed unit matches its hash), and rebuilds a file onto an
// active role its written_with lacks (arrays rebuilt by an older dit).
//
// # Health record
//
// What a scrub or a read found and nothing has repaired since is kept
// with the array, so every later reader (dit array status, dit serve,
// the GUI) sees it: HEALTH, on every present blade, JSON then
// "\ncrc32c=XXXXXXXX\n" (CRC32C of the JSON bytes, as the superblock).
// Fields: magic "DIT-ARRAY-HEALTH", format 1, array_uuid, seq (+1 per
// update), updated, writer, files[] {file_id, path (informational: the
// manifest's path wins), state degraded|damaged, found_by scrub|read,
// found, units[] {stripe (-1: the whole chunk), position (k = parity),
// role, kind (a scrub verdict: data unit corrupt, parity unit corrupt,
// inconsistent stripe, unrecoverable stripe, chunk size wrong), from, to
// (logical byte range)}}. A file is damaged when one of its units is an
// unrecoverable stripe's (or any bad data unit on RAID 0), or when a bad
// unit's stripe also has a unit on a role the file lacks now (its blade
// absent, or the file written without it): it cannot be read; otherwise
// degraded: it reads through parity but lacks redundancy. state is the
// verdict when the record was written; readers ([Array.Health]) judge the
// units again with the members present now, so a parity blade that goes
// (or comes back) after a unit was recorded changes the verdict.
//
// Updates re-read the record, change it, and publish seq+1 on every
// present blade (tmp, fsync, rename, fsync dir, blade by blade); nothing
// is written when the content would not change. Readers take the valid
// copy with the highest seq and pass over damaged or foreign ones, so a
// crash at any point leaves the old or the new record, never an
// unreadable array. Every scrub replaces what the record says about the
// files it checked with what it found and did not repair (units on roles
// it could not read, absent blades, are kept); a clean full scrub empties
// it. A read ([FileReader]) adds the units it found bad (I/O error, short
// read, missing chunk, hash mismatch; not an absent or slow blade): a
// unit it rebuilt from parity when the reader is closed; a unit it could
// not rebuild (a second bad unit in the stripe: unrecoverable stripe; or
// a role absent: data unit corrupt) at once, before the read returns its
// error ([StepReadUnreadable]). A rebuild of a file onto role r drops
// its units on r. Files no longer in the array are dropped. The record is
// written by read-only opens too (a scrub, an extract): it is metadata,
// never a chunk; a blade it cannot be written to is noted and passed
// over.
//
// [Array.Health] is the members and written_with as above, plus the
// record: healthy only when neither says anything; degraded when files
// lack redundancy (record: bad units parity makes up for); damaged when
// the record's units make files unreadable with the members present now;
// failed when more members are
// gone than the level tolerates or a file is lost (Unreadable then also
// names the files absent blades make unreadable). DamagedUnits counts
// the record's units, Damaged names its files.
//
// Steps of a rebuild, of a health record update per blade
// ([StepHealthStaged], [StepHealthPublished]) and a read's unreadable
// stripe once recorded ([StepReadUnreadable]) call [CrashHook] (dit's
// kill -9 crash tests).
package raid
