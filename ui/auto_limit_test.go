package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A preset's limit: caps the destination of the jobs Auto-offload starts,
// as dit watch's and dit offload --limit's: the job's plan, recorded in
// the catalog, has the card held back by the destination at that rate.
func TestAutoOffloadPresetLimit(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 400_000)
	vols := mkdir(t, filepath.Join(dir, "vols"))
	raid := mkdir(t, filepath.Join(dir, "raid"))
	preset := filepath.Join(dir, "watch.yaml")
	require.NoError(t, os.WriteFile(preset, []byte(fmt.Sprintf("destinations: [%s]\nhashes: md5\nname: day01\nlimit: 2MB/s\n", raid)), 0o644))
	h := watchHarness(t, vols, nil)
	h.locked(func() { h.a.AutoOffload(preset, false) })
	mount(t, cards[0].Path, vols)
	run := h.watchedJob()
	require.Equal(t, []string{stateSafe}, h.panelStates())
	require.NoError(t, h.cat.Flush())
	plans, err := h.cat.Plans(run.job.ID())
	require.NoError(t, err)
	require.NotEmpty(t, plans, "the job is scheduled by the preset's limit")
	require.Len(t, plans[0].Cards, 1)
	require.Equal(t, "dest:raid", plans[0].Cards[0].LimitedBy)
	require.InDelta(t, 2e6, plans[0].Cards[0].Rate, 1)
}
