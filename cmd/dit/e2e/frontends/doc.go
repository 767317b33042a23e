// Package frontends holds the end-to-end tests of what the front ends
// show of a job (the real binary): one verdict in the CLI, JSON, reports,
// dit serve and notifications (TestOneVerdictEverywhere), dit watch, dit
// serve in headless Chromium (skipped without chromium), webhook and
// e-mail notifications.
package frontends
