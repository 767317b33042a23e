package mhl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A second hop: a copy that carries dit's ASC MHL history is offloaded
// again; the seal extends the copied chain, and dit verify of the second
// job does not take that for damage.
func TestSecondHopVerify(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "5MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	shuttle, vault := filepath.Join(dir, "shuttle"), filepath.Join(dir, "vault")
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	require.NoError(t, os.Mkdir(vault, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "hop1", "-d", shuttle, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	hop1 := filepath.Join(shuttle, "hop1", "A001")
	_, err := os.Stat(filepath.Join(hop1, "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err)
	r = e2e.Dit(t, db, "offload", "--name", "hop2", "-d", vault, hop1)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "verify", "2")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "ASC MHL chain extended")
	r = e2e.Dit(t, db, "mhl", "verify", filepath.Join(vault, "hop2", "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
}
