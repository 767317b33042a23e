// Package ui is dit's desktop app (dit-gui), built with Fyne: the only
// package of dit that imports fyne.io (cmd/dit-gui wires it to a real
// window; tests use fyne.io/fyne/v2/test, which needs no cgo and no
// display).
//
// It drives the same engine as the CLI, through the same API, and reads
// the same events: nothing is computed twice.
//
//	Offload      cards (added by hand or detected; cards offloaded before are
//	             found with offload.FindPrior and left out unless copied
//	             again), destinations (plain folders and blades of dit arrays
//	             with their health), hashes, verify mode, MHL, a topology
//	             preset (internal/plan files, loaded and saved), a cascade
//	             (each destination in the first run, "First copy (card is
//	             read)", or the second, "Then, from the first copy";
//	             "Second run: cards at once": Options.Dests, Options.Then,
//	             Options.ThenParallel; a second run without a first-run
//	             destination is refused, in words), and the plan
//	             before the start: a bar per bus and destination (load against
//	             capacity), each card's predicted rate and ETA, the bottleneck
//	             in words, warnings (a reader on a port slower than its card,
//	             cards that do not fit, a degraded array). Start: Ctrl+Enter.
//	Running job  offload.New / offload.Resume, then Job.Run; Options.OnEvent
//	             feeds a model (runModel) that the view renders: per card a
//	             bar, bytes, files, current file, rate, ETA, phase and its
//	             state; large rate and ETA figures; a throughput chart drawn
//	             with canvas lines (last five minutes, one line per card,
//	             decimal GB/s); pause / resume (Ctrl+P) and cancel. In
//	             a cascade a card has a row per run: the first run (from
//	             the card), "Card free - eject" once the engine says
//	             card_free (a button that, for now, names the card's mount
//	             path and says it may leave the reader, NOT be formatted:
//	             dit does not eject it), and the second run (the engine's
//	             "A001 (2nd run)" progress, Hop 2) with its own bar.
//	History      past jobs from the catalog with totals and TB/hour; a job's
//	             cards, failures and files (a cascade: each card's card-free
//	             and safe-to-format times, its second run's destinations
//	             and TB/hour); its report exported as PDF, HTML
//	             or CSV (reports/jobreport); its ASC MHL folders revealed.
//	Arrays       a dit array's blades, their state and free space; scrub
//	             (check, or repair) and rebuild of a blade, with progress.
//
// # Safe to format
//
// A card reads "Verified: safe to format" only when the job's summary,
// read back from the catalog (offload.LoadSummary), says so: never from an
// event alone. A card with a failed file reads "Failed: NOT safe to format"
// and lists each file with the destination and the reason.
//
// In a cascade (Options.Then) a card goes: its first run's phases
// (Copying, Verifying, Writing hash lists), then "Card free - eject: NOT
// safe to format yet" once the engine's card_free event (or the summary's
// CardFree) says so, in the theme's primary colour, not the green of safe
// to format; it stays free while its second run copies, and after it,
// until the summary read once both runs ended says SafeToFormat. A
// summary read while the second run still runs is not the card's verdict.
// A second run that fails reads "Second run FAILED: NOT safe to format
// (keep the card)".
//
// # Threads
//
// Nothing that does I/O runs on the UI goroutine: scans, the plan, the
// job, catalog reads, reports and array operations run in goroutines and
// hand their results to the widgets through App.do (fyne.Do).
//
// # Pause
//
// Pause wraps the job's offload.Limiter (the planner's scheduler, when the
// job has a topology): reads from the cards, writes to the destinations
// and the read-back of copies wait while paused (a block already being
// read or written finishes first).
// Cancel cancels the job's context: temporary files are removed, nothing
// unverified is reported verified, and the job can be resumed from
// History.
package ui
