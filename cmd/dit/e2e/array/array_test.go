package array

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// Two cards to a RAID 4 array; a blade moved away; extract is
// byte-identical; a flipped byte in a chunk is found by scrub (exit 4,
// file named), repaired, and the next scrub is clean.
func TestArrayEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--size", "12MB", "--style", "mixed", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades := e2e.NewBladeArray(t, db, dir, 4, "--level", "4", "--stripe-unit", "64KiB", "--label", "cart")
	plain := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(plain, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], "-d", plain, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "Verified: safe to format")

	r = e2e.Dit(t, db, "array", "status", blades[3], "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"health": "healthy"`)

	// A blade moves away: the array still extracts everything.
	require.NoError(t, os.Rename(blades[1], blades[1]+"-away"))
	out := filepath.Join(dir, "restore")
	r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	for _, c := range []string{"A001", "A002"} {
		require.Equal(t, e2e.Footage(e2e.Tree(t, filepath.Join(cards, c))), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(out, "day01", c))), "extract of %s", c)
	}
	r = e2e.Dit(t, db, "array", "status", blades[0])
	require.Contains(t, r.Stdout, "DEGRADED")
	require.NoError(t, os.Rename(blades[1]+"-away", blades[1]))

	// Flip one byte in a data chunk.
	var chunk string
	filepath.Walk(filepath.Join(blades[0], "dit-array", "chunks"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 100_000 && chunk == "" && strings.Contains(p, ".d") {
			chunk = p
		}
		return nil
	})
	require.NotEmpty(t, chunk)
	b, _ := os.ReadFile(chunk)
	b[len(b)/2] ^= 0x08
	require.NoError(t, os.WriteFile(chunk, b, 0o644))
	r = e2e.Dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 4, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "data unit corrupt: day01/")
	require.Contains(t, r.Stdout, blades[0])
	r = e2e.Dit(t, db, "array", "scrub", "--repair", blades[2])
	require.Equal(t, 0, r.Code, "repaired, healthy: %s", r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "REPAIRED")
	r = e2e.Dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "clean")
	// dit verify reads the array copies back again.
	r = e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
}
