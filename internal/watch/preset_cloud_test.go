package watch

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/offload"
)

// A preset's cloud destinations (rclone:REMOTE:PATH) are kept as written,
// not taken for folders relative to the preset file; what the engine
// cannot do with them is refused when the preset is read, naming its
// key and line.
func TestPresetCloudDestinations(t *testing.T) {
	file := filepath.Join(t.TempDir(), "day.yaml")
	p, err := ParsePreset(file, []byte("destinations: [raid, rclone:s3backup:rushes/show]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(filepath.Dir(file), "raid"), "rclone:s3backup:rushes/show"}, p.Dests)
	p, err = ParsePreset(file, []byte("destinations: [raid]\nthen: [rclone:other:b]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"rclone:other:b"}, p.Then)

	_, err = ParsePreset(file, []byte("destinations: [raid, rclone:s3backup:rushes/show]\nthen: [rclone:other:b]\n"))
	require.ErrorContains(t, err, "preset "+file+":2: then: a cloud destination (rclone:...) and --then folders in one job")
	var ue *assembly.UsageError
	var cr *offload.RemoteRefusal
	require.True(t, errors.As(err, &ue) && errors.As(err, &cr), "%T", err)
	require.Equal(t, offload.RemoteBesideThen, cr.Reason)
	_, err = ParsePreset(file, []byte("destinations: [rclone:s3backup:rushes/show]\nverify: none\n"))
	require.ErrorContains(t, err, "preset "+file+":2: verify: a cloud destination with --verify none")
}
