package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
)

// A cart works on its own SQLite catalog and pushes each job to the
// production's PostgreSQL catalog when it ends (--sync-to). While the
// server is unreachable the job still completes and stays on the cart;
// dit catalog sync pushes it once the server is back, and the server
// holds it once however often it is pushed.
func TestStationOfflineSyncsAfterwards(t *testing.T) {
	pg := pgtest.ForTest(t)
	shared, err := pg.NewDatabase("production")
	require.NoError(t, err)
	dir := t.TempDir()
	local := filepath.Join(dir, "cart-b.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, local, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "10MB", "--seed", "11")
	require.Equal(t, 0, r.Code, r.Stderr)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	env := append(os.Environ(), "DIT_DB="+local, "DIT_STATION=cart-b", "DIT_SYNC_TO="+shared)

	pg.Kill() // the network to the server drops
	r = e2e.RunDit(t, env, "offload", "--name", "day20", "-d", dest, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, "the job completes offline: %s", r.Stderr)
	require.Contains(t, r.Stderr, "stays in "+local+" only for now")
	require.Contains(t, r.Stderr, "cannot reach the catalog server")
	require.Contains(t, r.Stderr, "dit catalog sync --to")

	require.NoError(t, pg.Restart()) // back
	var pushed []catalog.PushResult
	r = e2e.RunDit(t, env, "catalog", "sync", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &pushed))
	require.Len(t, pushed, 1)
	require.True(t, pushed[0].Created)
	r = e2e.RunDit(t, env, "catalog", "sync", "--to", shared, "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &pushed))
	require.Len(t, pushed, 1)
	require.True(t, pushed[0].Unchanged, "pushed twice, held once")

	// Online: the next job is pushed as it ends.
	r = e2e.RunDit(t, env, "offload", "--name", "day20b", "-d", dest, filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "pushed to")
	r = e2e.RunDit(t, env, "catalog", "sync")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "2 jobs pushed")

	cat, err := catalog.OpenExisting(shared)
	require.NoError(t, err)
	defer cat.Close()
	jobs, err := cat.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 2, "each job once on the server")
	loc, err := catalog.OpenExisting(local)
	require.NoError(t, err)
	defer loc.Close()
	mine, err := loc.Jobs()
	require.NoError(t, err)
	for i, j := range jobs {
		require.Equal(t, "cart-b", j.Station)
		require.Equal(t, catalog.JobDone, j.State)
		require.Equal(t, mine[i].UUID, j.UUID)
		ks, err := cat.Cards(j.ID)
		require.NoError(t, err)
		require.Len(t, ks, 1)
		files, err := cat.Files(ks[0].ID)
		require.NoError(t, err)
		want := footageFiles(t, ks[0].Path)
		require.Len(t, files, len(want), "every file of %s once", ks[0].Label)
		for _, f := range files {
			require.Equal(t, want[f.Rel], f.Size)
			require.Len(t, f.Copies, 1)
			require.Equal(t, "verified", f.Copies[0].State)
		}
	}
	// The server answers the cross-cart questions for the pushed jobs.
	r = e2e.RunDit(t, append(os.Environ(), "DIT_DB="+shared), "find", "--json", "A001C001")
	require.Equal(t, 0, r.Code, r.Stderr)
	var found []catalog.Found
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &found))
	require.NotEmpty(t, found)
	require.Equal(t, "cart-b", found[0].Station)
}
