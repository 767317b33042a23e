// Package crash holds the kill -9 test at every seal and report step
// (DIT_CRASH_AT, internal/crashpoint) on a folder and a dit array: after
// each, no card is safe to format without a history the ASC reference tool
// accepts, and a resume finishes the job. The longest end-to-end package
// (about 4 minutes on 2 cores): it has one on its own.
package crash
