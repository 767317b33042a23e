package dest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A destination's kind is told by how it is written (a remote) or what
// is on disk (an array's blade); anything else is a folder.
func TestKindOf(t *testing.T) {
	dir := t.TempDir()
	require.Equal(t, Remote, KindOf("rclone:s3:bucket/show"))
	require.Equal(t, Folder, KindOf(dir))
	require.Equal(t, Folder, KindOf(filepath.Join(dir, "rclone:s3:x")), "a folder whose name holds rclone: is a folder")
	require.Equal(t, "remote", Remote.String())
	require.Equal(t, "array", Array.String())
	require.Equal(t, "folder", Folder.String())
	require.True(t, IsRemote("rclone:s3:"))
	require.False(t, IsRemote("/Volumes/rclone:s3"))
}

// Without a remote kind registered (this package's tests import none), a
// remote destination is refused with an error that says so, and is
// never taken for a local folder.
func TestNoRemoteKind(t *testing.T) {
	_, err := OpenStore("rclone:s3:bucket", nil)
	require.ErrorContains(t, err, "no remote destinations built in")
	require.ErrorContains(t, ParseRemote("rclone:s3:bucket"), "no remote destinations built in")
	err = CheckRemotes(context.Background(), nil, []string{t.TempDir(), "rclone:s3:bucket"})
	require.ErrorContains(t, err, "no remote destinations built in")
	// Folders alone need no remote kind.
	require.NoError(t, CheckRemotes(context.Background(), nil, []string{t.TempDir()}))
	_, statErr := os.Stat("rclone:s3:bucket")
	require.True(t, os.IsNotExist(statErr), "nothing was made in the working folder")
}

// A registered kind is the one asked, once for each remote however often
// it is given.
func TestRegister(t *testing.T) {
	k := &countKind{}
	Register(k)
	t.Cleanup(func() { Register(nil) })
	cfg := testSettings{config: "rclone.conf"}
	require.NoError(t, CheckRemotes(context.Background(), cfg, []string{"rclone:a:x", t.TempDir(), "rclone:a:x", "rclone:b:y"}))
	require.Equal(t, []string{"rclone:a:x", "rclone:b:y"}, k.checked)
	require.Equal(t, cfg, k.cfg)
}

// Settle gives the job's configuration file and limit to the settings
// given, or to the registered kind's defaults when none are; without a
// kind there are none.
func TestSettle(t *testing.T) {
	require.Nil(t, Settle(nil, "/a.conf", 5))
	require.Equal(t, testSettings{config: "/a.conf", bw: "1MB/s", limit: 5}, Settle(testSettings{config: "b.conf", bw: "1MB/s"}, "/a.conf", 5))
	Register(&countKind{})
	t.Cleanup(func() { Register(nil) })
	require.Equal(t, testSettings{config: "/a.conf", limit: 5, bw: "default"}, Settle(nil, "/a.conf", 5))
}

type countKind struct {
	checked []string
	cfg     Settings
}

func (k *countKind) Parse(string) error { return nil }
func (k *countKind) Check(_ context.Context, cfg Settings, root string) error {
	k.checked, k.cfg = append(k.checked, root), cfg
	return nil
}
func (k *countKind) Open(string, Settings) (Store, error) { return nil, nil }
func (k *countKind) Defaults() Settings                   { return testSettings{bw: "default"} }

// testSettings are a kind's settings: what the front end gave (config,
// bw) and what the job settled (limit).
type testSettings struct {
	config, bw string
	limit      int64
}

func (s testSettings) Recorded() (string, string) { return s.config, s.bw }
func (s testSettings) With(config string, limit int64) Settings {
	s.config, s.limit = config, limit
	return s
}
