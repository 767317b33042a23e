package array

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The locations dit prints for copies on a dit array are ones a DIT can
// act on: array:BLADE//PATH, which dit mhl verify and dit array ls take.
func TestArrayLocationsArePrintedUsably(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--seed", "6")
	require.Equal(t, 0, r.Code, r.Stderr)
	var blades []string
	for i := 1; i <= 3; i++ {
		b := filepath.Join(dir, "blade"+string(rune('0'+i)))
		require.NoError(t, os.Mkdir(b, 0o755))
		blades = append(blades, b)
	}
	r = e2e.Dit(t, db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB"}, blades...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	r = e2e.Dit(t, db, "offload", "--name", "demo", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	loc := "array:" + blades[0] + "//demo/A001"
	require.Contains(t, r.Stdout, "-> "+loc+":", "the summary names the card's folder in the array")
	require.NotContains(t, r.Stdout, "-> "+filepath.Join(blades[0], "demo", "A001")+":")
	// The reports list names where the reports open (raid/mountplace),
	// and how to mount the array there.
	require.Contains(t, r.Stdout, "/demo/reports/dit-report_job1_demo.pdf\n", "the reports list")
	require.NotContains(t, r.Stdout, "//demo/reports/", "the reports list")
	require.Contains(t, r.Stdout, "dit array mount "+blades[0]+")", "the reports list")
	for _, l := range strings.Split(r.Stdout, "\n") {
		if strings.Contains(l, blades[0]+"/demo") {
			t.Errorf("a path that does not exist on disk is printed: %q", l)
		}
	}
	r = e2e.Dit(t, db, "job", "show", "1")
	require.Contains(t, r.Stdout, loc)

	for _, p := range []string{loc, filepath.Join(blades[0], "demo", "A001")} {
		r = e2e.Dit(t, db, "mhl", "verify", p)
		require.Equal(t, 0, r.Code, "dit mhl verify %s:\n%s", p, r.Stdout+r.Stderr)
		require.Contains(t, r.Stdout, "nothing missing, changed or new")
	}
	r = e2e.Dit(t, db, "array", "ls", loc)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "demo/A001/ascmhl/ascmhl_chain.xml", "dit array ls takes the printed location")
	require.NotContains(t, r.Stdout, "demo/reports")
	out := filepath.Join(dir, "restore")
	r = e2e.Dit(t, db, "array", "extract", loc, "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.FileExists(t, filepath.Join(out, "demo", "A001", "ascmhl", "ascmhl_chain.xml"))
	r = e2e.Dit(t, db, "mhl", "verify", "array:"+blades[0]+"//demo/NOPE")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "not a folder in the dit array")
}
