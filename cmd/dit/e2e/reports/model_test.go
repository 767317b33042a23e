package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/offload"
)

// jsonNames are the JSON names of struct type v's fields (the job
// model's: what the summary and the report both carry).
func jsonNames(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// The summary (dit job show --json) and the JSON report of the same real
// job, interrupted once and resumed, two cards on two destinations, agree
// on every figure of the job model (files, bytes, failed, the times,
// runs, bytes copied, TB/hour; per card its verdict, safe to format,
// files, bytes, times, TB/hour): the same names, the same values. And
// the TB/hour both give is the one of its definition: bytes read from
// the cards over the time the job ran, 10^12 bytes per hour.
func TestSummaryAndReportAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("a throttled job of a few seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "6MB", "--style", "frames", "--seed", "11")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1, d2 := filepath.Join(dir, "Raid 🎬"), filepath.Join(dir, "東京")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	args := []string{"offload", "--name", "Día 1 🎬", "--throttle", "8MB/s", "-d", d1, "-d", d2,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002")}
	require.Equal(t, 130, interruptAfterFiles(t, db, 3, args...))
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--throttle", "8MB/s")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	r = e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &sum))
	rep := filepath.Join(dir, "report.json")
	r = e2e.Dit(t, db, "report", "1", "--format", "json", "--out", rep)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(rep)
	require.NoError(t, err)
	var report map[string]any
	require.NoError(t, json.Unmarshal(b, &report))

	totals := report["totals"].(map[string]any)
	for _, k := range jsonNames(offload.JobFigures{}) {
		require.Contains(t, sum, k)
		require.Equal(t, sum[k], totals[k], "job figure %q: summary and report", k)
	}
	job := report["job"].(map[string]any)
	for _, k := range []string{"state", "started", "finished"} {
		require.Equal(t, sum[k], job[k], "job %q", k)
	}
	require.EqualValues(t, 2, sum["runs"], "interrupted once, resumed")

	sumCards, repCards := sum["cards"].([]any), report["cards"].([]any)
	require.Len(t, repCards, len(sumCards))
	for i := range sumCards {
		sc, rc := sumCards[i].(map[string]any), repCards[i].(map[string]any)
		for _, k := range jsonNames(offload.CardFigures{}) {
			require.Equal(t, sc[k], rc[k], "card %v: figure %q: summary and report", sc["label"], k)
		}
		require.Equal(t, rc["tb_per_hour"], rc["end_to_end_tb_per_hour"], "the report's older name of the same figure")
		require.Equal(t, true, sc["safe_to_format"], "card %v", sc["label"])
	}

	// TB/hour as defined: bytes copied over active seconds, 10^12 bytes
	// per hour, exactly (not rounded to 0 for a small job).
	bytes, secs := sum["bytes_copied"].(float64), sum["active_seconds"].(float64)
	require.Greater(t, secs, 0.0)
	require.Greater(t, sum["tb_per_hour"].(float64), 0.0)
	require.InEpsilon(t, bytes/1e12/(secs/3600), sum["tb_per_hour"].(float64), 1e-9)
	require.GreaterOrEqual(t, bytes, sum["bytes"].(float64), "every byte of the cards was read (some twice)")
}
