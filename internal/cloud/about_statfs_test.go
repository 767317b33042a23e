//go:build linux || darwin

package cloud_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
)

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
