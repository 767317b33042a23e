package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// dit offload --resume refuses a job-defining flag, card or destination
// that differs from what the job recorded (exit 2, naming the flag, the
// recorded value and the given one) and accepts the same value, compared
// the way the engine reads it. A refusal leaves the job as it was.
func TestResumeRefusesDifferentSettings(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--size", "12MB", "--style", "clips", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1, d2, other := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle"), filepath.Join(dir, "other")
	for _, d := range []string{d1, d2, other} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	link := filepath.Join(dir, "raid-link")
	require.NoError(t, os.Symlink(d1, link))
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")
	jobID := e2e.StartAndKill(t, db, 2, "--name", "day01", "--hash", "xxh64,md5", "--verify", "source+dest",
		"--verify-hashes", "all", "--layout", "{date}/{job}/{card}", "--on-conflict", "rename", "--include-hidden",
		"--mhl", "both", "--throttle", "4MB/s", "-d", d1, "-d", d2, a, b)
	id := e2e.Itoa(jobID)

	for _, tc := range []struct {
		name string
		args []string // given with --resume
		want []string // in the refusal
	}{
		{"hash", []string{"--hash", "sha1"}, []string{"--hash md5,xxh64, not --hash sha1", "resume without --hash"}},
		{"hash subset", []string{"--hash", "md5"}, []string{"--hash md5,xxh64, not --hash md5:", "resume without --hash"}},
		{"verify", []string{"--verify", "dest"}, []string{"--verify source+dest, not --verify dest", "resume without --verify"}},
		{"verify-hashes", []string{"--verify-hashes", "fastest"}, []string{"--verify-hashes all, not --verify-hashes fastest", "resume without --verify-hashes"}},
		{"layout", []string{"--layout", "{job}/{card}"}, []string{"--layout {date}/{job}/{card}, not --layout {job}/{card}", "resume without --layout"}},
		{"on-conflict", []string{"--on-conflict", "fail"}, []string{"--on-conflict rename, not --on-conflict fail", "resume without --on-conflict"}},
		{"include-hidden", []string{"--include-hidden=false"}, []string{"--include-hidden=true, not --include-hidden=false", "resume without --include-hidden"}},
		{"name", []string{"--name", "day 02"}, []string{"--name day01, not --name 'day 02'", "resume without --name"}},
		{"mhl", []string{"--mhl", "asc"}, []string{"--mhl both, not --mhl asc", "resume without --mhl"}},
		{"dest left out", []string{"-d", d1}, []string{"left out: " + d2, "resume without -d"}},
		{"dest not the job's", []string{"-d", d1, "-d", d2, "-d", other}, []string{"not the job's: " + other, "resume without -d"}},
		{"card left out", []string{a}, []string{"left out: " + b, "resume without naming cards"}},
		{"card not the job's", []string{a, b, other}, []string{"not the job's: " + other, "resume without naming cards"}},
		{"several at once", []string{"--hash", "sha1", "--verify", "none", "-d", d1},
			[]string{"not --hash sha1", "not --verify none", "left out: " + d2}},
	} {
		t.Run("different "+tc.name, func(t *testing.T) {
			res := e2e.Dit(t, db, append([]string{"offload", "--json", "--resume", id}, tc.args...)...)
			require.Equal(t, 2, res.Code, "%v: %s\n%s", tc.args, res.Stderr, e2e.Tail(res.Stdout))
			for _, w := range tc.want {
				require.Contains(t, res.Stderr, w)
			}
			require.Empty(t, res.Stdout, "nothing runs before the refusal")
		})
	}
	jobs := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, jobs.Code, jobs.Stderr)
	var list []struct {
		State string `json:"state"`
	}
	require.NoError(t, json.Unmarshal([]byte(jobs.Stdout), &list))
	require.Len(t, list, 1)
	require.Equal(t, "interrupted", list[0].State, "a refused resume leaves the job as it was")

	// The same values, however written, are accepted; the first run
	// finishes the job, the others resume it done (nothing left to copy).
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"nothing given", nil},
		{"hash in another order and case", []string{"--hash", "MD5,xxh64"}},
		{"verify", []string{"--verify", "source+dest"}},
		{"verify-hashes", []string{"--verify-hashes", "all"}},
		{"layout written differently", []string{"--layout", "{date}/{job}//{card}/"}},
		{"on-conflict", []string{"--on-conflict", "rename"}},
		{"include-hidden", []string{"--include-hidden"}},
		{"name", []string{"--name", "day01"}},
		{"mhl", []string{"--mhl", "both"}},
		{"dests in another order, through a symlink", []string{"-d", d2 + "/", "-d", link}},
		{"cards in another order", []string{b + "/.", a}},
		{"per-run flags", []string{"--throttle", "500MB/s", "--block-size", "1MiB", "--again", "--allow-degraded", "--limit", "10GB/s"}},
	} {
		t.Run("same "+tc.name, func(t *testing.T) {
			res := e2e.Dit(t, db, append([]string{"offload", "--json", "--resume", id}, tc.args...)...)
			require.Equal(t, 0, res.Code, "%v: %s\n%s", tc.args, res.Stderr, e2e.Tail(res.Stdout))
		})
	}
	show := e2e.Dit(t, db, "job", "show", id, "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var s struct {
		State  string `json:"state"`
		Hashes string `json:"hashes"`
		Verify string `json:"verify"`
		Layout string `json:"layout"`
		MHL    string `json:"mhl"`
		Cards  []struct {
			SafeToFormat bool `json:"safe_to_format"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s))
	require.Equal(t, "done", s.State)
	require.Equal(t, []string{"md5,xxh64", "source+dest", "{date}/{job}/{card}", "both"}, []string{s.Hashes, s.Verify, s.Layout, s.MHL})
	require.Len(t, s.Cards, 2)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat)
	}
}
