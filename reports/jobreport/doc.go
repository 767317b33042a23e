// Package jobreport builds the per-job offload report that production and
// the post house read: from the catalog, in CSV, JSON, HTML and PDF.
//
// # Contents
//
// The job (name, id, state, host, dit version, start and end, hashes,
// verify mode); totals; each destination (files verified, copied but not
// verified, failed, skipped, bytes there, write and read-back rates); and
// each card: label, source, media and bus when known, files, bytes, its
// skipped entries with their reasons and its failures (the first
// MaxListed, 1,000, of each: a card of a million frames may carry as
// many; the card's counts are the true ones, and every format says how
// many more there are and that dit job show JOB lists them all: JSON
// skipped_more, failures_more and not_listed), copy and verify start and
// end, the mean, min, max and 95th percentile (nearest rank) of its
// per-second throughput samples (catalog.Samples) for the copy (reading the
// card) and the verify phase (reading the copies back), and TB/hour, from
// the bytes really moved and the time really spent (offload.Activity; each
// per-second sample records the interval it covers, each run its start and
// end):
//
//	copy        bytes read from the card / time the card was being copied
//	verify      bytes read back from its copies / time they were being read back
//	end to end  bytes read from the card / time the card was busy (either)
//	job copy    all cards' bytes read / time some card was being copied
//	job         all cards' bytes read / the job's runs summed (active time)
//
// in decimal terabytes per hour (10^12 bytes per hour), rounded to three
// decimals; 0 (shown "-") when nothing was moved. Pauses between runs (an
// interruption, then a resume) are not counted: the totals give runs,
// active and paused seconds and say whether the job was resumed. A file
// read again after an interruption counts again (it was moved again).
// Verification of later files runs while earlier ones are still being
// copied, so the phases overlap. Rates are in bytes per second.
//
// # Copies verified without a read-back
//
// A cloud copy verified by the storage's own MD5 (an S3 ETag:
// copies.verify_algos "s3-etag:md5", "history:s3-etag:md5") was not
// read back; one the storage gives no MD5 for was ("readback:ALGOS"),
// as every verified folder copy (ALGOS). Each destination (job and
// card) counts its verified copies by how ("verified_by": storage_md5,
// storage_md5_bytes, read_back, read_back_bytes; HTML and PDF: "verified
// by the storage's own MD5 (S3 ETag): 3 files; read back: 0 files", for
// a job with a cloud destination). The engine counts a copy verified by
// the storage as verified in its per-second samples, in no time: so a
// read-back figure is given only where it means what it says. A
// destination where the storage's MD5 verified any copy has no
// read-back rate (JSON: no "read_back_rate"; HTML and PDF: "—", "not
// read back"); a card whose first-run copies include one has no verify
// seconds, rate or TB/hour (JSON: no "verify_seconds" nor
// "verify_rate", verify_tb_per_hour 0, and "verify_not_applicable"
// saying why: "not read back: verified by the storage's own MD5 (S3
// ETag)", or "not measured: ..." when part of its copies were read
// back), its bytes_verified being the read-back copies' sizes; the
// job's totals the same ("verify_not_applicable", bytes_verified). A
// cascade's cloud second run leaves the first run's figures as they
// are.
//
// # Formats
//
// [Build] reads the job's figures, not its files: the CSV, the JSON and
// the HTML read each card's files from the catalog as they write them
// (catalog.EachFile), so that memory stays flat in the number of files
// (a job of 100,000 files as one of 10,000: docs/benchmarks.md). The
// per-destination counts come from the catalog's per-card totals when
// they tell every figure (no second run; on each destination none or
// every file of the card has a copy there), else from a pass over the
// card's files in Build. A read of the files that fails midway is an
// error: the CSV then ends with a row "# INCOMPLETE: <why>", the JSON
// is cut short (it does not parse), the HTML ends with a line "INCOMPLETE
// REPORT"; dit report --out and the reports written at the end of a job
// leave no file at all (each is written under a temporary name and
// renamed once complete), and dit report to stdout says INCOMPLETE and
// exits non-zero.
//
// JSON is the [Report] struct, indented: a machine-readable copy of all of
// the above, every file included (fields "job", "totals", "destinations",
// "cards"; per card "file_list" with each file's hashes and copies). Times
// are RFC 3339 UTC; the job model's tb_per_hour figures are unrounded
// (a small job's must not read 0), the report's own (copy, verify, second
// run) numbers with three decimals; read_back_rate, verify_rate and
// verify_seconds only where bytes were read back (above). The
// figures the job's summary (dit job show --json, dit offload --json,
// dit serve) also gives are the job model's (internal/offload/model.go):
// "totals" carries offload.JobFigures (files, bytes, failed: failed files
// in every run, seconds, active_seconds, paused_seconds, runs,
// bytes_copied, tb_per_hour) and each card offload.CardFigures (label,
// state, verdict, safe_to_format, files, bytes, failed, copy and verify
// times, bytes_copied, tb_per_hour: end to end, card_free, card_free_at,
// safe_to_format_at), copied from the summary: the same names, the same
// values. A card's "end_to_end_tb_per_hour" is its "tb_per_hour", kept
// for readers. One name still differs in kind: a card's "skipped" is the
// list of skipped entries here, their number in the summary.
//
// CSV starts with a block of one row per destination that names it, then
// one header row, then one row per file of every card and one per skipped
// entry (nothing else inside the table, so a spreadsheet sorts and filters
// it cleanly):
//
//	# dest1,/Volumes/RAID,,,,,...            (the block: one row per destination)
//	card, path, size_bytes, modified_utc, state, error,
//	<one column per hash of the job, e.g. md5, xxh64>,
//	then per destination N (1, 2, ...): destN_state, destN_verified_at, destN_verified_by
//
// The header holds no paths: destination N is named by the row "# destN",
// <its path>, with the other fields empty but the error field of a dit
// array's blade, which says where the array's files open ("array cart
// mounted at DIR", or "not mounted: dit array mount BLADE (mounts it at
// DIR)"). Every row has the header's number of fields. Its first field
// starts with '#', so a reader that skips comments (Go's
// csv.Reader.Comment = '#', pandas' comment="#") reads the header first
// and then only the files; a file row whose card starts with '#' has it
// quoted. A card with more skipped entries than the report lists ends
// with a row "# not listed", its card, state "skipped" and in error "…
// and N more skipped, not listed here: dit job show JOB lists them all". A copy's state carries its error ("failed: read-back:
// ..."); a skipped entry has state "skipped (<kind>)" and its reason in
// error. Paths are the card-relative paths, byte for byte; sizes are bytes.
//
// A cascade (dit offload --then) adds four columns at the end of every
// row, the card's: card_free_at and safe_to_format_at (RFC 3339 UTC; empty
// when the card was not free, or is NOT safe to format),
// second_run_copy_tb_per_hour (bytes read from the first copy over the
// time they were read) and second_run_tb_per_hour (the same bytes over the
// time the second run took, end to end); empty without a second run. Its
// "# destN" rows say "1st run" or "2nd run" in the state field. A job
// without a cascade has neither.
//
// HTML is one self-contained page (inline CSS, each card's chart as inline
// SVG, at most 2000 files listed per card: the CSV has them all). It leads
// with the verdict, the totals and a row per card, like the PDF; sizes read
// in decimal units with the exact byte count as a tooltip
// (<span title="1234567890 bytes">1.23 GB</span>).
//
// PDF is A4 with its fonts embedded, for the producer: Liberation Sans,
// then a fallback chain for what it lacks (Noto Sans, Noto Sans Arabic,
// Noto Sans CJK, Noto Emoji: subsets in fonts/, OFL), chosen per run of
// text, so that any name is drawn and its text extracts as it is (see
// pdftext.go); a character no font has is drawn as U+FFFD and logged.
// Each format is rendered and written on its own: one that fails or
// panics ([FormatError]) never keeps the others from being written. The
// PDF lists no files (a post house reads a job's files in the CSV or
// JSON, not in 2,000 pages of a PDF): page 1 says so, names the CSV and
// JSON reports that have them all (written with it into each folder
// destination's reports folder; a job with only cloud destinations has
// none: "dit report JOB writes them"), and each card's page says where
// its file list is. Page 1: the
// job, a banner saying whether every card is safe to format, the totals in
// large type (cards, files, size, verified yes/no, copy, verify and end to
// end TB/hour, running time; whether the job was resumed, with its runs
// and the time it was paused, and whether it was simulated, at what scale)
// and a table with one row per card (files, size, the three TB/hour, safe
// to format or why not). Page 2: the job's settings and the destinations.
// Then a page per card: its figures, its chart (drawn into the page as
// vector paths and text, in the report's fonts) and its failures and
// skipped entries (the first 40 of each, the rest counted, and those the
// report leaves out said with the command that lists them all).
//
// A cascade (dit offload --then) reads as such in HTML and PDF: a line
// under the totals names the first run's destinations (from the cards) and
// the second run's (from the first copy) and gives the time from the first
// card free to the last card safe to format (when every card is); a table
// gives each card's card-free and safe-to-format times (or why it is NOT
// safe) and its second run's copy and end-to-end TB/hour; the destination
// tables have a Run column (1st, 2nd); each card's page adds its second
// run (source, state, times) and its figures. The job's totals are the
// first run's: bytes read from the cards. A second run's failures are
// listed with the card's, "(2nd run)" after the path. Times in verdicts
// read as every other time of the report.
//
// In HTML and PDF, a TB/hour of 0 (nothing moved) reads "-"; the job's
// copy and end-to-end TB/hour in large type read "—" and "nothing
// copied" when no byte was copied (bytes_copied 0: e.g. a card offloaded
// again to a cloud folder that holds it, read and hashed, nothing sent);
// times read
// H:MM:SS; each table or line gives its rates in one unit, GB/s or MB/s
// (decimal), named once in its heading; reasons and verdicts are shown
// without command-line advice. Charts (gonum/plot, in Liberation Sans)
// show the card's throughput per second, one line for copy and one for
// verify (broken where no samples came, e.g. a pause), against the time
// since the job started (H:MM or H:MM:SS ticks), in MB/s or GB/s, with
// the legend below the plot.
//
// # Clips
//
// When the catalog has clips for a card (recorded by [Clipper] at the end
// of an offload; jobs without them read exactly as before), each card
// carries its clips, camera and card type (those of most of its clips)
// and their summed length. The PDF and HTML list each card's clips (name,
// TC in, TC out (the timecode after the last frame, exclusive, as an
// ALE's End), duration as HH:MM:SS:FF when frames and rate are known
// ("unknown" when nothing tells it, never 0), fps, codec, resolution,
// audio, size, verified) with their poster frames: the PDF after the
// card's page (TC in above TC out in one column), the HTML inline (data:
// URIs, so the page stays one file). Under the list, the clips whose
// media and sidecar disagreed, one disagreement a line ("Media and
// sidecar disagree (the media's values are kept):", then "A001C001:
// frames: sidecar 120, media 96 (the media's kept)").
//
// A clip's sound and its disagreements ([Clip].Audio and Conflicts:
// audio, conflicts in the JSON and the clip sheet) are what the media
// said when the [Clipper] read it; the Clipper records them in the
// catalog's clips with the rest (schema version 25), and every report
// reads them there: the job's own and one built later (dit report) say
// the same Tracks, audio and disagreements. A clip recorded by a dit
// before that has no sound known: its audio is empty, its Tracks "V".
// Poster frames are JPEGs in the reports folder,
// <reports>/thumbnails/<card>/<clip>.jpg on every destination (into a
// dit array with the job's reports); the report reads them from the
// first destination that has them, a dit array included. The clips are
// read from the card's first copy: its folder on the first folder
// destination, else in the first dit array (opened read-only, never the
// card; ffmpeg and ffprobe read a clip there through a local HTTP server
// on the loopback address that serves it from the array's checked
// reader, with range requests, under a random token). A job with clips
// and no poster frame says "no thumbnails (ffmpeg not found)" (or "no
// thumbnails"). JSON has "clips" per card and "thumbnails_note".
//
// The clip sheet (dit report --format clips; written at the end of a job
// with clips as dit-report_job<ID>_<job name>_clips.csv) has one row per
// clip with what an editor's ALE needs:
//
//	card, name, tape (the reel, else the card), start (timecode), end
//	(start + frames, exclusive, as an ALE's End), duration (HH:MM:SS:FF),
//	frames, fps, camera, camera_serial, codec, resolution, type,
//	source_file (the first media file, card-relative), files, size_bytes,
//	verified (yes | no), thumbnail (relative to the reports folder),
//	audio ("2 ch, 24-bit PCM, 48 kHz", "none" for a clip without sound,
//	"" when nothing read it), iso, white_balance, lens (what the camera
//	was set to, where the clip's sidecar said it: internal/clips.Shot,
//	kept in the catalog from schema version 26), conflicts (the media's
//	disagreements with a sidecar, "; " between them)
//
// Timecodes count whole frames at the rate rounded (23.976 counts 24;
// 29.97 and 59.94 drop-frame when the start says so with ';'). The ASC
// MHL and the file CSV are unchanged: files only.
//
// The ALE (dit report --format ale; with the reports when asked:
// [Options].ALE, [Clipper].ALE, dit offload --ale) is an Avid Log
// Exchange file (internal/format/ale) with a row per clip: [ALEColumns],
// Tracks V and an A per audio channel of the media (VA1A2; V when
// nothing read its sound), Source File being the clip's first media
// file on the job's first
// destination, as a path to open (on a dit array: below the array's
// mount point, or its mount place when not mounted: raid/mountplace;
// the JSON's destinations say which, "array"). An ALE has one FPS: a
// job that mixes rates has one per rate ([Report.ALEOutputs], files
// dit-report_job<ID>_<job name>_<rate>fps.ale); a clip of unknown rate
// goes with the first.
//
// The EDL (dit report --format edl, or edl:RATE for one rate of a job
// that mixes them) is a CMX 3600 list (internal/format/edl) of the same
// clips back to back from 01:00:00:00, each with its reel (the ALE's
// Tape), clip name and source file (the ALE's Source File), track B
// (picture and sound) for a clip with sound. The FCPXML (--format
// fcpxml, fcpxml:RATE; internal/format/fcpxml, version 1.10) has the
// same clips as assets linked to those files and to their proxies (the
// ALE's Proxy File: proxy-media), with their audio channels and rate,
// in an event named after the job and a project with them back to back.
//
// The editorial lists (ALE, EDL, FCPXML: [Report.EditorialOutputs]) are
// written with the reports when asked (Options.ALE, dit offload --ale):
// the day's (the job's), one of each per frame rate ("edl", or "edl:25"
// ... named dit-report_job<ID>_<job name>_25fps.edl when the job mixes
// rates); no EDL or FCPXML for clips of no known rate. Each
// destination's lists (written into its reports folder) name the clips'
// files on that destination: a shuttle's relink to the shuttle; the ones
// dit report writes name the first destination's.
//
// # Proxies
//
// A card's editorial proxies (dit offload --proxies, internal/proxies)
// are in the JSON ("proxies" per card: clip, preset, state, dest, path,
// source, tc_start, size, hashes, error, verified_by, made_at: only for
// a proxy made), the HTML
// and the PDF. The proxies sheet (dit report --format proxies; written at
// the end of a job that made proxies as
// dit-report_job<ID>_<job name>_proxies.csv) has one row per proxy on
// each destination, and per clip whose proxy failed or was skipped, by
// card in the order recorded, read from the catalog as it is written
// (catalog.EachProxy: memory does not grow with the proxies):
//
//	card, clip (the name byte for byte), preset, state (made | failed |
//	cancelled | skipped), destination (a folder, a dit array's blade,
//	rclone:REMOTE:PATH), path (the proxy's full path there; '' when it
//	failed), source (the verified copy ffmpeg read, as a path to open: in a
//	dit array, below its mount point or mount place), tc_start, size_bytes,
//	one column per hash of the job (and md5 when the job has a cloud
//	destination), verified_by (as a copy's: s3-etag:md5 is the storage's
//	own MD5 of the uploaded proxy, readback:ALGOS the object read back,
//	ALGOS a copy to a second folder read back; '' for the proxy as
//	ffmpeg wrote it), made_utc (RFC 3339; empty for a proxy not made:
//	failed, cancelled, skipped), error
//
// Fields are quoted as RFC 4180 says (a name with a comma, a quote or a
// line break reads back whole); a read of the catalog that fails midway
// ends the sheet with a row "# INCOMPLETE: <why>" and is an error.
//
// # Where reports are written
//
// `dit report JOB --format F [--out P]` writes one format anywhere. At the
// end of every job dit writes all four into each destination:
// <dest>/<job folder>/reports/dit-report_job<ID>_<job name>.<ext>, where
// the job folder is the layout up to and including {job} (for the default
// {job}/{card}, <dest>/<job name>); when the layout has no separable job
// folder (e.g. {card} or {job}_{card}), or a card's folder would be that
// reports folder, they go to <dest>/dit-reports/<job name>/ ([Dir]). Each
// format is rendered once, straight into a temporary file
// (.<name>.<random>.dit-tmp) in every destination's reports folder at
// once, never whole in memory (the CSV and JSON read the files from the
// catalog as they write them: memory stays flat in the job's files); each
// is synced and closed when the format ends, then renamed to its name and
// the folder synced, destination by destination. A destination whose
// write fails loses that format only; a format that fails to render is
// written nowhere; Ctrl-C stops the render at its next write and leaves
// no temporary file. A later run of the same job (a resume) replaces the
// reports and first removes the temporary files of the job's reports that
// a run cut short (kill -9) left there.
//
// The [Clipper] reads a card's files from the catalog as a walk
// (catalog.EachFile) and holds only each file's name and size, what the
// clip recogniser (internal/clips) needs of the whole card at once, with
// the names of the files not verified: ~220 bytes a file of the card
// (with the recogniser's own) while its clips are found, let go after.
package jobreport
