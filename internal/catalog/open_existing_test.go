package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A read command given a mistyped --db must leave nothing behind.
func TestOpenExistingNeverCreates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "typo", "x.db")
	_, err := OpenExisting(p)
	require.ErrorIs(t, err, ErrNoCatalog)
	require.Contains(t, err.Error(), p)
	require.Contains(t, err.Error(), "--db")
	_, err = os.Stat(filepath.Join(dir, "typo"))
	require.ErrorIs(t, err, os.ErrNotExist)

	_, err = OpenExisting(dir)
	require.ErrorContains(t, err, "is a folder")

	file := filepath.Join(dir, "c.db")
	c, err := Open(file)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	c, err = OpenExisting(file)
	require.NoError(t, err)
	require.Equal(t, file, c.Path())
	require.NoError(t, c.Close())
}
