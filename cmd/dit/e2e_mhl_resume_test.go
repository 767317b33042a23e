package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// startAndKill starts dit offload with args (throttled), waits until it
// reports n files verified, kills it (kill -9: no hash list is written for
// an unfinished card) and returns the job's id.
func startAndKill(t *testing.T, db string, n int, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(ditBin, append([]string{"offload", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var jobID int64
	verified := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && verified < n {
		var ev struct {
			Type  string `json:"type"`
			JobID int64  `json:"job_id"`
			State string `json:"state"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if ev.Type == "file" && ev.State == "verified" {
			verified++
		}
	}
	require.Equal(t, n, verified, "the job must report %d files verified before the kill", n)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	require.NotZero(t, jobID)
	return jobID
}

// hashLists lists the hash lists in a card's folder: "ascmhl" for an ASC
// MHL history, "v1" for each MHL v1.1 file.
func hashLists(t *testing.T, cardDir string) []string {
	t.Helper()
	ents, err := os.ReadDir(cardDir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		switch {
		case e.IsDir() && e.Name() == "ascmhl":
			out = append(out, "ascmhl")
		case !e.IsDir() && strings.HasSuffix(e.Name(), ".mhl"):
			out = append(out, "v1")
		}
	}
	return out
}

// A job keeps its --mhl choice across a kill and a resume without --mhl;
// a resume with a different --mhl is refused, naming both.
func TestResumeKeepsMHLChoice(t *testing.T) {
	for _, tc := range []struct {
		mhl  string
		want []string
	}{
		{"none", nil},
		{"v1", []string{"v1"}},
	} {
		t.Run(tc.mhl, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := filepath.Join(dir, "catalog.db")
			cards := filepath.Join(dir, "cards")
			r := dit(t, db, "testdata", "cards", "--out", cards, "--size", "12MB", "--style", "clips", "--seed", "3")
			require.Equal(t, 0, r.code, r.stderr)
			d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
			require.NoError(t, os.Mkdir(d1, 0o755))
			require.NoError(t, os.Mkdir(d2, 0o755))
			a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")
			jobID := startAndKill(t, db, 2, "--name", "day01", "--mhl", tc.mhl, "--throttle", "4MB/s", "-d", d1, "-d", d2, a, b)

			other := "asc"
			bad := dit(t, db, "offload", "--resume", itoa(jobID), "--mhl", other)
			require.Equal(t, 2, bad.code, bad.stdout+bad.stderr)
			require.Contains(t, bad.stderr, "started with --mhl "+tc.mhl+", not --mhl "+other)
			require.Contains(t, bad.stderr, "resume without --mhl")

			res := dit(t, db, "offload", "--json", "--resume", itoa(jobID))
			require.Equal(t, 0, res.code, "resume: %s\n%s", res.stderr, tail(res.stdout))
			for _, d := range []string{d1, d2} {
				for _, c := range []string{"A001", "A002"} {
					cardDir := filepath.Join(d, "day01", c)
					got := withoutHistory(tree(t, cardDir))
					for k := range got {
						if strings.HasSuffix(k, ".mhl") && !strings.Contains(k, "/") {
							delete(got, k)
						}
					}
					require.Equal(t, footage(tree(t, filepath.Join(cards, c))), got, cardDir)
					require.Equal(t, tc.want, hashLists(t, cardDir), "hash lists in %s after the resume", cardDir)
				}
			}
			// The same choice given again is accepted.
			again := dit(t, db, "offload", "--json", "--resume", itoa(jobID), "--mhl", tc.mhl)
			require.Equal(t, 0, again.code, again.stdout+again.stderr)

			// dit jobs and dit job show name the job's choice.
			jobs := dit(t, db, "jobs", "--json")
			require.Equal(t, 0, jobs.code, jobs.stderr)
			var list []struct {
				JobID int64  `json:"job_id"`
				MHL   string `json:"mhl"`
			}
			require.NoError(t, json.Unmarshal([]byte(jobs.stdout), &list))
			require.Len(t, list, 1)
			require.Equal(t, jobID, list[0].JobID)
			require.Equal(t, tc.mhl, list[0].MHL, "dit jobs --json")
			jobs = dit(t, db, "jobs")
			require.Equal(t, 0, jobs.code, jobs.stderr)
			lines := strings.Split(strings.TrimSpace(jobs.stdout), "\n")
			require.Len(t, lines, 2, jobs.stdout)
			require.Equal(t, "MHL", strings.Fields(lines[0])[6], "dit jobs header: %s", lines[0])
			require.Regexp(t, `\s`+tc.mhl+`\s+A001: safe to format`, lines[1], "dit jobs")
			show := dit(t, db, "job", "show", itoa(jobID), "--json")
			require.Equal(t, 0, show.code, show.stderr)
			var s struct {
				MHL string `json:"mhl"`
			}
			require.NoError(t, json.Unmarshal([]byte(show.stdout), &s))
			require.Equal(t, tc.mhl, s.MHL, "dit job show --json")
			show = dit(t, db, "job", "show", itoa(jobID))
			require.Equal(t, 0, show.code, show.stderr)
			require.Contains(t, show.stdout, ", hash lists (--mhl) "+tc.mhl+"\n", "dit job show")
		})
	}
}
