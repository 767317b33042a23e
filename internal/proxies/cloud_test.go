//go:build unix

package proxies

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/testneeds"
)

var cloudAlgos = []hashing.Algo{hashing.XXH64, hashing.MD5}

// madeProxy is a file standing for a proxy made, hashed.
func madeProxy(t *testing.T, body string) *Made {
	p := filepath.Join(t.TempDir(), "proxy.mp4")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	sums, size, err := HashFile(p, cloudAlgos)
	require.NoError(t, err)
	return &Made{Path: p, Size: size, Sums: sums}
}

func cloudMaker(r *cloud.Rclone) *Maker {
	return &Maker{o: Options{Rclone: r}, ctx: context.Background()}
}

// A proxy uploaded to S3 is verified by the storage's own MD5; uploaded
// again (a job that stopped before recording it), the object there is
// this proxy and is taken as it is; another proxy of that name goes to
// "CLIP (2).mp4", the object there left as it was.
func TestProxyToCloudS3(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	m := cloudMaker(&cloud.Rclone{Env: s.Env, Tries: 1})
	row := catalog.Proxy{Clip: "場景 🎬", Dest: "rclone:ditcloud:shots/show", Preset: "h264"}
	made := madeProxy(t, "the proxy's bytes")
	ctx := context.Background()

	got := m.toCloud(ctx, row, made, "day01/A001", "場景 🎬.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyMade, got.State, got.Error)
	require.Equal(t, "proxies/day01/A001/場景 🎬.mp4", got.Path)
	require.Equal(t, "s3-etag:md5", got.VerifyAlgos)
	require.Equal(t, made.Sums, got.Sums)
	require.Equal(t, made.Size, got.Size)
	require.Equal(t, "the proxy's bytes", s.Rclone(t, "cat", "ditcloud:shots/show/proxies/day01/A001/場景 🎬.mp4"))

	again := m.toCloud(ctx, row, made, "day01/A001", "場景 🎬.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyMade, again.State, again.Error)
	require.Equal(t, got.Path, again.Path, "the same proxy: taken as it is, no (2)")

	other := m.toCloud(ctx, row, madeProxy(t, "another proxy"), "day01/A001", "場景 🎬.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyMade, other.State, other.Error)
	require.Equal(t, "proxies/day01/A001/場景 🎬 (2).mp4", other.Path)
	require.Equal(t, "the proxy's bytes", s.Rclone(t, "cat", "ditcloud:shots/show/proxies/day01/A001/場景 🎬.mp4"), "never written over")
	require.Equal(t, "another proxy", s.Rclone(t, "cat", "ditcloud:shots/show/proxies/day01/A001/場景 🎬 (2).mp4"))
}

// An object that is not the proxy after its upload (here: the proxy's
// recorded MD5 is not its bytes') is a failure naming both; nothing more
// is sent (no "(2)") and the object is left.
func TestProxyToCloudDiffers(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	m := cloudMaker(&cloud.Rclone{Env: s.Env, Tries: 1})
	made := madeProxy(t, "the bytes on disk")
	made.Sums.Set(hashing.MD5, "00112233445566778899aabbccddeeff")
	got := m.toCloud(context.Background(), catalog.Proxy{Clip: "A001C001", Dest: "rclone:ditcloud:shots/show"}, made, "day01/A001", "A001C001.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyFailed, got.State)
	require.Contains(t, got.Error, "ditcloud:shots/show/proxies/day01/A001/A001C001.mp4 is not the proxy made")
	require.Contains(t, got.Error, "md5 00112233445566778899aabbccddeeff")
	require.Empty(t, got.Path)
	require.Equal(t, "A001C001.mp4\n", s.Rclone(t, "lsf", "ditcloud:shots/show/proxies/day01/A001"))
}

// A remote with no MD5 of its own (not S3: here an rclone alias of a
// local folder) has the proxy read back and hashed.
func TestProxyToCloudReadBack(t *testing.T) {
	testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	root := t.TempDir()
	m := cloudMaker(&cloud.Rclone{Env: []string{"RCLONE_CONFIG_PLAIN_TYPE=alias", "RCLONE_CONFIG_PLAIN_REMOTE=" + root}, Tries: 1})
	made := madeProxy(t, "read me back")
	got := m.toCloud(context.Background(), catalog.Proxy{Clip: "A001C001", Dest: "rclone:plain:show"}, made, "day01/A001", "A001C001.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyMade, got.State, got.Error)
	require.True(t, strings.HasPrefix(got.VerifyAlgos, "readback:"), got.VerifyAlgos)
	require.Contains(t, got.VerifyAlgos, "md5")
	b, err := os.ReadFile(filepath.Join(root, "show", "proxies", "day01", "A001", "A001C001.mp4"))
	require.NoError(t, err)
	require.Equal(t, "read me back", string(b))
}

// An upload that cannot be made is a recorded proxy failure naming why;
// one stopped (Ctrl-C) is cancelled.
func TestProxyToCloudFails(t *testing.T) {
	made := madeProxy(t, "x")
	row := catalog.Proxy{Clip: "A001C001", Dest: "rclone:nowhere:bucket"}
	m := cloudMaker(&cloud.Rclone{Bin: filepath.Join(t.TempDir(), "no-rclone"), Tries: 1})
	got := m.toCloud(context.Background(), row, made, "day01/A001", "A001C001.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyFailed, got.State)
	require.Contains(t, got.Error, "rclone is not installed")
	require.Empty(t, got.Path)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got = m.toCloud(ctx, row, made, "day01/A001", "A001C001.mp4", cloudAlgos)
	require.Equal(t, catalog.ProxyCancelled, got.State)
}
