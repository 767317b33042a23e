// Package verdict is dit's one read model of a job's truth: the typed
// states of a job, of each of its cards and of each run (hop) of a card,
// decided in one place from what the catalog records. Every front end (the
// CLI summary, dit jobs / job show, the event stream, dit day, dit serve,
// notifications, the reports, dit-gui) shows these states; none decides
// "safe to format" on its own.
//
// The states a person reads:
//
//	queued       the card waits for its turn
//	copying      read from the card, written to every destination
//	verifying    every copy read back from its medium and compared
//	sealing      the hash lists (ASC MHL, MHL v1.1) being written
//	card_free    a cascade (dit offload --then): verified on every first-run
//	             destination; the card may leave the reader, NOT be formatted;
//	             its second run is at work
//	safe_to_format  every file verified on every destination of every run,
//	             its hash lists written
//	copied       ended copied, not verified (--verify none): NOT safe
//	failed       ended with failures (files, copies, hash lists): NOT safe;
//	             the reasons are listed with it
//	interrupted  ended before it was done (killed, stopped): NOT safe;
//	             dit offload --resume JOB continues it
//
// A job is running while a process is at work on it, then done (every card
// safe to format, or copied as asked with --verify none), failed (a card
// failed) or interrupted (also when killed while writing its reports). A run (hop) of a
// card is queued, copying, verifying, sealing, verified, failed or
// interrupted. A state of work (queued, copying, verifying, sealing,
// card_free, running) is only ever shown while a process is at work: a
// process that exits leaves every job and card ended (Ended).
//
// Where it sits: below the engine (internal/offload builds its Summary
// with it, internal/serve, notify, the reports, the CLI and dit-gui read
// it); it imports nothing of dit's, so every layer may use it. The events
// that carry these states, and the JSON fields, are documented in
// docs/events.md.
package verdict
