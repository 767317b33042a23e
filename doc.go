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
//	internal/offload     the engine: jobs, the per-card pipeline (one read,
//	                     N destination writers, inline hashes), read-back
//	                     verification, resume, progress events, summaries
//	internal/hashing     md5, sha1, xxh64, xxh3, xxh128, c4, blake3 in one
//	                     pass, one goroutine per algorithm; ASC MHL encodings
//	internal/source      walking a card: what is copied, what is skipped and why
//	internal/fsys        the filesystem interface (real and fault-injecting),
//	                     page-cache bypass for read-back
//	internal/catalog     the SQLite catalog: schema, migrations, batched writer
//	internal/units       decimal units people read: GB/s, TB/hour
//	internal/testcards   deterministic generated camera cards for demo, tests, bench
//
// The CLI and (later) the GUI drive the same engine API (offload.New /
// offload.Resume, Job.Run, Options.OnEvent) and read the same events. Core
// packages never import cmd/ or ui/; arch_test.go enforces the layering.
package dit
