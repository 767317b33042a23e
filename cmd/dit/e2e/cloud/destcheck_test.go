//go:build unix

package cloud

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// dit offload refuses a cloud destination rclone cannot take as it is,
// exit 2 before any job is recorded, naming it and what to do: no
// folder, a bucket that is not there, a local-type remote's path
// relative to the working folder. An absolute path on a local-type
// remote, run from another folder, lands in the folder dit prints.
func TestOffloadRefusesABadCloudDestination(t *testing.T) {
	t.Parallel()
	_, _, env, dir, card := setup(t, "2MB", "mixed")
	env = append(env, "RCLONE_CONFIG_DITLOC_TYPE=local")
	wd := filepath.Join(dir, "wd")
	require.NoError(t, os.Mkdir(wd, 0o755))
	for _, c := range []struct{ dest, msg string }{
		{"rclone:ditcloud:", "dit: cloud destination rclone:ditcloud: names no folder: write rclone:ditcloud:BUCKET/FOLDER"},
		{"rclone:ditcloud:nobucket/show", `dit: cloud destination rclone:ditcloud:nobucket/show: the bucket "nobucket" does not exist on the remote "ditcloud": ` +
			"create it with rclone mkdir ditcloud:nobucket, or check the name"},
		{"rclone:ditloc:rel", "dit: cloud destination rclone:ditloc:rel is a folder relative to the one dit runs in"},
	} {
		r := e2e.RunDitIn(t, wd, env, "offload", "--name", "day01", "-d", c.dest, card)
		require.Equal(t, 2, r.Code, "%s\n%s%s", c.dest, r.Stdout, r.Stderr)
		require.True(t, strings.HasPrefix(r.Stderr, c.msg), "%s: %s", c.dest, r.Stderr)
	}
	r := e2e.RunDitIn(t, wd, env, "jobs")
	require.Contains(t, r.Stderr, "no catalog at", "no job recorded, and no catalog created: %s", r.Stdout)
	require.NotContains(t, r.Stdout, "day01", "no job recorded")

	dest := filepath.Join(dir, "locdest")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r = e2e.RunDitIn(t, wd, env, "offload", "--name", "day01", "-d", "rclone:ditloc:"+dest, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "rclone:ditloc:"+dest+"/day01/A001")
	require.DirExists(t, filepath.Join(dest, "day01", "A001", "ascmhl"))
	left, err := os.ReadDir(wd)
	require.NoError(t, err)
	require.Empty(t, left, "nothing under the working folder")
}
