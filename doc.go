// Package dit is the root of dit, an offload application for film sets: it
// copies camera cards to several destinations at once, hashes every byte as
// it is read, reads every copy back from its medium and compares, and logs
// everything to a SQLite catalog. A card is "safe to format" only when every
// file of it is verified on every destination.
//
// # Words
//
//	job          cards offloaded together to the same destinations, under one
//	             name and one number in the catalog; resumable
//	card         a camera card (a mounted volume or a folder), copied as one
//	             unit and named by its label (A001)
//	run          one pass of a card to a set of destinations: read once,
//	             written to each, read back, sealed. A card has one run, or
//	             two in a cascade (dit offload --then)
//	hop          a run's place on the way from the camera: hop 1 is written
//	             from the card, hop 2 (a cascade's second run) from the first
//	             copy; a card that carries an ASC MHL history from an earlier
//	             offload got there by an earlier hop
//	first copy   in a cascade, the verified copy on the first run's first
//	             destination: the second run reads it, not the card
//	seal         writing a card's hash lists (an ASC MHL generation, MHL v1.1
//	             on request) into its folder on each destination once every
//	             file is final (internal/seal, offload.Options.Seal); a card
//	             is not safe to format before
//	station      the cart (machine) that ran a job (dit --station, default
//	             the host name); a shared catalog holds several stations' jobs
//	verdict      the one decided state of a job, card or run: copying ...
//	             card free, safe to format, failed, interrupted
//	             (internal/verdict); front ends show it, never decide it
//
// # Layers
//
// Three layers (docs/design.md): the core does the work and knows no front
// end; the composition layer assembles a job from plain settings; the front
// ends parse what a person gives and render what comes back. Nothing
// imports a layer above its own; arch_test.go enforces it.
//
// Core, the format floor (imports nothing of the engine):
//
//	internal/format/ascmhl  ASC MHL histories: read, write, verify (through a Store:
//	                     OS folder or the engine's filesystem, e.g. an array)
//	internal/format/mhlv1   MHL v1.1 lists for older pipelines
//	internal/format/ignore  the ASC MHL ignore patterns (gitignore syntax)
//	internal/format/ale     Avid Log Exchange clip logs for editorial
//	internal/format/edl     CMX 3600 edit decision lists for editorial
//	internal/format/fcpxml  FCPXML 1.10 clip lists for Final Cut Pro and Resolve
//	internal/format/timecode  SMPTE timecode arithmetic for the editorial lists
//
// Core, the engine and what it stands on:
//
//	internal/offload     the engine: jobs, the per-card pipeline (one read,
//	                     N destination writers, inline hashes), read-back
//	                     verification, resume, progress events, summaries
//	internal/verdict     the one read model of what a job, a card and a run are
//	                     (copying ... card free, safe to format, failed,
//	                     interrupted): every front end shows its states
//	internal/live        the one live model of a running job: progress, rates,
//	                     live TB/hour, time to copied / card free / safe to
//	                     format, retries and stalls; the engine feeds it,
//	                     every front end renders its snapshot
//	internal/hashing     md5, sha1, xxh64, xxh3, xxh128, c4, blake3 in one
//	                     pass, one goroutine per algorithm; ASC MHL encodings
//	internal/source      walking a card: what is copied, what is skipped and why
//	internal/fsys        the filesystem interface (real and fault-injecting),
//	                     page-cache bypass for read-back; ArrayFS and Mux
//	                     make a dit array a destination like a folder
//	internal/cloud       rclone:REMOTE:PATH destinations, driven through the rclone
//	                     binary: upload, list with the storage's ETags, read back
//	                     (docs/cloud.md); s3test, a real S3 server for tests
//	internal/tether      children that die with dit (rclone, test servers): forked
//	                     from one thread that never ends (the parent-death signal)
//	internal/catalog     the catalog on SQLite or PostgreSQL: schema, migrations,
//	                     batched writer, stations, push to a shared catalog
//	internal/crashpoint  named steps the crash tests stop dit at
//	internal/units       decimal units people read: GB/s, TB/hour
//	internal/gcgoal      the collector's headroom kept off what a card's run
//	                     holds (its list and plan): GOGC from what is held
//	internal/devices     mounted volumes: Linux sysfs, macOS diskutil/system_profiler
//	internal/clips       what a card holds in clips: camera family, clips, sidecars
//	internal/copysource  a card's verified copy read for clips and proxies (folder or array)
//	internal/speedtest   what a card, folder, blade or array sustains, past the cache
//	internal/plan        bus-budget planner: media/bus/destination profiles (data),
//	                     topology files, max-min fair rates, what limits each card,
//	                     per-file and fixed costs, times to safe to format
//	raid                 dit's own RAID 0/4 array over SSD blade folders: striped
//	                     writer with inline parity and unit hashes, checked and
//	                     degraded reads, scrub/repair, rebuild, crash recovery;
//	                     its doc is the on-disk format (importable, no internal/)
//	raid/fusemount       read-only FUSE view of an array
//	raid/mountplace      where an array is mounted: its mount place, paths to open
//
// Core, what a job is given (attached by the composition layer):
//
//	internal/seal        the offload's Seal hook: a history per card and destination
//	internal/sched       the plan enforced: token buckets per card, bus and destination
//	                     (offload.Limiter), --simulate, re-plans recorded in the catalog;
//	                     each job's per-file and fixed costs learned for the next plans
//	internal/notify      notifications while nobody watches: card free, safe, job end
//	internal/proxies     editorial proxies (ProRes Proxy, H.264, DNxHR LB) of the clips
//	                     with ffmpeg, from a verified copy, at low priority (--proxies)
//	reports/jobreport    per-job TB/hour report: CSV, JSON, HTML and PDF with charts
//	reports/speedchart   a speed test's curves as a PNG
//
// Composition: internal/assembly turns one settings value into a job
// ready to run, with sealing, reports, clips, proxies, scheduling (measured rates
// from dit speedtest included), notifications and the already-offloaded
// decisions attached, the same for every front end; the front ends never
// import the scheduler or the sealer (arch_test.go).
//
// Front ends:
//
//	cmd/dit              the CLI (cobra; builds with CGO_ENABLED=0): one file per command
//	cmd/dit/internal/termview  the CLI's terminal rendering: live job lines, dit verify's line
//	cmd/dit-gui          the desktop app (Fyne, cgo; a stub without cgo)
//	ui                   the desktop app's views (the only package that imports fyne.io):
//	                     offload and plan, running job, history and reports, arrays
//	internal/watch       dit watch and dit-gui's auto-offload: cards offloaded as they appear
//	internal/serve       dit serve: read-only status page, SSE, JSON, /metrics
//
// Tools and test support:
//
//	cmd/ditbench         the whole-process benchmark behind `make bench`
//	cmd/ditplanbench     the planner-accuracy benchmark behind `make bench`
//	cmd/testcount        go test with a count of tests run, passed, failed, skipped
//	cmd/ditspeedbench    dit speedtest against fio, behind `make bench`
//	cmd/ditcloudbench    a cloud upload against rclone copy, behind `make bench`
//	cmd/ditcatbench      the catalog at scale behind `make bench`: a generated
//	                     catalog of a million files, dit's commands timed on it
//	cmd/ditmembench      memory against a card's file count behind `make bench`:
//	                     peak RSS and CPU of dit's commands on 10k-1M frames
//	cmd/dit/e2e/...      the end-to-end tests of the real binary, one package per
//	                     group (array, cascade, cli, cloud, crash/seal, crash/report,
//	                     faults, frontends, mhl, plan, reports); cmd/dit/internal/e2e
//	                     is their harness
//	cmd/sizecheck        make lint's size check: functions over 120 lines, files over 700
//	internal/testcards   deterministic generated camera cards for demo, tests, bench
//	internal/faultfuse   a FUSE filesystem that misbehaves on request, for e2e tests
//	internal/catalog/pgtest  a real PostgreSQL server for tests (Debian package)
//	internal/testneeds   what skips under go test -short (make test-short): a test
//	                     needing a build, a pip package, a server, ffmpeg, rclone
//
// The CLI and the GUI drive the same engine API (offload.New /
// offload.Resume, Job.Run, Options.OnEvent) and read the same events.
package dit
