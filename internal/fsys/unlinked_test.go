//go:build !windows

package fsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// CreateUnlinked makes its folder, and its file holds what is written
// while no name in the folder shows it.
func TestCreateUnlinked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "dit")
	f, err := CreateUnlinked(dir, "dit-test-*")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt([]byte("blocks"), 10)
	require.NoError(t, err)
	b := make([]byte, 6)
	_, err = f.ReadAt(b, 10)
	require.NoError(t, err)
	require.Equal(t, "blocks", string(b))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "unlinked: nothing left in the folder")

	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = CreateUnlinked(filepath.Join(file, "dit"), "dit-test-*")
	require.Error(t, err, "a folder that cannot be made")
}
