// Package dit is the root of dit, an offload application for film sets: it
// copies camera cards to several destinations at once, hashes every byte as
// it is read, reads every copy back from its medium and compares, and logs
// everything to a SQLite catalog. A card is "safe to format" only when every
// file of it is verified on every destination.
//
// Where things are:
//
//	cmd/dit              the CLI (cobra; builds with CGO_ENABLED=0): one file per command
//	cmd/ditbench         the whole-process benchmark behind `make bench`
//	cmd/ditplanbench     the planner-accuracy benchmark behind `make bench`
//	cmd/ditcatbench      the catalog at scale behind `make bench`: a generated
//	                     catalog of a million files, dit's commands timed on it
//	cmd/dit-gui          the desktop app (Fyne, cgo; a stub without cgo)
//	internal/offload     the engine: jobs, the per-card pipeline (one read,
//	                     N destination writers, inline hashes), read-back
//	                     verification, resume, progress events, summaries
//	internal/verdict     the one read model of what a job, a card and a run are
//	                     (copying ... card free, safe to format, failed,
//	                     interrupted): every front end shows its states
//	internal/hashing     md5, sha1, xxh64, xxh3, xxh128, c4, blake3 in one
//	                     pass, one goroutine per algorithm; ASC MHL encodings
//	internal/source      walking a card: what is copied, what is skipped and why
//	internal/fsys        the filesystem interface (real and fault-injecting),
//	                     page-cache bypass for read-back; ArrayFS and Mux
//	                     make a dit array a destination like a folder
//	internal/catalog     the catalog on SQLite or PostgreSQL: schema, migrations,
//	                     batched writer, stations, push to a shared catalog
//	internal/catalog/pgtest  a real PostgreSQL server for tests (Debian package)
//	internal/serve       dit serve: read-only status page, SSE, JSON, /metrics
//	internal/units       decimal units people read: GB/s, TB/hour
//	internal/plan        bus-budget planner: media/bus/destination profiles (data),
//	                     topology files, max-min fair rates, what limits each card
//	internal/sched       the plan enforced: token buckets per card, bus and destination
//	                     (offload.Limiter), --simulate, re-plans recorded in the catalog
//	internal/devices     mounted volumes: Linux sysfs, macOS diskutil/system_profiler
//	internal/testcards   deterministic generated camera cards for demo, tests, bench
//	raid                 dit's own RAID 0/4 array over SSD blade folders: striped
//	                     writer with inline parity and unit hashes, checked and
//	                     degraded reads, scrub/repair, rebuild, crash recovery;
//	                     its doc is the on-disk format (importable, no internal/)
//	raid/fusemount       read-only FUSE view of an array
//	reports/ascmhl       ASC MHL histories: read, write, verify (through a Store:
//	                     OS folder or the engine's filesystem, e.g. an array)
//	reports/mhlv1        MHL v1.1 lists for older pipelines
//	reports/seal         the offload's Seal hook: a history per card and destination
//	reports/jobreport    per-job TB/hour report: CSV, JSON, HTML and PDF with charts
//	ui                   the desktop app's views (the only package that imports fyne.io):
//	                     offload and plan, running job, history and reports, arrays
//
// The CLI and the GUI drive the same engine API (offload.New /
// offload.Resume, Job.Run, Options.OnEvent) and read the same events. Core
// packages never import cmd/ or ui/; arch_test.go enforces the layering.
package dit
