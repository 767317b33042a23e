//go:build linux

package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// bigTinyCard makes a card of n tiny frame files in folders of 1,000.
func bigTinyCard(t *testing.T, root string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		d := filepath.Join(root, "DCIM", fmt.Sprintf("%03d", i/1000))
		if i%1000 == 0 {
			require.NoError(t, os.MkdirAll(d, 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(d, fmt.Sprintf("A001C001_F%07d.DNG", i)), []byte(fmt.Sprint("frame ", i)), 0o644))
	}
}

// A Ctrl-C at any point of an offload of a card of 12,000 tiny files,
// from the scan of the card on (the catalog file appearing, before any
// event), to its first events and its first files: dit stops, and the
// job is in the catalog, listed by dit jobs as interrupted, and dit
// offload --resume finishes it: every file verified, the card safe to
// format. The points are the binary's own events, not times. The points
// run in parallel (go test -parallel; the package's TestMain: 3): an
// offload of tiny files waits on the disk much of the time.
func TestInterruptDuringScanIsResumable(t *testing.T) {
	if testing.Short() {
		t.Skip("a card of 12,000 files, offloaded five times")
	}
	dir := e2e.TempDir(t)
	card := filepath.Join(dir, "A001")
	const files = 12000
	bigTinyCard(t, card, files)
	for _, at := range []string{"catalog", "job_started", "card_started", "file:1", "file:500"} {
		t.Run(at, func(t *testing.T) {
			t.Parallel()
			run := e2e.TempDir(t)
			db, dest := filepath.Join(run, "catalog.db"), filepath.Join(run, "raid")
			require.NoError(t, os.Mkdir(dest, 0o755))
			cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "-d", dest, card)
			cmd.Env = append(os.Environ(), "DIT_DB="+db)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 1<<20), 1<<24)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			waitFor(t, at, db, lines)
			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			for range lines { // the rest, to the summary
			}
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			t.Logf("interrupted at %s: exit %d; %s", at, code, strings.TrimSpace(stderr.String()))

			r := e2e.Dit(t, db, "jobs", "--json")
			require.Equal(t, 0, r.Code, r.Stderr)
			var jobs []struct {
				JobID int64  `json:"job_id"`
				State string `json:"state"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs))
			require.Len(t, jobs, 1, "the interrupted job is in the catalog (stderr: %s)", stderr.String())
			if code == 0 {
				return // it ended before the signal came: nothing to resume
			}
			require.Equal(t, 130, code, stderr.String())
			require.Equal(t, "interrupted", jobs[0].State)
			r = e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(jobs[0].JobID), "--json")
			require.Equal(t, 0, r.Code, e2e.Tail(r.Stderr))
			var sum struct {
				State string `json:"state"`
				Files int    `json:"files"`
				Cards []struct {
					SafeToFormat bool `json:"safe_to_format"`
					Destinations []struct {
						Verified int `json:"verified"`
					} `json:"destinations"`
				} `json:"cards"`
			}
			last := r.Stdout[strings.LastIndex(strings.TrimSpace(r.Stdout), "\n")+1:]
			require.NoError(t, json.Unmarshal([]byte(last), &sum))
			require.Equal(t, files, sum.Files)
			require.True(t, sum.Cards[0].SafeToFormat)
			require.Equal(t, files, sum.Cards[0].Destinations[0].Verified)
		})
	}
}

// waitFor returns once the offload reached point at: its catalog file
// exists ("catalog"), it printed an event of that type, or "file:N" its
// Nth file event.
func waitFor(t *testing.T, at, db string, lines <-chan string) {
	t.Helper()
	if at == "catalog" {
		for {
			if _, err := os.Stat(db); err == nil {
				return
			}
			select {
			case _, ok := <-lines:
				require.True(t, ok, "dit ended before its catalog appeared")
			case <-time.After(time.Millisecond): // polling the file system: no event says it
			}
		}
	}
	want, n := at, 1
	if typ, num, ok := strings.Cut(at, ":"); ok {
		want = typ
		fmt.Sscan(num, &n)
	}
	seen := 0
	for l := range lines {
		var ev struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(l), &ev)
		if ev.Type == want {
			if seen++; seen == n {
				return
			}
		}
	}
	t.Fatalf("dit ended before %s", at)
}
