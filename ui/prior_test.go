package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/verdict"
)

// dit-gui assembles its jobs as dit offload does (internal/assembly): a
// card verified before on one destination of the watched settings is
// copied to the others only; the destination it already has is left out
// of the job and gets nothing.
func TestAutoOffloadLeavesOutADestinationTheCardHas(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	h := watchHarness(t, vols, nil)

	// The card was offloaded and verified on d1 before.
	ctx := context.Background()
	p, err := assembly.Prepare(ctx, assembly.Settings{Name: "earlier", Cards: []string{cards[0].Path}, Dests: []string{d1}, Catalog: h.cat})
	require.NoError(t, err)
	j, err := p.Open(ctx)
	require.NoError(t, err)
	sum, err := j.Run(ctx)
	require.NoError(t, err)
	j.Finish(ctx, sum, nil)
	require.Equal(t, verdict.Done, sum.Status)

	addDestNow(h, d1, d2)
	h.locked(func() { tapCheck(h.a.auto.on) })
	mount(t, cards[0].Path, vols)
	run := h.watchedJob()
	require.Equal(t, []string{stateSafe}, h.panelStates())
	require.Equal(t, []string{d2}, run.dests, "d1 has a verified copy of the card: left out")
	v := h.view()
	require.NoError(t, h.cat.Flush())
	ds, err := h.cat.Dests(v.JobID)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, d2, ds[0].Path)
	ents, err := os.ReadDir(d1)
	require.NoError(t, err)
	require.Len(t, ents, 1, "d1 holds the earlier job's folder only")
	require.Equal(t, "earlier", ents[0].Name())
}
