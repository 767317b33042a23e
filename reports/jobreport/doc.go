// Package jobreport builds the per-job offload report that production and
// the post house read: from the catalog, in CSV, JSON, HTML and PDF.
//
// # Contents
//
// The job (name, id, state, host, dit version, start and end, hashes,
// verify mode); totals; each destination (files verified, copied but not
// verified, failed, skipped, bytes there, write and read-back rates); and
// each card: label, source, media and bus when known, files, bytes, every
// skipped entry with its reason, every failure, copy and verify start and
// end, the mean, min, max and 95th percentile (nearest rank) of its
// per-second throughput samples (catalog.Samples) for the copy (reading the
// card) and the verify phase (reading the copies back), and TB/hour:
//
//	copy        card bytes / (copy finished - copy started)
//	verify      card bytes / (verify finished - verify started)
//	end to end  card bytes / (the later of copy and verify finished - copy started)
//	job         all cards' bytes / (job finished - job started)
//
// in decimal terabytes per hour (10^12 bytes per hour), rounded to three
// decimals. Verification of later files runs while earlier ones are still
// being copied, so the phases overlap. Rates are in bytes per second.
//
// # Formats
//
// JSON is the [Report] struct, indented: a machine-readable copy of all of
// the above, every file included (fields "job", "totals", "destinations",
// "cards"; per card "file_list" with each file's hashes and copies). Times
// are RFC 3339 UTC, TB/hour figures numbers with three decimals.
//
// CSV has one header row, then one row per file of every card and one per
// skipped entry:
//
//	card, path, size_bytes, modified_utc, state, error,
//	<one column per hash of the job, e.g. md5, xxh64>,
//	then per destination D: state@D, verified_at@D, verified_by@D
//
// A copy's state carries its error ("failed: read-back: ..."); a skipped
// entry has state "skipped (<kind>)" and its reason in error. Paths are the
// card-relative paths, byte for byte.
//
// HTML is one self-contained page (inline CSS, each card's chart as inline
// SVG, at most 2000 files listed per card: the CSV has them all). PDF is
// A4 with Liberation Sans embedded: the job and destinations on the first
// page, then one page per card with its figures, its chart (PNG) and its
// failures and skipped entries (the first 40 of each). Charts (gonum/plot)
// show the card's throughput per second over the job's time, one line for
// copy and one for verify, in MB/s or GB/s (decimal).
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
// file is written under a temporary name, synced and renamed; a later run
// of the same job (a resume) replaces them.
package jobreport
