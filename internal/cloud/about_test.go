package cloud_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

func needRclone(t *testing.T) {
	t.Helper()
	if testing.Short() { // internal/testneeds's words (a leaf: imports nothing of dit)
		t.Skip("end-to-end (needs rclone): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed (Debian: apt-get install rclone): skipping this test")
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
