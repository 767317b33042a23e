// Package termview draws what dit's command line shows while it works, on
// a terminal: the live lines of a running job (Live: a header with the
// job's cards by state, its live TB/hour, rate and estimate until every
// card is safe to format, then a line per run of a card with its phase,
// files, percentage, a bar where there is room, rate and estimates, or
// its stall, fitted to the terminal's width) and dit verify's read-back
// line (Verify). It also has the pieces the plain, line-by-line output
// shares with them: a run's and the job's periodic lines (PlainLine,
// PlainJobLine), failures of many files for one reason said once
// (Failures), warnings (WarningLine) and stalls (StallLine).
//
// It is a front-end package of cmd/dit (dit offload, dit watch, dit
// verify pick it through cmd/dit's printers): it renders the engine's
// events and the live model's snapshots (internal/live, through
// internal/offload) and the verdict's states (internal/verdict), and
// decides nothing about them: every rate, percentage and estimate it
// shows is the model's; an estimate the model does not know is shown as
// unknown. A cascade's second run (hop 2) is named "A001 (2nd run)" here
// only. The end of job summary and the JSON output stay in cmd/dit.
//
// The rendering uses mpb; tests draw at a fixed width on a buffer with a
// fake clock (Live's width, refresh, poll and now fields).
package termview
