package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

func TestKill9MidJobThenResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--size", "40MB", "--style", "mixed", "--seed", "7")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")

	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--throttle", "8MB/s", "-d", d1, "-d", d2, a, b)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	verified := map[string]bool{}
	sampled := 0
	var jobID int64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var ev struct {
			Type  string `json:"type"`
			JobID int64  `json:"job_id"`
			Card  string `json:"card"`
			Path  string `json:"path"`
			State string `json:"state"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if ev.Type == "file" && ev.State == "verified" {
			verified[ev.Card+"/"+ev.Path] = true
		}
		if ev.Type == "progress" {
			// Per-second samples: the second comes a second after the
			// first, which the catalog (committing every 200 ms) holds.
			sampled++
		}
		if len(verified) >= 4 && sampled >= 2 {
			break
		}
	}
	require.GreaterOrEqual(t, len(verified), 4, "the job must report some files verified before the kill")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()

	// What was reported verified before the kill, as it is on disk now.
	type stamp struct {
		ino uint64
		sum [32]byte
	}
	before := map[string]stamp{}
	for k := range verified {
		for _, d := range []string{d1, d2} {
			p := filepath.Join(d, "day01", filepath.FromSlash(k))
			fi, err := os.Stat(p)
			require.NoError(t, err, "%s was reported verified", p)
			b, _ := os.ReadFile(p)
			before[p] = stamp{e2e.InodeOf(t, fi), sha256.Sum256(b)}
		}
	}
	jobs := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, jobs.Code, jobs.Stderr)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(jobs.Stdout), &list))
	require.Len(t, list, 1)
	require.Equal(t, "interrupted", list[0]["state"], "a killed job shows as interrupted")
	for _, k := range []string{"job_id", "name", "started", "mhl", "cards"} {
		require.Contains(t, list[0], k)
	}
	require.Equal(t, "asc", list[0]["mhl"], "a job started without --mhl writes ASC MHL histories")

	// The killed job's time is the time it ran (to its last sample), not 0.
	ks := e2e.Dit(t, db, "job", "show", e2e.Itoa(jobID), "--json")
	require.Equal(t, 0, ks.Code, ks.Stderr)
	var killed struct {
		State         string  `json:"state"`
		Seconds       float64 `json:"seconds"`
		ActiveSeconds float64 `json:"active_seconds"`
		PausedSeconds float64 `json:"paused_seconds"`
	}
	require.NoError(t, json.Unmarshal([]byte(ks.Stdout), &killed))
	require.Equal(t, "interrupted", killed.State)
	require.Greater(t, killed.ActiveSeconds, 0.0, "samples were taken before the kill")
	require.InDelta(t, killed.ActiveSeconds+killed.PausedSeconds, killed.Seconds, 1e-6, "start to the end of its last run")
	text := e2e.Dit(t, db, "job", "show", e2e.Itoa(jobID))
	require.Equal(t, 0, text.Code, text.Stderr)
	require.NotContains(t, text.Stdout, "interrupted in 0s")
	require.Regexp(t, `interrupted in [0-9.]+m?s`, text.Stdout)

	res := e2e.Dit(t, db, "offload", "--json", "--resume", e2e.Itoa(jobID))
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	var sum struct {
		Type  string `json:"type"`
		JobID int64  `json:"job_id"`
		State string `json:"state"`
		Cards []struct {
			Label        string `json:"label"`
			Files        int    `json:"files"`
			Bytes        int64  `json:"bytes"`
			SafeToFormat bool   `json:"safe_to_format"`
			Destinations []struct {
				Path     string `json:"path"`
				Verified int    `json:"verified"`
				Failed   int    `json:"failed"`
			} `json:"destinations"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Equal(t, "summary", sum.Type)
	require.Equal(t, jobID, sum.JobID)
	require.Equal(t, "done", sum.State)
	require.Len(t, sum.Cards, 2)
	for _, c := range sum.Cards {
		require.True(t, c.SafeToFormat, c.Label)
		require.Len(t, c.Destinations, 2)
		for _, d := range c.Destinations {
			require.Equal(t, c.Files, d.Verified)
			require.Zero(t, d.Failed)
		}
	}
	for _, card := range []string{a, b} {
		want := e2e.Footage(e2e.Tree(t, card))
		for _, d := range []string{d1, d2} {
			require.Equal(t, want, e2e.WithoutHistory(e2e.Tree(t, filepath.Join(d, "day01", filepath.Base(card)))), "byte-identical %s on %s", card, d)
		}
	}
	for p, st := range before {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		b, _ := os.ReadFile(p)
		require.Equal(t, st.ino, e2e.InodeOf(t, fi), "%s was not replaced", p)
		require.Equal(t, st.sum, sha256.Sum256(b), "%s was not changed", p)
	}

	// dit verify reads every copy back; a flipped byte is named.
	v := e2e.Dit(t, db, "verify", e2e.Itoa(jobID))
	require.Equal(t, 0, v.Code, v.Stdout+v.Stderr)
	var victim string
	for p := range before {
		victim = p
		break
	}
	data, _ := os.ReadFile(victim)
	if len(data) == 0 {
		t.Skip("picked an empty file")
	}
	data[len(data)/2] ^= 0x40
	require.NoError(t, os.WriteFile(victim, data, 0o644))
	v = e2e.Dit(t, db, "verify", e2e.Itoa(jobID))
	require.Equal(t, 3, v.Code)
	require.Contains(t, v.Stdout, victim)
	show := e2e.Dit(t, db, "job", "show", e2e.Itoa(jobID), "--json")
	require.Equal(t, 0, show.Code)
	require.Contains(t, show.Stdout, `"safe_to_format": false`)
}
