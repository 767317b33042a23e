package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Read commands given a mistyped --db say so and leave nothing behind; a
// command without its job says what it wants.
func TestReadCommandsNeedACatalog(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo", "x.db")
	for _, args := range [][]string{{"jobs"}, {"job", "show", "1"}, {"verify", "1"}, {"report", "1", "--format", "csv"}} {
		r := dit(t, filepath.Join(dir, "env.db"), append(args, "--db", typo)...)
		require.Equal(t, 1, r.code, "%v: %s", args, r.stdout+r.stderr)
		require.Contains(t, r.stderr, "no catalog at "+typo+" yet", "%v", args)
		require.Contains(t, r.stderr, "check --db", "%v", args)
		require.NoDirExists(t, filepath.Join(dir, "typo"), "%v created the folder", args)
	}

	db := filepath.Join(dir, "c.db")
	for _, args := range [][]string{{"job", "show"}, {"verify"}} {
		r := dit(t, db, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stdout+r.stderr)
		require.Equal(t, "dit: dit "+args[0]+map[bool]string{true: " show", false: ""}[len(args) > 1]+" needs a job number (see dit jobs)\n", r.stderr)
	}
	r := dit(t, db, "job", "show", "1", "2")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "takes one job number")
	require.NoFileExists(t, db)
	require.NoFileExists(t, filepath.Join(dir, "env.db"))
}

// --verify-hashes fastest|all is the one name on dit offload, dit verify
// and dit mhl verify; the old names still work, hidden and deprecated.
// dit verify says how far it is on stderr; the plain output's card lines
// have no trailing space.
func TestVerifyHashesOneName(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--style", "clips", "--seed", "3")
	require.Equal(t, 0, r.code, r.stderr)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))
	r = dit(t, db, "offload", "--name", "day01", "--hash", "xxh64,md5", "--verify-hashes", "all", "-d", d1, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "\nA001: Verified: safe to format\n")

	for _, args := range [][]string{{"--verify-hashes", "all"}, {"--verify-hashes", "fastest"}, {}} {
		r = dit(t, db, append([]string{"verify", "1"}, args...)...)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		require.Contains(t, r.stdout, "copies match the source hashes, 0 differ")
		require.Contains(t, r.stderr, "dit verify: job 1: reading back ")
	}
	r = dit(t, db, "verify", "1", "--verify-hashes-all")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stderr, "dit: note: --verify-hashes-all is deprecated: use --verify-hashes all\n")
	r = dit(t, db, "verify", "1", "--verify-hashes", "some")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `invalid --verify-hashes "some": use fastest or all`)
	r = dit(t, db, "verify", "1", "--verify-hashes", "fastest", "--verify-hashes-all")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "contradicts --verify-hashes fastest")
	r = dit(t, db, "verify", "--help")
	require.Contains(t, r.stdout, "--verify-hashes string")
	require.NotContains(t, r.stdout, "--verify-hashes-all")

	folder := filepath.Join(d1, "day01", "A001")
	for _, args := range [][]string{{"--verify-hashes", "all"}, {"--all-hashes"}, {}} {
		r = dit(t, db, append([]string{"mhl", "verify", folder}, args...)...)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		require.Contains(t, r.stdout, "nothing missing, changed or new")
	}
	require.Contains(t, r.stdout, "files match")
	r = dit(t, db, "mhl", "verify", folder, "--all-hashes")
	require.Contains(t, r.stderr, "dit: note: --all-hashes is deprecated: use --verify-hashes all\n")
	r = dit(t, db, "mhl", "verify", "--help")
	require.Contains(t, r.stdout, "--verify-hashes string")
	require.NotContains(t, r.stdout, "--all-hashes")
}
