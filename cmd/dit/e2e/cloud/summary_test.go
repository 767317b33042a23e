//go:build unix

package cloud

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A job with only cloud destinations writes no reports folder: its
// summary says so and names the command that writes them. The same card
// offloaded again to the folder that holds it sends nothing: its summary,
// dit job show and dit jobs say "nothing copied", not a bare "-".
func TestCloudOnlySummaryReportsAndNothingCopied(t *testing.T) {
	_, env, dir, card := setup(t, "2MB", "clips")
	db := filepath.Join(dir, "catalog.db")
	r := e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:shots/again", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Contains(t, r.Stdout, "\nReports: not written (no folder destination): dit report 1 --db "+db+" --out DIR writes them\n")
	require.NotContains(t, r.Stdout, "nothing copied")
	require.Regexp(t, `Job 1 "day01" done in [^:]+: 17 files, [0-9.]+ [kM]B, [0-9.]+ TB/hour end to end\n`, r.Stdout)

	r = e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:shots/again", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Regexp(t, `Job 2 "day01" done in [^:]+: 17 files, [0-9.]+ [kM]B, nothing copied\n`, r.Stdout)
	require.Regexp(t, `from \S+: 17 files, [0-9.]+ [kM]B, [0-9]+ skipped, 0 failed, nothing copied\n`, r.Stdout)
	require.NotContains(t, r.Stdout, "- TB/hour")

	show := e2e.RunDit(t, env, "job", "show", "2")
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, ": 17 files, ")
	require.Contains(t, show.Stdout, ", nothing copied\n")
	jobs := e2e.RunDit(t, env, "jobs")
	require.Equal(t, 0, jobs.Code, jobs.Stderr)
	require.Regexp(t, regexp.MustCompile(`(?m)^2 +day01 +done .* nothing copied +asc `), jobs.Stdout)
}
