package cloud_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

func needRclone(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed (apt-get install rclone)")
	}
}

// A local-type remote reports its filesystem's room: About gives the
// same free space statfs gives for that folder, also for a folder of the
// destination not created yet.
func TestAboutLocalRemote(t *testing.T) {
	needRclone(t)
	dir := t.TempDir()
	r := &cloud.Rclone{Env: []string{"RCLONE_CONFIG_DITLOCAL_TYPE=local"}, Tries: 1}
	for _, p := range []string{dir, filepath.Join(dir, "not/made/yet")} {
		sp, err := r.About(context.Background(), cloud.Dest{Remote: "ditlocal", Path: p})
		require.NoError(t, err, p)
		var st syscall.Statfs_t
		require.NoError(t, syscall.Statfs(dir, &st))
		free := int64(st.Bavail) * int64(st.Bsize)
		require.True(t, sp.Known, p)
		require.InDelta(t, float64(free), float64(sp.Free), 64<<20, "rclone's free and statfs's (other tests write meanwhile)")
		require.Equal(t, int64(st.Blocks)*int64(st.Bsize), sp.Total)
		require.Positive(t, sp.Used)
	}
}

// S3 reports no free space: unknown, not an error. A remote that is not
// configured is an error naming the destination.
func TestAboutS3UnknownAndErrors(t *testing.T) {
	s := s3test.Start(t, "ditabout", "shots")
	r := &cloud.Rclone{Env: s.Env, Tries: 1}
	sp, err := r.About(context.Background(), cloud.Dest{Remote: "ditabout", Path: "shots/job1"})
	require.NoError(t, err)
	require.False(t, sp.Known)
	require.Equal(t, int64(-1), sp.Free)

	r = &cloud.Rclone{Config: filepath.Join(t.TempDir(), "none.conf"), Tries: 1}
	_, err = r.About(context.Background(), cloud.Dest{Remote: "nosuch", Path: "b/x"})
	require.ErrorContains(t, err, "cloud destination rclone:nosuch:b/x: cannot ask its free space")
	t.Log(err)
}
