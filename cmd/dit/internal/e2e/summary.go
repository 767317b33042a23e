package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// LastSummary reads the summary line of a --json run.
func LastSummary(t *testing.T, stdout string) (CascadeSummary, []map[string]any) {
	t.Helper()
	var s CascadeSummary
	var events []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) != nil {
			continue
		}
		events = append(events, ev)
		if ev["type"] == "summary" {
			require.NoError(t, json.Unmarshal([]byte(l), &s))
		}
	}
	require.Equal(t, "summary", s.Type, "no summary in:\n%s", Tail(stdout))
	return s, events
}

// CascadeSummary is the part of the JSON summary a cascade test reads.
type CascadeSummary struct {
	Type     string   `json:"type"`
	JobID    int64    `json:"job_id"`
	State    string   `json:"state"`
	ExitCode int      `json:"exit_code"`
	Then     []string `json:"then"`
	Cards    []struct {
		Label        string    `json:"label"`
		State        string    `json:"state"`
		Files        int       `json:"files"`
		Bytes        int64     `json:"bytes"`
		SafeToFormat bool      `json:"safe_to_format"`
		CardFree     bool      `json:"card_free"`
		FreeAt       time.Time `json:"card_free_at"`
		SafeAt       time.Time `json:"safe_to_format_at"`
		Verdict      string    `json:"verdict"`
		Failures     []struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		} `json:"failures"`
		Then *struct {
			State        string `json:"state"`
			Files        int    `json:"files"`
			Bytes        int64  `json:"bytes"`
			Failed       int    `json:"failed"`
			Destinations []struct {
				Path     string `json:"path"`
				Verified int    `json:"verified"`
			} `json:"destinations"`
			Failures []struct {
				Path  string `json:"path"`
				Error string `json:"error"`
			} `json:"failures"`
		} `json:"then"`
	} `json:"cards"`
}

// CrashJobs is the part of dit jobs --json a crash test reads.
type CrashJobs []struct {
	JobID int64  `json:"job_id"`
	State string `json:"state"`
	Next  string `json:"next"`
	Cards []struct {
		Label string `json:"label"`
		State string `json:"state"`
		Safe  bool   `json:"safe_to_format"`
	} `json:"cards"`
}
