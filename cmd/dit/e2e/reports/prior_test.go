package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// "Already offloaded" is judged per destination: a card offloaded to d1 is
// copied to d2 when d2 is asked for, d1 is not written again, and only a
// card verified on every destination given is skipped.
func TestAlreadyOffloadedPerDestination(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "3MB", "--seed", "4")
	require.Equal(t, 0, r.Code, r.Stderr)
	card := filepath.Join(cards, "A001")
	var d []string
	for _, n := range []string{"d1", "d2", "d3"} {
		p := filepath.Join(dir, n)
		require.NoError(t, os.Mkdir(p, 0o755))
		d = append(d, p)
	}
	r = e2e.Dit(t, db, "offload", "--name", "j1", "-d", d[0], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	// Another destination only: copied there, exit 0, verified.
	r = e2e.Dit(t, db, "offload", "--name", "j2", "-d", d[1], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "Nothing to copy")
	require.Contains(t, r.Stdout, "Verified: safe to format")
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Footage(e2e.Tree(t, filepath.Join(d[1], "j2", "A001")))))

	// d1 and d3: d1 has it, so the card is copied to d3 only, and says so.
	r = e2e.Dit(t, db, "offload", "--name", "j3", "-d", d[0], "-d", d[2], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "verified on "+d[0]+"; not yet on "+d[2])
	require.Contains(t, r.Stdout, "copying it to "+d[2]+" only")
	require.NoDirExists(t, filepath.Join(d[0], "j3"), "d1 is not written again")
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Footage(e2e.Tree(t, filepath.Join(d[2], "j3", "A001")))))

	// Every destination has it now: skipped, nothing to copy.
	r = e2e.Dit(t, db, "offload", "--name", "j4", "-d", d[0], "-d", d[1], "-d", d[2], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "Nothing to copy")

	// A copy removed since no longer counts: d2's copy is gone, so the card
	// goes to d2 again.
	require.NoError(t, os.RemoveAll(filepath.Join(d[1], "j2")))
	r = e2e.Dit(t, db, "offload", "--name", "j5", "-d", d[0], "-d", d[1], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "no longer there whole")
	require.Contains(t, r.Stdout, "copying it to "+d[1]+" only")
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Footage(e2e.Tree(t, filepath.Join(d[1], "j5", "A001")))))

	r = e2e.Dit(t, db, "jobs", "--json")
	var jobs []struct {
		Name  string `json:"name"`
		Cards []struct {
			Safe bool `json:"safe_to_format"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs))
	require.Len(t, jobs, 4, "j4 copied nothing and recorded no job")

	// A copy whose hash list is gone is not whole: the card is not
	// "already offloaded" there, and the new copy has its history.
	require.NoError(t, os.RemoveAll(filepath.Join(d[0], "j1", "A001", "ascmhl")))
	r = e2e.Dit(t, db, "offload", "--name", "j6", "-d", d[0], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "Nothing to copy")
	require.Contains(t, r.Stdout, "Verified: safe to format")
	r = e2e.Dit(t, db, "mhl", "verify", filepath.Join(d[0], "j6", "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
}
