package frontends

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
)

// watchRun is a dit watch running on a folder of "volumes".
type watchRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	events chan map[string]any
	mu     sync.Mutex
	all    []map[string]any
	cursor int
	done   chan struct{}
}

func startWatch(t *testing.T, db string, args ...string) *watchRun {
	t.Helper()
	cmd := exec.Command(e2e.Bin, append([]string{"watch", "--json", "--interval", "20ms"}, args...)...)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	w := &watchRun{t: t, cmd: cmd, events: make(chan map[string]any, 10000), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				w.mu.Lock()
				w.all = append(w.all, ev)
				w.mu.Unlock()
				w.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		<-w.done
		cmd.Wait()
		if t.Failed() {
			t.Logf("dit watch stderr:\n%s", e2e.Tail(stderr.String()))
		}
	})
	return w
}

// waitFor returns the first event since the last one waitFor returned
// (events that came in between, in any order, count) that match accepts.
func (w *watchRun) waitFor(what string, match func(map[string]any) bool) map[string]any {
	w.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		w.mu.Lock()
		for i := w.cursor; i < len(w.all); i++ {
			if match(w.all[i]) {
				ev := w.all[i]
				w.mu.Unlock()
				return ev
			}
		}
		w.mu.Unlock()
		select {
		case <-w.events:
		case <-w.done:
			w.t.Fatalf("dit watch ended while waiting for %s", what)
		case <-timeout:
			w.t.Fatalf("no %s from dit watch within a minute", what)
		}
	}
}

// from makes the next waits look only at events from now on.
func (w *watchRun) from() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cursor = len(w.all)
	return w.cursor
}

func volume(action, label string) func(map[string]any) bool {
	return func(ev map[string]any) bool {
		return ev["type"] == "volume" && ev["action"] == action && (label == "" || ev["label"] == label)
	}
}

func summaryOf(label string) func(map[string]any) bool {
	return func(ev map[string]any) bool {
		if ev["type"] != "summary" {
			return false
		}
		cards, _ := ev["cards"].([]any)
		for _, c := range cards {
			if m, ok := c.(map[string]any); ok && m["label"] == label {
				return true
			}
		}
		return false
	}
}

func writePreset(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "preset.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// A camera card "mounted" while dit watch runs is offloaded, verified and
// ejected; a volume that is not a card, and a destination, are ignored; the
// same card inserted again is skipped (already offloaded); a second card
// starts the next job.
func TestWatchOffloadsEjectsAndSkips(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--style", "mixed", "--seed", "31")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols := filepath.Join(dir, "Volumes")
	raid := filepath.Join(vols, "RAID") // a destination among the volumes
	require.NoError(t, os.MkdirAll(raid, 0o755))
	eject := filepath.Join(dir, "eject.sh")
	// "Ejecting" moves the volume out of the folder, as an unmount does.
	require.NoError(t, os.WriteFile(eject, []byte("#!/bin/sh\nmv \"$1\" \""+dir+"/ejected-$(basename \"$1\")\"\n"), 0o755))
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day01\neject: true\n", raid))
	w := startWatch(t, db, "--preset", preset, "--volumes", vols, "--eject-with", eject)

	ev := w.waitFor("the destination ignored", volume("ignored", "RAID"))
	require.Contains(t, ev["message"], "destination")
	require.NoError(t, os.MkdirAll(filepath.Join(vols, "Backup", "Documents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(vols, "Backup", "Documents", "notes.txt"), []byte("x"), 0o644))
	ev = w.waitFor("a non-card volume ignored", volume("ignored", "Backup"))
	require.Contains(t, ev["message"], "not a camera card")

	w.from()
	require.NoError(t, os.Rename(filepath.Join(cards, "A001"), filepath.Join(vols, "A001")))
	w.waitFor("A001 offloaded", volume("offload", "A001"))
	sum := w.waitFor("A001's summary", summaryOf("A001"))
	require.EqualValues(t, 0, sum["exit_code"])
	w.waitFor("A001 ejected", volume("ejected", "A001"))
	ejected := filepath.Join(dir, "ejected-A001")
	require.Equal(t, e2e.Footage(e2e.Tree(t, ejected)), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(raid, "day01", "A001"))))
	// The eject is in the catalog.
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	ks, err := cat.Cards(int64(sum["job_id"].(float64)))
	require.NoError(t, err)
	require.Contains(t, ks[0].Eject, "ejected")
	cat.Close()

	// The same card again: already offloaded and verified: skipped.
	w.from()
	require.NoError(t, os.Rename(ejected, filepath.Join(vols, "A001")))
	ev = w.waitFor("A001 skipped", volume("skipped", "A001"))
	require.Contains(t, ev["message"], "already offloaded")

	// Another card starts the next job.
	w.from()
	require.NoError(t, os.Rename(filepath.Join(cards, "A002"), filepath.Join(vols, "A002")))
	w.waitFor("A002 offloaded", volume("offload", "A002"))
	sum = w.waitFor("A002's summary", summaryOf("A002"))
	require.EqualValues(t, 0, sum["exit_code"])
	w.waitFor("A002 ejected", volume("ejected", "A002"))
}

// A card removed mid-copy: its files in flight fail with "card removed",
// nothing partial is kept, and when the same card comes back the watch
// takes it up without copying the files verified before again.
func TestWatchCardRemovedAndBack(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "8MB", "--style", "frames", "--seed", "32")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols, raid := filepath.Join(dir, "Volumes"), filepath.Join(dir, "raid")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day01\n", raid))
	w := startWatch(t, db, "--preset", preset, "--volumes", vols, "--throttle", "4MB/s")
	card := filepath.Join(vols, "A001")
	require.NoError(t, os.Rename(filepath.Join(cards, "A001"), card))
	w.waitFor("A001 offloaded", volume("offload", "A001"))
	verified := 0
	w.waitFor("three verified files", func(ev map[string]any) bool {
		if ev["type"] == "file" && ev["state"] == "verified" {
			verified++
		}
		return verified >= 3
	})
	// Pulled: the folder leaves the volumes (hidden names are not volumes).
	away := filepath.Join(vols, ".A001-pulled")
	require.NoError(t, os.Rename(card, away))
	sum := w.waitFor("the job's summary", summaryOf("A001"))
	require.EqualValues(t, 3, sum["exit_code"])
	c := sum["cards"].([]any)[0].(map[string]any)
	require.Equal(t, false, c["safe_to_format"])
	failures := c["failures"].([]any)
	require.NotEmpty(t, failures)
	for _, f := range failures {
		require.Contains(t, f.(map[string]any)["error"], "card A001 removed")
	}
	require.Empty(t, e2e.DitTemps(t, raid), "nothing partial is kept")
	copied := e2e.Inodes(t, filepath.Join(raid, "day01", "A001"))
	require.NotEmpty(t, copied)
	w.from()

	// Back in the reader: taken up again.
	require.NoError(t, os.Rename(away, card))
	w.waitFor("A001 resumed", volume("resume", "A001"))
	sum = w.waitFor("the resumed job's summary", summaryOf("A001"))
	require.EqualValues(t, 0, sum["exit_code"], "%v", sum)
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(raid, "day01", "A001"))))
	after := e2e.Inodes(t, filepath.Join(raid, "day01", "A001"))
	for rel, ino := range copied {
		if strings.HasPrefix(rel, "ascmhl/") {
			continue // the hash lists get the resumed run's generation
		}
		require.Equal(t, ino, after[rel], "%s was verified before the card was pulled, and written again", rel)
	}
}

// Three cards arriving one after another join the running job and share
// its bus budget: the plan is made again each time one joins.
func TestWatchCardsJoinAndReplan(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "3", "--size", "30MB", "--style", "mixed", "--seed", "33")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols, raid := filepath.Join(dir, "Volumes"), filepath.Join(dir, "raid")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	topo := e2e.WriteFile(t, filepath.Join(dir, "set.yaml"), fmt.Sprintf(`
buses:
  - {name: usb-shared, kind: usb3.0}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: axs, bus: usb-shared}
  - {name: A002, media: axs, bus: usb-shared}
  - {name: A003, media: axs, bus: usb-shared}
destinations:
  - {name: raid, path: %s, bus: tb-1, kind: nvme-raid-tb3}
`, raid))
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day01\ntopology: %s\n", raid, topo))
	w := startWatch(t, db, "--preset", preset, "--volumes", vols, "--simulate", "--simulate-scale", "0.02")
	for i, l := range []string{"A001", "A002", "A003"} {
		require.NoError(t, os.Rename(filepath.Join(cards, l), filepath.Join(vols, l)))
		if i == 0 {
			w.waitFor(l+" offloaded", volume("offload", l))
		} else {
			w.waitFor(l+" joins", volume("join", l))
		}
	}
	sum := w.waitFor("the job's summary", summaryOf("A003"))
	require.EqualValues(t, 0, sum["exit_code"])
	require.Len(t, sum["cards"], 3, "one job for the three cards")
	plans := sum["plans"].([]any)
	var reasons []string
	for _, p := range plans {
		reasons = append(reasons, p.(map[string]any)["reason"].(string))
	}
	require.Contains(t, reasons, "A002 added", "%v", reasons)
	require.Contains(t, reasons, "A003 added", "%v", reasons)
}

// Stopped with Ctrl-C after every card it offloaded is safe to format,
// dit watch says so and exits 0: it does not call a job that is done
// resumable.
func TestWatchStoppedAfterEveryCardIsSafe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--seed", "32")
	require.Equal(t, 0, r.Code, r.Stderr)
	vols := filepath.Join(dir, "Volumes")
	raid := filepath.Join(dir, "RAID")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	preset := writePreset(t, dir, fmt.Sprintf("destinations: [%s]\nname: day02\n", raid))
	w := startWatch(t, db, "--preset", preset, "--volumes", vols)
	require.NoError(t, os.Rename(filepath.Join(cards, "A001"), filepath.Join(vols, "A001")))
	sum := w.waitFor("A001's summary", summaryOf("A001"))
	require.EqualValues(t, 0, sum["exit_code"])
	require.NoError(t, w.cmd.Process.Signal(os.Interrupt))
	<-w.done
	err := w.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	require.Equal(t, 0, code, "every job it ran is done: the watch's stop is not an interruption")
	r = e2e.Dit(t, db, "jobs", "--json")
	require.Contains(t, r.Stdout, `"state": "done"`)
}
