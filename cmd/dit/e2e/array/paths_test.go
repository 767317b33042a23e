package array

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/raid/mountplace"
)

// The locations dit prints for copies on a dit array are ones a DIT can
// act on: the summary names a card's folder where it opens once the
// array is mounted (its mount place), with the command that mounts it,
// never array:BLADE//PATH or a doubled slash; that form
// (its JSON's array_path), which dit mhl verify and dit array ls take,
// reads the array unmounted.
func TestArrayLocationsArePrintedUsably(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	t.Setenv("DIT_ARRAY_MOUNTS", filepath.Join(dir, "mounts")) // e2e.Dit passes the test's environment on
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
	place := filepath.Join(dir, "mounts", mountplace.Name(arrayUUID(t, db), ""), "demo", "A001")
	require.Contains(t, r.Stdout, "-> "+place+": ", "the summary names where the card's folder in the array opens")
	require.Contains(t, r.Stdout, "(in a dit array, not mounted: it opens once it is: dit array mount "+blades[0]+")")
	require.NotContains(t, r.Stdout, "array:")
	require.NotContains(t, r.Stdout, "//")
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
	require.Contains(t, r.Stdout, "-> "+place+": ")
	r = e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Contains(t, r.Stdout, `"array_path": "`+loc+`"`, "the location dit's commands take, in the JSON")

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

// arrayUUID is the UUID of the job's array, from dit job show --json.
func arrayUUID(t *testing.T, db string) string {
	t.Helper()
	r := e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var s struct {
		Cards []struct {
			Destinations []struct {
				UUID string `json:"array_uuid"`
			} `json:"destinations"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s))
	require.NotEmpty(t, s.Cards)
	require.NotEmpty(t, s.Cards[0].Destinations)
	require.NotEmpty(t, s.Cards[0].Destinations[0].UUID)
	return s.Cards[0].Destinations[0].UUID
}
