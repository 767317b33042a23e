package array

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// listing is every path below root with its kind, size and mtime: what
// a command that "writes nothing" must leave as it was.
func listing(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := d.Info()
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		out[rel] = fi.Mode().String() + " " + e2e.Itoa(fi.Size()) + " " + fi.ModTime().String()
		return nil
	}))
	return out
}

// Issue: dit array create --level 0 D1 D1 exited 1. Every bad value of a
// dit array subcommand exits 2 (usage), names the flag or value in its
// message, and writes nothing: no blade folder touched, no catalog, no
// extract folder.
func TestArrayBadValuesExitUsageAndWriteNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	for _, d := range []string{"D1", "D2", "D3", "D1/sub", "arr"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.Symlink(filepath.Join(dir, "D2"), filepath.Join(dir, "L2")))
	// An array to give the other subcommands bad values about.
	blades := e2e.NewBladeArray(t, db, filepath.Join(dir, "arr"), 3, "--level", "4", "--stripe-unit", "64KiB")
	file := e2e.WriteFile(t, filepath.Join(dir, "a-file"), "not a folder")
	p := func(s string) string { return filepath.Join(dir, s) }

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"create", "--level", "0", p("D1"), p("D1")}, p("D1") + " is given twice"},
		{[]string{"create", "--level", "0", p("D1"), p("D1") + "/"}, "is given twice"},
		{[]string{"create", "--level", "0", p("D2"), p("L2")}, p("L2") + " is given twice"},
		{[]string{"create", "--level", "0", p("D1"), p("D1/sub")}, "one is inside the other"},
		{[]string{"create", "--level", "0", p("D1"), p("D9")}, p("D9") + " does not exist"},
		{[]string{"create", "--level", "0", p("D1"), file}, file + " is not a folder"},
		{[]string{"create", "--level", "3", p("D1"), p("D2")}, "--level 3"},
		{[]string{"create", "--level", "4", p("D1"), p("D2")}, "RAID 4 needs at least 3 blades"},
		{[]string{"create", "--stripe-unit", "3MiB", p("D1"), p("D2"), p("D3")}, "--stripe-unit 3MiB"},
		{[]string{"create", "--stripe-unit", "lots", p("D1"), p("D2"), p("D3")}, "--stripe-unit lots"},
		{[]string{"create", "--level", "0", p("D1"), blades[0]}, blades[0] + " already belongs to an array"},
		{[]string{"status", p("D1")}, p("D1") + " is not a blade"},
		{[]string{"status", p("D9")}, p("D9") + " is not a blade"},
		{[]string{"ls", blades[0], "--blade", p("D1")}, p("D1") + " is not a blade"},
		{[]string{"scrub", "--repair", p("D1")}, p("D1") + " is not a blade"},
		{[]string{"extract", blades[0], "--to", file}, "--to " + file + " is not a folder"},
		{[]string{"extract", blades[0], "day09", "--to", p("out")}, "nothing on the array matches day09"},
		{[]string{"replace", blades[0], "--blade", p("D3")}, "--role -1"},
		{[]string{"replace", blades[0], "--role", "7", "--blade", p("D3")}, "role 7 does not exist"},
		{[]string{"replace", blades[0], "--role", "1", "--blade", p("D3")}, "role 1 is healthy"},
		{[]string{"replace", blades[0], "--role", "1", "--blade", blades[2]}, blades[2] + " already holds a dit array member"},
		{[]string{"replace", blades[0], "--role", "1", "--blade", p("D9")}, p("D9")},
	} {
		before := listing(t, dir)
		r := e2e.Dit(t, db, append([]string{"array"}, c.args...)...)
		label := strings.Join(c.args, " ")
		require.Equal(t, e2e.ExitUsage, r.Code, "%s: %s", label, r.Stdout+r.Stderr)
		require.Contains(t, r.Stderr, c.says, label)
		require.Empty(t, r.Stdout, label)
		require.Equal(t, before, listing(t, dir), "%s: nothing written", label)
	}
}
