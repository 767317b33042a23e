package watch

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A preset's cloud destinations (rclone:REMOTE:PATH) are kept as written,
// not taken for folders relative to the preset file.
func TestPresetCloudDestinations(t *testing.T) {
	file := filepath.Join(t.TempDir(), "day.yaml")
	p, err := ParsePreset(file, []byte("destinations: [raid, rclone:s3backup:rushes/show]\nthen: [rclone:other:b]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(filepath.Dir(file), "raid"), "rclone:s3backup:rushes/show"}, p.Destinations)
	require.Equal(t, []string{"rclone:other:b"}, p.Then)
}
