// Package termview draws what dit's command line shows while it works, on
// a terminal: the live lines of a running job (Live: a header with the
// job's cards by state, rate and ETA, then a line per card with its phase,
// files, percentage, a bar where there is room, rate and ETA, fitted to
// the terminal's width) and dit verify's read-back line (Verify). It also
// has the pieces the plain, line-by-line output shares with them: a
// card's periodic line (PlainLine), failures of many files for one reason
// said once (Failures), warnings (WarningLine).
//
// It is a front-end package of cmd/dit (dit offload, dit watch, dit
// verify pick it through cmd/dit's printers): it reads the engine's
// events and progress snapshots (internal/offload) and the verdict's
// states (internal/verdict), and decides nothing about them. The end of
// job summary and the JSON output stay in cmd/dit.
//
// The rendering uses mpb; tests draw at a fixed width on a buffer with a
// fake clock (Live's width, refresh, poll and now fields).
package termview
