package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// Read commands given a mistyped --db say so, exit 2 (a path on the
// command line that is not there, as a missing card) and leave nothing
// behind, whether the folder or only the file is missing; a command
// without its job says what it wants.
func TestReadCommandsNeedACatalog(t *testing.T) {
	dir := t.TempDir()
	reads := [][]string{{"jobs"}, {"job", "show", "1"}, {"job", "show", "1", "--clips"}, {"verify", "1"},
		{"report", "1", "--format", "csv"}, {"find", "A001"}, {"day"}, {"serve", "--listen", "127.0.0.1:0"},
		{"catalog", "sync", "--to", "postgres://dit@127.0.0.1:1/dit"}}
	for _, typo := range []string{filepath.Join(dir, "typo", "x.db"), filepath.Join(dir, "x.db")} {
		for _, args := range reads {
			r := e2e.Dit(t, filepath.Join(dir, "env.db"), append(args, "--db", typo)...)
			require.Equal(t, e2e.ExitUsage, r.Code, "%v: %s", args, r.Stdout+r.Stderr)
			require.Contains(t, r.Stderr, "no catalog at "+typo+" yet", "%v", args)
			require.Contains(t, r.Stderr, "check --db", "%v", args)
			require.NoDirExists(t, filepath.Join(dir, "typo"), "%v created the folder", args)
			require.NoFileExists(t, typo, "%v created the catalog", args)
		}
	}

	db := filepath.Join(dir, "c.db")
	for _, args := range [][]string{{"job", "show"}, {"verify"}} {
		r := e2e.Dit(t, db, args...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stdout+r.Stderr)
		require.Equal(t, "dit: dit "+args[0]+map[bool]string{true: " show", false: ""}[len(args) > 1]+" needs a job number (see dit jobs)\n", r.Stderr)
	}
	r := e2e.Dit(t, db, "job", "show", "1", "2")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "takes one job number")
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
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--style", "clips", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "day01", "--hash", "xxh64,md5", "--verify-hashes", "all", "-d", d1, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "\nA001: Verified: safe to format\n")

	for _, args := range [][]string{{"--verify-hashes", "all"}, {"--verify-hashes", "fastest"}, {}} {
		r = e2e.Dit(t, db, append([]string{"verify", "1"}, args...)...)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		require.Contains(t, r.Stdout, "copies match the source hashes, 0 differ")
		require.Contains(t, r.Stderr, "dit verify: job 1: reading back ")
	}
	r = e2e.Dit(t, db, "verify", "1", "--verify-hashes-all")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "dit: note: --verify-hashes-all is deprecated: use --verify-hashes all\n")
	r = e2e.Dit(t, db, "verify", "1", "--verify-hashes", "some")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `invalid --verify-hashes "some": use fastest or all`)
	r = e2e.Dit(t, db, "verify", "1", "--verify-hashes", "fastest", "--verify-hashes-all")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "contradicts --verify-hashes fastest")
	r = e2e.Dit(t, db, "verify", "--help")
	require.Contains(t, r.Stdout, "--verify-hashes string")
	require.NotContains(t, r.Stdout, "--verify-hashes-all")

	folder := filepath.Join(d1, "day01", "A001")
	for _, args := range [][]string{{"--verify-hashes", "all"}, {"--all-hashes"}, {}} {
		r = e2e.Dit(t, db, append([]string{"mhl", "verify", folder}, args...)...)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		require.Contains(t, r.Stdout, "nothing missing, changed or new")
	}
	require.Contains(t, r.Stdout, "files match")
	r = e2e.Dit(t, db, "mhl", "verify", folder, "--all-hashes")
	require.Contains(t, r.Stderr, "dit: note: --all-hashes is deprecated: use --verify-hashes all\n")
	r = e2e.Dit(t, db, "mhl", "verify", "--help")
	require.Contains(t, r.Stdout, "--verify-hashes string")
	require.NotContains(t, r.Stdout, "--all-hashes")
}
