package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A few mistakes and fatal errors, each with its code of docs/exit-codes.md.
func TestUsageAndFatalExitCodes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	r := e2e.Dit(t, db, "offload", "--bogus")
	require.Equal(t, 2, r.Code)
	r = e2e.Dit(t, db, "offload", "-d", dir, "--hash", "crc32", dir)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `unknown hash "crc32"`)
	r = e2e.Dit(t, db, "offload", "-d", dir, filepath.Join(dir, "missing-card"))
	require.Equal(t, 2, r.Code) // a path on the command line that is not there: usage
	require.Contains(t, r.Stderr, "missing-card does not exist")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.db"), bytes.Repeat([]byte("not a database "), 20), 0o644))
	r = e2e.Dit(t, db, "jobs", "--db", filepath.Join(dir, "junk.db"))
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "is not a usable dit catalog")
	r = e2e.Dit(t, db, "job", "show", "99")
	require.Equal(t, 2, r.Code) // DIT_DB naming no catalog: a path that is not there, usage
	// The refusals above created no catalog: it says so.
	require.Contains(t, r.Stderr, "no catalog at "+db)
	r = e2e.Dit(t, db, "version")
	require.Equal(t, 0, r.Code)
	require.Contains(t, r.Stdout, "dit ")
	r = e2e.Dit(t, db, "offload", "--help")
	require.Contains(t, r.Stdout, "130")
}
