package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two cards to a RAID 4 array; a blade moved away; extract is
// byte-identical; a flipped byte in a chunk is found by scrub (exit 4,
// file named), repaired, and the next scrub is clean.
func TestArrayEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--size", "12MB", "--style", "mixed", "--seed", "3")
	require.Equal(t, 0, r.code, r.stderr)
	blades := newBladeArray(t, db, dir, 4, "--level", "4", "--stripe-unit", "64KiB", "--label", "cart")
	plain := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(plain, 0o755))
	r = dit(t, db, "offload", "--name", "day01", "-d", blades[0], "-d", plain, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "Verified: safe to format")

	r = dit(t, db, "array", "status", blades[3], "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"health": "healthy"`)

	// A blade moves away: the array still extracts everything.
	require.NoError(t, os.Rename(blades[1], blades[1]+"-away"))
	out := filepath.Join(dir, "restore")
	r = dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	for _, c := range []string{"A001", "A002"} {
		require.Equal(t, footage(tree(t, filepath.Join(cards, c))), withoutHistory(tree(t, filepath.Join(out, "day01", c))), "extract of %s", c)
	}
	r = dit(t, db, "array", "status", blades[0])
	require.Contains(t, r.stdout, "DEGRADED")
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
	r = dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 4, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "data unit corrupt: day01/")
	require.Contains(t, r.stdout, blades[0])
	r = dit(t, db, "array", "scrub", "--repair", blades[2])
	require.Equal(t, 4, r.code)
	require.Contains(t, r.stdout, "REPAIRED")
	r = dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "clean")
	// dit verify reads the array copies back again.
	r = dit(t, db, "verify", "1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
