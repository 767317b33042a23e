package frontends

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// stopWatch stops a watch with Ctrl-C and waits for it to exit.
func stopWatch(t *testing.T, w *watchRun) {
	t.Helper()
	require.NoError(t, w.cmd.Process.Signal(os.Interrupt))
	<-w.done
	w.cmd.Wait()
}

// firstPlan is the first plan of a job's summary: its bottleneck and its
// one card.
func firstPlan(t *testing.T, sum map[string]any) (string, map[string]any) {
	t.Helper()
	plans, _ := sum["plans"].([]any)
	require.NotEmpty(t, plans, "the job is scheduled: %v", sum)
	p := plans[0].(map[string]any)
	return p["bottleneck"].(string), p["cards"].([]any)[0].(map[string]any)
}

// A preset's limit: caps the destination of the jobs dit watch starts, as
// dit offload --limit does: the job's plan (in its summary, from the
// catalog) has the card held back by the destination at that rate.
// --limit replaces it for one run.
func TestWatchPresetLimit(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--seed", "61")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols, raid := filepath.Join(dir, "Volumes"), filepath.Join(dir, "raid")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day01\nlimit: 2MB/s\n", raid))
	w := startWatch(t, db, "--preset", preset, "--volumes", vols)
	require.NoError(t, os.Rename(filepath.Join(cards, "A001"), filepath.Join(vols, "A001")))
	sum := w.waitFor("A001's summary", summaryOf("A001"))
	require.EqualValues(t, 0, sum["exit_code"])
	why, card := firstPlan(t, sum)
	require.Contains(t, why, "--limit")
	require.Equal(t, "dest:raid", card["limited_by"])
	require.EqualValues(t, 2e6, card["rate_bytes_per_s"], "the preset's 2 MB/s")
	require.Equal(t, e2e.Footage(e2e.Tree(t, filepath.Join(vols, "A001"))), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(raid, "day01", "A001"))))
	stopWatch(t, w)

	w = startWatch(t, db, "--preset", preset, "--volumes", vols, "--limit", "3MB/s")
	require.NoError(t, os.Rename(filepath.Join(cards, "A002"), filepath.Join(vols, "A002")))
	sum = w.waitFor("A002's summary", summaryOf("A002"))
	require.EqualValues(t, 0, sum["exit_code"])
	_, card = firstPlan(t, sum)
	require.Equal(t, "dest:raid", card["limited_by"])
	require.EqualValues(t, 3e6, card["rate_bytes_per_s"], "--limit's 3 MB/s, not the preset's")
}

// dit watch --notify-config none sends nothing for one run, though the
// preset has a notify: section: a real webhook receiver that got the
// previous run's messages gets none from it.
func TestWatchNotifyNone(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--seed", "62")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols, raid := filepath.Join(dir, "Volumes"), filepath.Join(dir, "raid")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	hook := e2e.NewNotifyHook(t)
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day01\nnotify:\n  webhook:\n    url: %s/hook\n", raid, hook.URL))

	// With the preset's notify: section, the receiver hears of the job.
	w := startWatch(t, db, "--preset", preset, "--volumes", vols)
	require.NoError(t, os.Rename(filepath.Join(cards, "A001"), filepath.Join(vols, "A001")))
	require.EqualValues(t, 0, w.waitFor("A001's summary", summaryOf("A001"))["exit_code"])
	stopWatch(t, w)
	got := hook.Got()
	require.Contains(t, e2e.KindsOf(got), "safe_to_format A001", "the preset's webhook works: %v", e2e.KindsOf(got))

	// --notify-config none: nothing, though the job runs the same.
	w = startWatch(t, db, "--preset", preset, "--volumes", vols, "--notify-config", "none")
	require.NoError(t, os.Rename(filepath.Join(cards, "A002"), filepath.Join(vols, "A002")))
	require.EqualValues(t, 0, w.waitFor("A002's summary", summaryOf("A002"))["exit_code"])
	stopWatch(t, w)
	require.Equal(t, e2e.KindsOf(got), e2e.KindsOf(hook.Got()), "no message of the run without notifications")

	// A file that is not there is refused before anything is watched.
	r = e2e.Dit(t, db, "watch", "--preset", preset, "--volumes", vols, "--notify-config", filepath.Join(dir, "missing.yaml"), "--interval", "1s")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "--notify-config")
}
