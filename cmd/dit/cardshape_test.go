package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runDit runs dit's root command in this process with args, on db.
func runDit(t *testing.T, db string, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	g := &GlobalOptions{stdout: &out, stderr: &errs}
	root := newRootCommand(g)
	root.SetArgs(append(args, "--db", db))
	require.NoError(t, root.Execute(), "dit %v:\n%s%s", args, out.String(), errs.String())
	return out.String()
}

// keysOf is the keys of a JSON object, sorted, without those named.
func keysOf(t *testing.T, raw json.RawMessage, without ...string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	var out []string
	for k := range m {
		if !slices.Contains(without, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// dit jobs --json, dit day --json and dit job show --json give a card
// in one shape, the engine's (offload.CardSummary): the same keys for
// the same card of a real job. Each adds only its own fields around it:
// the day its station and job, job show the card's files.
func TestOneCardShape(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	for i, name := range []string{"CLIPS/A001C001.mov", "CLIPS/A001C002.mov", "A001.xml"} {
		require.NoError(t, os.WriteFile(filepath.Join(card, name), bytes.Repeat([]byte{byte(i + 1)}, 10_000*(i+1)), 0o644))
	}
	db, raid := filepath.Join(dir, "c.db"), filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	runDit(t, db, "offload", "--name", "Day01", "-d", raid, card)

	var jobs []struct {
		JobID   int64             `json:"job_id"`
		Started time.Time         `json:"started"`
		Cards   []json.RawMessage `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(runDit(t, db, "jobs", "--json")), &jobs))
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Cards, 1)
	want := keysOf(t, jobs[0].Cards[0])
	for _, k := range []string{"label", "state", "verdict", "safe_to_format", "files", "bytes", "failed", "path", "stored_state", "first_run", "destinations"} {
		require.Contains(t, want, k)
	}

	var show struct {
		Cards []json.RawMessage `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(runDit(t, db, "job", "show", "1", "--json")), &show))
	require.Len(t, show.Cards, 1)
	require.Equal(t, want, keysOf(t, show.Cards[0], "file_list", "skipped_entries"), "dit job show --json")

	var day struct {
		Safe []json.RawMessage `json:"safe_to_format"`
	}
	date := jobs[0].Started.Local().Format("2006-01-02")
	require.NoError(t, json.Unmarshal([]byte(runDit(t, db, "day", date, "--json")), &day))
	require.Len(t, day.Safe, 1)
	require.Equal(t, want, keysOf(t, day.Safe[0], "station", "job_id", "job", "why"), "dit day --json")

	// The same card, the same values.
	var a, b, c map[string]any
	require.NoError(t, json.Unmarshal(jobs[0].Cards[0], &a))
	require.NoError(t, json.Unmarshal(show.Cards[0], &b))
	require.NoError(t, json.Unmarshal(day.Safe[0], &c))
	for _, k := range want {
		require.Equal(t, a[k], b[k], "%s: dit jobs and dit job show", k)
		require.Equal(t, a[k], c[k], "%s: dit jobs and dit day", k)
	}
	require.Equal(t, "safe_to_format", a["state"])
}
