//go:build linux

package cloud

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// countingRclone puts an rclone first on env's PATH that logs each run's
// arguments to a file and then runs the real one (exec: the same
// process); it returns the new environment and a func that reads the
// runs logged so far, and forgets them.
func countingRclone(t *testing.T, env []string) ([]string, func() []string) {
	t.Helper()
	real, err := exec.LookPath("rclone")
	require.NoError(t, err)
	dir := t.TempDir()
	logf := filepath.Join(dir, "runs.log")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rclone"), []byte("#!/bin/sh\necho \"$*\" >> '"+logf+"'\nexec '"+real+"' \"$@\"\n"), 0o755))
	out := append([]string(nil), env...)
	for i, kv := range out {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + dir + string(os.PathListSeparator) + p
		}
	}
	return out, func() []string {
		b, _ := os.ReadFile(logf)
		os.Remove(logf)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// A job starts one rclone process, its rclone rcd, which does all of its
// cloud work: the checks before it, the remotes, the listings whose
// S3 ETags prove each object, the uploads, the history's. So does a
// resume's dit verify of the job. A card streamed to the cloud alone, and
// a card cascaded from a folder to the cloud.
func TestOffloadStartsOneRclone(t *testing.T) {
	t.Parallel()
	if os.Getenv("DIT_RCLONE_DAEMON") == "0" {
		t.Skip("DIT_RCLONE_DAEMON=0: a process per transfer")
	}
	_, bk, env, dir, card := setup(t, "10MB", "clips")
	env, runs := countingRclone(t, env)
	one := func(what string) {
		t.Helper()
		got := runs()
		require.Len(t, got, 1, "%s: %q", what, got)
		require.True(t, strings.HasPrefix(got[0], "rcd ") || strings.Contains(got[0], " rcd "), "%s: %q", what, got)
	}
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/direct", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	one("a card streamed to the cloud")
	show := e2e.RunDit(t, env, "job", "show", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, "verified by the storage's own md5 (S3 ETag)", "the listing through the daemon proves each object")

	v := e2e.RunDit(t, env, "verify", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)
	one("dit verify of the job")

	r = e2e.RunDit(t, env, "offload", "--json", "--name", "day02", "-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.True(t, lastSummary(t, r.Stdout).Cards[0].SafeToFormat)
	one("a card cascaded to the cloud")
}
