package ui

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A past job that copied nothing (its files already there) says so on
// its History line, in the words of the CLI and the reports; a running
// one says nothing yet; one that copied says its TB/hour.
func TestHistoryLineNothingCopied(t *testing.T) {
	_, line := jobRow{ID: 3, Name: "again", State: "done", Started: t0, Cards: 1, Safe: 1, Files: 17, Bytes: 2e6}.text()
	require.Contains(t, line, ", nothing copied")
	_, line = jobRow{ID: 4, Name: "now", State: "running", Started: t0, Cards: 1, Files: 17, Bytes: 2e6}.text()
	require.NotContains(t, line, "nothing copied")
	require.NotContains(t, line, "TB/hour")
	_, line = jobRow{ID: 5, Name: "day", State: "done", Started: t0, Cards: 1, Safe: 1, Files: 17, Bytes: 2e12, Copied: 2e12, TBh: 1.5}.text()
	require.Contains(t, line, ", 1.500 TB/hour")
}
