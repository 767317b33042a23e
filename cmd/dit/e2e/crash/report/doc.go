// Package report holds the kill -9 test at every step of writing a job's
// reports and recording its end (DIT_CRASH_AT, internal/crashpoint): after
// each, no card is safe to format without a history the ASC reference
// tool accepts, and a resume writes the reports and finishes the job. The
// kills at the seal steps are in cmd/dit/e2e/crash/seal; the scenario is
// e2e.CrashAtEveryStep.
package report
