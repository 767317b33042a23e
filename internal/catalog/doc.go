// Package catalog is dit's log of every offload: jobs, cards,
// destinations, every file with every hash and its state on each
// destination, skipped entries, and a throughput sample per second.
//
// # Two backends: SQLite and PostgreSQL
//
// A catalog is a SQLite file (a cart's own) or a PostgreSQL database (one
// production's, shared by its carts: --db postgres://user@host/db, or
// DIT_DB). One package, two database/sql drivers (modernc.org/sqlite,
// github.com/jackc/pgx/v5/stdlib), the same schema, numbered migrations
// and queries on both: they are written once in SQLite's dialect, and
// dialect.go, the only place the backends differ, rewrites them for
// PostgreSQL (? placeholders to $n; INTEGER to BIGINT, INTEGER PRIMARY KEY
// to an identity column, REAL to DOUBLE PRECISION, TEXT to TEXT COLLATE
// "C" so text sorts by bytes as in SQLite, WITHOUT ROWID dropped, the
// column offset quoted; Go bools sent as 0/1; new ids by RETURNING id).
// On PostgreSQL the schema version is the table schema_version(version)
// and the mark of a dit catalog the table dit_catalog(application_id) (on
// SQLite: PRAGMA user_version and application_id); a database with other
// tables and no dit_catalog is refused. Migrations run in one transaction
// holding an advisory lock, so carts that open a new database at once wait
// for the first; writers of different carts touch different rows, and a
// deadlock or serialization failure is retried like SQLite's busy. The
// package's tests run on both (a real PostgreSQL server, see pgtest).
//
// # Stations and sync (schema version 10, sql/0010_stations.sql)
//
//	jobs.station: the cart that ran the job (dit --station, default the
//	    host name; [Catalog.SetStation]). Its cards, files and copies
//	    carry it through their job. '' for jobs recorded before version
//	    10 (dit jobs shows them with this station's).
//	jobs.uuid: the job's name in every catalog that holds it (unique
//	    when set). [Catalog.PushJob] copies a job with everything of it
//	    into another catalog (dit catalog sync; --sync-to at job end,
//	    [Catalog.SyncOnJobEnd]): found there by uuid it is updated in
//	    place (cards, destinations, runs and plans by their seq, files,
//	    copies and skips by path, clips replaced, samples appended), so a
//	    job pushed twice is held once; already there as it ended here, it
//	    is left alone. Ids differ between catalogs; partials stay on the
//	    cart. A job recorded before version 10 gets its uuid and station
//	    when first pushed.
//
// # Location and concurrency of a SQLite catalog
//
// The database is a single SQLite file (modernc.org/sqlite, pure Go) in the
// OS user data folder ([DefaultPath]), overridden by --db or DIT_DB. It runs
// in WAL mode with synchronous=FULL, foreign keys on, a 10 s busy timeout and
// immediate write transactions, so two dit processes can share it: a writer
// waits for the other, and after the timeout gets an error saying the
// catalog is busy. Within a process one goroutine owns all writes
// ([Catalog.Submit] queues them) and commits them in batches of up to 500
// statements or every 200 ms; [Catalog.Flush] waits until everything queued
// is committed. The file carries application_id 0x44495430 ("DIT0"), so a
// foreign SQLite file or a non-database is refused with a clear message.
//
// # Schema version 1 (sql/0001_initial.sql)
//
//	jobs(id, name, state, host, tool_version, pid, hashes, verify_mode,
//	     verify_hashes, layout, on_conflict, include_hidden, started,
//	     finished, error)
//	    state: running | interrupted | done | failed. A job left "running"
//	    by a killed process is shown as interrupted and can be resumed.
//	cards(id, job_id, seq, label, path, volume_id, bytes, files, state,
//	      copy_started, copy_finished, verify_started, verify_finished, error)
//	    state: pending | copying | verifying | verified (safe to format) |
//	    copied (not verified) | failed | interrupted.
//	destinations(id, job_id, seq, path)
//	files(card_id, rel_path, size, mtime_ns, state, md5, sha1, xxh64, xxh3,
//	      xxh128, c4, blake3, error, copy_started, copy_finished)
//	    hashes are the source hashes in ASC MHL text form; NULL = not
//	    computed. state: pending | copied | verified | failed.
//	copies(card_id, rel_path, dest_id, path, state, written, verify_algos,
//	       verified_at, error)
//	    one row per file and destination. state: pending | copied | present
//	    (an identical file was already there) | verified (read back from the
//	    medium and equal to the source hashes) | failed | skipped (conflict
//	    left alone). written=1 when this job created the file, so a resume
//	    may replace it.
//	skipped(card_id, rel_path, kind, reason)
//	samples(id, job_id, card_id, dest_id, t, bytes, rate, phase)
//	    once per second per card (dest_id NULL: the card's reads) and per
//	    destination; phase copy | verify; bytes is the running total of
//	    the phase, rate bytes/s over the last interval.
//
// # Schema version 2 (sql/0002_plans.sql): bus-budget plans
//
//	plans(id, job_id, seq, t, reason, simulated, scale, total_rate,
//	      bottleneck, detail)
//	    seq 0 is the plan at the start of a job, 1, 2, ... each re-plan
//	    (a card finished and freed its budget); reason says why ("start",
//	    "A003 copied"); rates in bytes/s; detail is the whole plan as JSON.
//	plan_cards(plan_id, name, card_id, rate, limited_by, eta_s)
//	    limited_by: media | bus:NAME | dest:NAME | cpu | unknown.
//	cpu_bench(host, arch, algo, bytes_per_s, cores, measured)
//	    the planner's cached single-core hash speeds per host.
//
// # Schema version 3 (sql/0003_job_mhl.sql): a job's hash lists
//
//	jobs.mhl: asc | v1 | both | none (dit offload --mhl, the GUI's "Hash
//	    lists"), the lists written into each card's folder on every
//	    destination. A resumed job writes the lists it started with. Jobs
//	    recorded before version 3 read as asc, the default they ran with.
//
// # Schema version 4 (sql/0004_seal.sql): the proof step
//
//	cards.sealed: the time of the card's hash lists (ASC MHL generation,
//	    MHL v1.1 list), set when sealing starts and kept until they are
//	    written, so a seal a crash interrupted is redone as the same
//	    generation, not a second one.
//
// States, in the order a card and a job go through them:
//
//	card: pending -> copying -> verifying -> sealing -> verified | copied | failed
//	    sealing: every file reached its final state; the hash lists are
//	    being written on every destination (or could not be: error says
//	    why). A card is "safe to format" only in state verified: copied,
//	    read back, and its hash lists written, read back whole and durable.
//	job:  running -> finishing -> done (or interrupted, failed)
//	    finishing: every card ended; the reports are being written. A
//	    finishing job whose process is gone is finished by dit offload
//	    --resume. Reports that could not be written leave the job done,
//	    its error starting "reports not written: ": a resume writes them.
//
// Creation and migrations run in one immediate (write-locked)
// transaction, so dit processes that open a catalog that does not exist
// yet at the same moment all succeed: the first creates it, the others
// wait and find it complete.
//
// # Schema versions 5, 6 and 7
//
//	samples.seconds: the interval a sample covers (ending at t), so time
//	    spent is the sum of intervals, pauses left out (offload.Activity);
//	    a card's own row (dest_id 0) that started or ended within the
//	    sampler's second covers only its part of it (t its end); a
//	    destination's rows always cover the whole second (t its end), so
//	    the cards' rows of one second add up to the destination's rate.
//	runs(job_id, seq, started, finished): each start or resume of a job;
//	    finished NULL for a run whose process was killed.
//	jobs.ignore: the job's --ignore patterns, one per line.
//	partials(card_id, rel_path, dest_id, temp, size, mtime_ns, offset,
//	         digest, prev_offset, prev_digest): mid-file resume checkpoints,
//	    see internal/offload's doc; a row goes when its file is done.
//
// # Schema version 8 (sql/0008_cascade.sql): cascading copy
//
//	destinations.hop: 1 (written from the card) or 2 (a cascade's second
//	    run, dit offload --then: written from the first copy).
//	cards.hop, cards.from_card: a hop-2 card row is the second run of the
//	    hop-1 card from_card: its path is the first copy, its files and
//	    copies are those of the second run, on the hop-2 destinations.
//	cards.done_at: when the card reached its final state verified (copied,
//	    read back and sealed); for a hop-1 card of a cascade: card free.
//	jobs.then_parallel: second runs at once (dit offload --then-parallel).
//	cards.eject (version 9, sql/0009_eject.sql): what happened when dit
//	    watch ejected the card once it was free: "<time> ejected: ..." or
//	    "<time> not ejected: why"; '' when it was not asked to.
//	A card of a cascade is safe to format only when its hop-1 row and its
//	hop-2 row are verified. [FirstRun] keeps the cards as the DIT named
//	them (hop 1).
//
// # Schema version 11 (sql/0011_clips.sql): clips
//
//	clips(card_id, seq, name, reel, family, camera, clip_type, codec,
//	      poster, files, bytes, frames, fps, seconds, resolution,
//	      tc_start, serial, verified, thumb, thumb_note; version 25: audio_*,
//	      conflicts)
//	    one row per clip of a card (internal/clips recognises them from
//	    the card's folders, file names and sidecars, read from the first
//	    copy once the card is done; a card whose files make no clip has
//	    none). seq 1, 2, ... in the card's order; family ARRI | Sony |
//	    RED | Blackmagic | Canon | DCIM | ''; clip_type ARRIRAW | ProRes |
//	    X-OCN | XAVC | R3D | BRAW | Cinema RAW Light | DNG | DCIM | video;
//	    poster the card-relative path of the clip's first media file;
//	    files its media files and sidecars, bytes their size; frames, fps
//	    ("23.976"), seconds and tc_start ("01:02:03:04") from its sidecars
//	    or ffprobe (0 or '' when unknown); verified 1 when every file of
//	    the clip is verified; thumb the poster frame's path relative to the
//	    job's reports folder on each destination (thumbnails/CARD/CLIP.jpg),
//	    or '' and thumb_note why ("ffmpeg not found", "not verified", a
//	    format ffmpeg does not read). [Catalog.SetClips] replaces a card's
//	    clips; [Catalog.ClipsNamed] finds clips by name or pattern in
//	    every job, with their copies (what dit find asks).
//
// # Schema version 12 (sql/0012_totals.sqlite.sql, .postgres.sql): totals
//
//	card_totals(card_id, dest_id, state, n, bytes, mtime_s)
//	    each card's rows counted by state, so job-level answers (dit
//	    jobs, dit day, dit serve, the History, offload.LoadSummary) read
//	    a few rows a card instead of every file. dest_id 0: the card's
//	    files in state (n of them, bytes their sizes summed, mtime_s
//	    their mtime_ns / 10^9 summed: with n and bytes, the fingerprint
//	    by which dit day knows one card's footage in two jobs); dest_id
//	    D: the card's copies rows on destination D in state (bytes and
//	    mtime_s 0). Kept by AFTER INSERT, UPDATE and DELETE triggers on
//	    files and copies (PL/pgSQL functions dit_files_totals and
//	    dit_copies_totals on PostgreSQL), in the transaction that writes
//	    the row: every writer (the engine's batches, dit verify, a push,
//	    a deletion) keeps them without knowing. A count that fell to 0
//	    stays as a row with n 0 ([Catalog.DeleteJob] removes a job's).
//	    The migration fills it from the rows already there.
//	    [Catalog.JobTotals] reads a job's, [Catalog.EachFailedFile] a
//	    card's failed files (by files_failed, a partial index on
//	    files(card_id, rel_path) of the rows in state failed).
//	A migration named NNNN_name.sqlite.sql or NNNN_name.postgres.sql is
//	one backend's, applied as written (triggers cannot be said once for
//	both); the other backend's file of the same number is its twin.
//
// # Schema version 13 (sql/0013_names.sqlite.sql, .postgres.sql): names index
//
//	file_names(rel_path, card_id) on SQLite: an FTS5 table with the
//	    trigram tokenizer, one row per files row (kept by triggers on
//	    files, filled by the migration), so [Catalog.Find] looks a
//	    substring of three characters or more of a card-relative path up
//	    in an index (its LIKE, case-insensitive, without ESCAPE: Find
//	    checks each name it gives). On PostgreSQL the index
//	    files_rel_trgm, GIN on lower(rel_path) with pg_trgm's
//	    gin_trgm_ops, when the extension can be created; else
//	    files_rel_lower, a btree on lower(rel_path) (prefixes only).
//	    Find reads every copy instead when q may match more than file
//	    names: it has a "/" or is part of a card's path or label, a job's
//	    name or layout, a destination's path, the folder of a card's
//	    copies, or a renamed copy's path (--on-conflict rename).
//
// # Schema version 14 (sql/0014_speedtests.sql): speed tests
//
//	speedtests(id, volume, kind, path, t, station, link, size, block,
//	           streams, write_rate, read_rate, sustained, cliff_at,
//	           direct, detail)
//	    one row per measurement (dit speedtest). volume names the medium
//	    by an id that outlives its mount path: fs-uuid:UUID, fsid:HEX
//	    (statfs), array:UUID, blade:UUID, or path:/mount where the system
//	    gives none; kind folder | card | blade | array; path where it was
//	    mounted; link the bus it was on then; rates in bytes/s (write 0
//	    for a card, which is only read); sustained the write rate after a
//	    cache ran out, cliff_at the bytes written before it did (0, 0: no
//	    cliff); direct 1 when the page cache was bypassed; detail the
//	    whole result as JSON, curves included. [Catalog.LatestSpeedTest]
//	    is what the planner uses in place of a volume's table rates.
//
// # Schema version 15 (sql/0015_partial_states.sql): the card side of a checkpoint
//
//	partials.states, partials.prev_states: what a mid-file resume needs
//	    to read the card's file only from the checkpoint (offset,
//	    prev_offset) on, in [CardState]'s text form:
//	    "v1 span=FROM:XXH3 ALGO=BASE64 ...": the xxh3-64 (16 hex digits)
//	    of the card's bytes from FROM (the checkpoint before, or 0) to the
//	    offset, read again by the resume to check that the card's file is
//	    the one the kept part came from, and per hash algorithm of the
//	    job (md5, sha1, c4, xxh64: the ones whose hasher saves its state
//	    with encoding.BinaryMarshaler) the standard base64 of that saved
//	    state after the card's first offset bytes. '' when a job's
//	    algorithms include one that cannot save its state (xxh3, xxh128,
//	    blake3) and in rows of older versions: the resume then reads the
//	    card's file from the start. prev_states follows prev_offset as
//	    prev_digest does. (The migration's number may change at a merge;
//	    it depends only on 0007.)
//
// # Schema version 16 (sql/0016_card_samples.sql): the cards' samples indexed
//
//	samples_card_side: an index of the samples of the cards' own side
//	    (dest_id NULL, a third of a job's samples) on (job_id, card_id,
//	    phase, t, rate, seconds, dest_id): every column a job's activity
//	    (bytes copied and verified, time spent; the TB/hour of dit jobs,
//	    dit day, dit serve and dit job show) is summed from, so
//	    [Catalog.CardSamples] reads it from the index alone, not from
//	    every sample row; a run that was killed ends at the job's last
//	    sample, read by [Catalog.SampleTimes] (samples_job) only then.
//	    (The migration's number may change at a merge; it depends only
//	    on 0005.)
//
// # Schema version 17 (sql/0017_proxies.sqlite.sql, .postgres.sql): proxies
//
//	proxies(id, job_id, card_id, clip, source, dest, path, preset,
//	        tc_start, md5, sha1, xxh64, xxh3, xxh128, c4, blake3, size,
//	        state, error, made_at)
//	    one row per editorial proxy a job made (dit offload --proxies,
//	    internal/proxies) on one destination, or per clip whose proxy
//	    failed. clip the clip's name (clips.name); source the verified
//	    copy ffmpeg read (a path, or "dit array BLADE: card/rel"), never
//	    the card; dest the destination folder, path the proxy relative
//	    to it (proxies/<card folder>/<clip>.<ext>; '' when it failed);
//	    preset prores-proxy | h264 | dnxhr-lb | dnxhr-lb-mov, with
//	    ",burnin"; tc_start the source's start timecode written into the
//	    proxy; the hashes (the job's algorithms, the others NULL) and
//	    size of the proxy's file; state made | failed | cancelled |
//	    skipped (camera raw, a frame sequence); error why (ffmpeg's
//	    error line, "not verified", "not a format ffmpeg reads (R3D)"). A proxy never changes a card's state or verdict.
//	    [Catalog.AddProxy] records one, [Catalog.Proxies] lists a job's;
//	    [Catalog.DeleteJob] removes them with their job. The two files
//	    are twins (PostgreSQL's in its own types, applied as written).
//	    (The migration's number may change at a merge; it depends only
//	    on 0001.) [Catalog.PushJob] carries them (dit catalog push): a
//	    job's proxies in the target are replaced by its rows here, their
//	    cards' ids mapped, so a job pushed twice holds them once.
//
// # Schema version 18 (sql/0018_job_proxies.sql): a job's proxies
//
//	jobs.proxies: the job's editorial proxies as dit offload --proxies
//	    takes them ("prores-proxy,burnin", internal/proxies' spec in its
//	    own form), '' for a job without; NULL for a job recorded before
//	    version 18, which did not say ([Job].ProxiesUnrecorded: its
//	    resume makes those it is given).
//	jobs.proxies_to: the destinations the proxies go to (--proxies-to,
//	    by default the first -d), absolute, one per line; '' without
//	    proxies.
//	    A resumed job makes the proxies it recorded (offload.JobSpec,
//	    assembly.ResumeProxies). [Catalog.PushJob] carries both.
//	    (The migration's number may change at a merge; it depends only
//	    on 0001.)
//
// # Schema version 19 (sql/0019_proxy_verify.sql): how a proxy was verified
//
//	proxies.verify_algos: how the proxy's copy on its destination was
//	    verified, in copies.verify_algos' form: "s3-etag:md5" (a cloud
//	    destination, rclone:REMOTE:PATH: the storage's own MD5 of the
//	    object, an S3 single-part ETag, equal to the proxy's MD5),
//	    "readback:ALGOS" (the object read back from the remote and
//	    hashed with ALGOS), ALGOS (a copy to a second folder, read back
//	    and compared); '' for the proxy as ffmpeg wrote it (hashed once
//	    named) and for rows of older versions. A proxy on a cloud
//	    destination has dest rclone:REMOTE:PATH and path
//	    proxies/<card folder>/<clip>.<ext> on it. [Catalog.EachProxy]
//	    streams a job's proxies (the proxies sheet of the reports).
//	    (The migration's number may change at a merge; it depends only
//	    on 0017.)
//
// # Schema version 20 (sql/0020_job_cloud.sql): how a job reaches the cloud
//
//	jobs.rclone_config: the rclone configuration file of the job's
//	    cloud destinations (dit offload --rclone-config), absolute; ''
//	    rclone's own choice (RCLONE_CONFIG or its usual file), and for
//	    jobs recorded before version 20.
//	jobs.cloud_bwlimit: the upload bandwidth limit of its cloud
//	    destinations (--cloud-bwlimit) in bytes/s, 0 none.
//	    A resumed job (dit offload --resume, dit verify JOB) uses both
//	    (offload.JobSpec). [Catalog.PushJob] carries them on a new job.
//	    (The migration's number may change at a merge; it depends only
//	    on 0001.)
//
// # Schema version 21 (sql/0021_costs.sql): what a destination costs beyond its bytes
//
//	costs(id, volume, kind, path, t, station, job_uuid, card, hop, files,
//	      bytes, per_file_s, verify_per_file_s, start_s, fixed_s, detail)
//	    one row per card run and destination of a finished job
//	    (internal/sched.LearnCosts, after every offload): volume names
//	    the destination as speedtests.volume does (fs-uuid:..., fsid:...,
//	    array:UUID; rclone:REMOTE for a cloud remote); kind folder |
//	    array | cloud; path the destination as the job had it; t when
//	    the card's run ended; job_uuid the job's uuid (no reference: the
//	    row outlives its job, as a speed test does); card its label, hop
//	    2 for a cascade's second run; files and bytes the run's. In
//	    seconds: per_file_s what each file added to the copy beyond its
//	    bytes at the card's byte rate, verify_per_file_s to its
//	    read-back (both paid on the run's destinations side by side),
//	    start_s the card's time before its first byte, fixed_s from its
//	    last byte read back to its end (sealing, cloud listings, the
//	    history's upload): this destination's part of them, the run's
//	    divided among its destinations (paid one after another); NULL
//	    when the run did not measure it (too few files, no read-back). detail says how, in
//	    words. [Catalog.RecentCosts] is what the planner uses in place of
//	    the defaults of a destination's kind (internal/plan.Costs).
//	plans.run_detail: a simulated job's plan in the units of the run
//	    (rates at its scale; the bytes' part of its times 1/scale, the
//	    per-file and fixed costs as they are), as JSON; '' when it is
//	    detail (scale 1) and for plans recorded before version 21. dit
//	    job show sets it against what the job did. [Catalog.PushJob]
//	    carries it. (The migration's number may change at a merge; it
//	    depends only on 0002.)
//
// # Schema version 22 (sql/0022_live.sql): the live snapshot
//
//	live(job_id, t, snapshot)
//	    the live model's latest snapshot of a running job (package
//	    internal/live: offload.Progress as JSON, the progress event's
//	    shape, docs/events.md), taken at t, written by the engine once a
//	    second ([Catalog.PutLive]), replaced, deleted with its job; read
//	    by front ends in other processes (dit serve, dit watch) through
//	    offload.LiveProgress, so they show the figures and estimates the
//	    CLI and dit-gui show. A row whose t is old belongs to a job no
//	    process runs any more. (The migration's number may change at a
//	    merge; it depends only on 0001.)
//
// # Schema version 23 (sql/0023_copy_identity.sql): a verified copy's identity
//
//	copies.identity: the copy's identity on its medium when it was read
//	    back and verified (internal/fsys.Identity: "dev:ino:size:mtime
//	    ns:ctime ns" on Unix), '' for copies recorded before and on media
//	    that give none (cloud objects, Windows); a dit array's file: "array:"
//	    and its array, id, generation, size, time and units' hash. A resume
//	    re-reads a verified copy whose identity changed since (the engine's
//	    plan), rather than trusting its size and time.
//
// # Schema version 24 (sql/0024_names_pending.sqlite.sql, .postgres.sql): names indexed a transaction at a time
//
//	file_names_pending(rel_path, card_id) on SQLite: the names of files
//	    rows inserted in the current transaction (the insert trigger
//	    puts them there instead of into file_names; the update and
//	    delete triggers remove a row's name from both). The writer moves
//	    them into file_names in one statement before each commit
//	    (flushNames; a push too), so FTS5, which writes what it holds at
//	    every statement savepoint of a transaction that wrote to it,
//	    writes a batch's names once instead of once a row (a fifth of an
//	    offload's CPU on a card of 100,000 frames). It is empty between
//	    transactions; [Catalog.Find] reads it too. Nothing on PostgreSQL.
//
// # Schema version 25 (sql/0025_clip_audio.sql): a clip's sound and its disagreements
//
//	clips.audio_streams, audio_channels, audio_rate, audio_bits,
//	audio_codec: the clip's sound as the media said it when the clips
//	    were recognised (internal/clips.Audio, from ffprobe): its audio
//	    streams, their channels in all, the first stream's sample rate
//	    (Hz), bit depth and codec ("PCM", "AAC"). audio_streams NULL
//	    ([Clip].Audio nil) when nothing read the sound (a format ffprobe
//	    does not read, no ffmpeg) and for every clip recorded before
//	    version 25; 0, with channels 0, when the media has no sound
//	    (MOS). The ALE's Tracks (VA1A2...), the reports' audio column
//	    and the FCPXML's audio come from them, so a report built later
//	    from the catalog (dit report) says what the job's own did; a clip
//	    of an older catalog is "V", never an invented track.
//	clips.conflicts: where the media and a sidecar disagreed (the
//	    media's value kept), a JSON array of strings, one disagreement
//	    each ("frames: sidecar 120, media 96 (the media's kept)"); ''
//	    when none. A column of JSON text rather than a child table: the
//	    list is short, only ever read whole with its clip (never searched
//	    or counted), and so goes with the clip's row in the one query,
//	    the one replace of [Catalog.SetClips] and the one insert of a
//	    push, with no second table to delete with its card, migrate and
//	    sync; both backends store it as TEXT.
//
// # Schema version 26 (sql/0026_clip_shot.sql): what the camera was set to
//
//	clips.iso, white_balance, lens: what the camera was set to for the
//	    clip as its sidecar said it (internal/clips.Shot: "800",
//	    "5600K", "ARRI Signature Prime 35mm"); '' where nothing said it
//	    and for every clip recorded before version 26. The clip sheet's
//	    and the ALE's ISO, White Balance and Lens come from them; a push
//	    carries them with the clip's row.
//
// # Cloud copies (no schema change)
//
//	destinations.path of a cloud destination is rclone:REMOTE:PATH, as
//	    given (internal/cloud); its copies' path is relative to it.
//	copies.verify_algos of a copy on it says how it was verified:
//	    "s3-etag:md5" (the storage's own MD5 of the stored object, an S3
//	    single-part ETag, equal to the card's), or "readback:ALGOS" (the
//	    object read back from the remote and hashed with ALGOS), or, for
//	    the card's ASC MHL chain file (ascmhl/ascmhl_chain.xml), which
//	    goes up as the chain of the history dit extends in the cloud,
//	    "history:" and one of those, for the object of that chain; a local
//	    copy's holds the algorithms of its read-back, as before. dit job
//	    show and the reports show it (offload.RemoteVerifiedBy).
//
// Times are RFC 3339 UTC strings with nanoseconds. Migrations are numbered
// files in sql/, embedded, applied in order in one transaction each, and
// recorded in PRAGMA user_version (PostgreSQL: schema_version); never edit
// a released migration, add a new one, in plain SQL that runs on SQLite
// and, through dialect.go, on PostgreSQL (no SQLite-only functions, no
// PRAGMA; a column of type INTEGER, REAL or TEXT; the keyword OFFSET in
// capitals).
package catalog
