package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
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

// dit jobs --json, dit day --json, dit job show --json and the
// notifications (a card's notice and job_done, through a real webhook)
// give a card in one shape, the engine's (offload.CardSummary): the same
// keys and values for the same card of a real job. Each adds only its
// own fields around it: the day its station and job, job show the
// card's files, a notice its message.
func TestOneCardShape(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	for i, name := range []string{"CLIPS/A001C001.mov", "CLIPS/A001C002.mov", "A001.xml"} {
		require.NoError(t, os.WriteFile(filepath.Join(card, name), bytes.Repeat([]byte{byte(i + 1)}, 10_000*(i+1)), 0o644))
	}
	db, raid := filepath.Join(dir, "c.db"), filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	var mu sync.Mutex
	notices := map[string]json.RawMessage{} // kind: the card's summary
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			Kind    string          `json:"kind"`
			Summary json.RawMessage `json:"summary"`
			Cards   []struct {
				Summary json.RawMessage `json:"summary"`
			} `json:"cards"`
		}
		if json.NewDecoder(r.Body).Decode(&m) == nil {
			mu.Lock()
			notices[m.Kind] = m.Summary
			if len(m.Cards) == 1 {
				notices[m.Kind] = m.Cards[0].Summary
			}
			mu.Unlock()
		}
	}))
	defer hook.Close()
	conf := filepath.Join(dir, "notify.yaml")
	require.NoError(t, os.WriteFile(conf, []byte("notify:\n  webhook:\n    url: "+hook.URL+"\n"), 0o600))
	runDit(t, db, "offload", "--name", "Day01", "--notify-config", conf, "-d", raid, card)

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

	mu.Lock()
	defer mu.Unlock()
	for _, kind := range []string{"safe_to_format", "job_done"} {
		n, ok := notices[kind]
		require.True(t, ok, "no %s notice", kind)
		require.Equal(t, want, keysOf(t, n), "the %s notice's card", kind)
		var d map[string]any
		require.NoError(t, json.Unmarshal(n, &d))
		for _, k := range want {
			// The card's own notice carries the card_done event's
			// summary, read when the card ended: its activity figures
			// are not in it yet (internal/offload/summary.EndedCard).
			if kind == "safe_to_format" && (k == "bytes_copied" || k == "tb_per_hour") {
				continue
			}
			require.Equal(t, a[k], d[k], "%s: dit jobs and the %s notice", k, kind)
		}
	}
}
