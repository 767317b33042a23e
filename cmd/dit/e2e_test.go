package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

var ditBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dit-e2e-bin")
	if err != nil {
		panic(err)
	}
	ditBin = filepath.Join(dir, "dit")
	cmd := exec.Command("go", "build", "-o", ditBin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic("building dit: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func dit(t *testing.T, db string, args ...string) result {
	t.Helper()
	return runDit(t, append(os.Environ(), "DIT_DB="+db), args...)
}

// runDit runs the dit binary with the environment env.
func runDit(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(ditBin, args...)
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{o.String(), e.String(), code}
}

func tree(t *testing.T, root string) map[string][32]byte {
	out := map[string][32]byte{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = sha256.Sum256(b)
		}
		return nil
	}))
	return out
}

// footage drops OS junk from a card's tree (it is not copied).
func footage(m map[string][32]byte) map[string][32]byte {
	out := map[string][32]byte{}
	for k, v := range m {
		junk := false
		for _, part := range strings.Split(k, "/") {
			if strings.HasPrefix(part, ".") {
				junk = true
			}
		}
		if !junk {
			out[k] = v
		}
	}
	return out
}

func TestKill9MidJobThenResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--size", "40MB", "--style", "mixed", "--seed", "7")
	require.Equal(t, 0, r.code, r.stderr)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")

	cmd := exec.Command(ditBin, "offload", "--json", "--name", "day01", "--throttle", "8MB/s", "-d", d1, "-d", d2, a, b)
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
			before[p] = stamp{inodeOf(t, fi), sha256.Sum256(b)}
		}
	}
	jobs := dit(t, db, "jobs", "--json")
	require.Equal(t, 0, jobs.code, jobs.stderr)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(jobs.stdout), &list))
	require.Len(t, list, 1)
	require.Equal(t, "interrupted", list[0]["state"], "a killed job shows as interrupted")
	for _, k := range []string{"job_id", "name", "started", "mhl", "cards"} {
		require.Contains(t, list[0], k)
	}
	require.Equal(t, "asc", list[0]["mhl"], "a job started without --mhl writes ASC MHL histories")

	// The killed job's time is the time it ran (to its last sample), not 0.
	ks := dit(t, db, "job", "show", itoa(jobID), "--json")
	require.Equal(t, 0, ks.code, ks.stderr)
	var killed struct {
		State         string  `json:"state"`
		Seconds       float64 `json:"seconds"`
		ActiveSeconds float64 `json:"active_seconds"`
		PausedSeconds float64 `json:"paused_seconds"`
	}
	require.NoError(t, json.Unmarshal([]byte(ks.stdout), &killed))
	require.Equal(t, "interrupted", killed.State)
	require.Greater(t, killed.ActiveSeconds, 0.0, "samples were taken before the kill")
	require.InDelta(t, killed.ActiveSeconds+killed.PausedSeconds, killed.Seconds, 1e-6, "start to the end of its last run")
	text := dit(t, db, "job", "show", itoa(jobID))
	require.Equal(t, 0, text.code, text.stderr)
	require.NotContains(t, text.stdout, "interrupted in 0s")
	require.Regexp(t, `interrupted in [0-9.]+m?s`, text.stdout)

	res := dit(t, db, "offload", "--json", "--resume", itoa(jobID))
	require.Equal(t, 0, res.code, "resume: %s\n%s", res.stderr, tail(res.stdout))
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
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
		want := footage(tree(t, card))
		for _, d := range []string{d1, d2} {
			require.Equal(t, want, withoutHistory(tree(t, filepath.Join(d, "day01", filepath.Base(card)))), "byte-identical %s on %s", card, d)
		}
	}
	for p, st := range before {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		b, _ := os.ReadFile(p)
		require.Equal(t, st.ino, inodeOf(t, fi), "%s was not replaced", p)
		require.Equal(t, st.sum, sha256.Sum256(b), "%s was not changed", p)
	}

	// dit verify reads every copy back; a flipped byte is named.
	v := dit(t, db, "verify", itoa(jobID))
	require.Equal(t, 0, v.code, v.stdout+v.stderr)
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
	v = dit(t, db, "verify", itoa(jobID))
	require.Equal(t, 3, v.code)
	require.Contains(t, v.stdout, victim)
	show := dit(t, db, "job", "show", itoa(jobID), "--json")
	require.Equal(t, 0, show.code)
	require.Contains(t, show.stdout, `"safe_to_format": false`)
}

func TestUsageAndFatalExitCodes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	r := dit(t, db, "offload", "--bogus")
	require.Equal(t, 2, r.code)
	r = dit(t, db, "offload", "-d", dir, "--hash", "crc32", dir)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `unknown hash "crc32"`)
	r = dit(t, db, "offload", "-d", dir, filepath.Join(dir, "missing-card"))
	require.Equal(t, 2, r.code) // a path on the command line that is not there: usage
	require.Contains(t, r.stderr, "missing-card does not exist")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.db"), bytes.Repeat([]byte("not a database "), 20), 0o644))
	r = dit(t, db, "jobs", "--db", filepath.Join(dir, "junk.db"))
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "is not a usable dit catalog")
	r = dit(t, db, "job", "show", "99")
	require.Equal(t, 1, r.code)
	// The refusals above created no catalog: it says so.
	require.Contains(t, r.stderr, "no catalog at "+db)
	r = dit(t, db, "version")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "dit ")
	r = dit(t, db, "offload", "--help")
	require.Contains(t, r.stdout, "130")
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// newBladeArray makes n empty blade folders (dir/Blade1...) and creates a
// dit array over them with `dit array create ARGS... BLADES...`.
func newBladeArray(t *testing.T, db, dir string, n int, args ...string) []string {
	t.Helper()
	var blades []string
	for i := 1; i <= n; i++ {
		b := filepath.Join(dir, "Blade"+strconv.Itoa(i))
		require.NoError(t, os.Mkdir(b, 0o755))
		blades = append(blades, b)
	}
	r := dit(t, db, append(append([]string{"array", "create"}, args...), blades...)...)
	require.Equal(t, 0, r.code, r.stderr)
	return blades
}
