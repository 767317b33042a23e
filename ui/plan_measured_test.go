package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/speedtest"
)

// The Offload view's plan uses a destination's latest dit speedtest in
// place of its kind's table rate, and says so in its notes.
func TestPlanUsesMeasuredRates(t *testing.T) {
	dir := t.TempDir()
	card, shuttle := mkdir(t, filepath.Join(dir, "A001")), mkdir(t, filepath.Join(dir, "SHUTTLE"))
	topo, err := plan.ParseTopology("set.yaml", []byte(`
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.2-gen2x2}
sources:
  - {name: A001, media: cfast2, bus: usb-a, path: `+card+`}
destinations:
  - {name: SHUTTLE, bus: usb-b, kind: ssd-usb-20g, path: `+shuttle+`}
`))
	require.NoError(t, err)
	cat, err := catalog.Open(filepath.Join(dir, "c.db"))
	require.NoError(t, err)
	defer cat.Close()
	in := planInput{cards: []cardItem{{Path: card, Label: "A001", Bytes: 64e9}}, dests: []destItem{{Path: shuttle}}, preset: topo,
		algos: []hashing.Algo{hashing.XXH64}, noCPU: true, cat: cat}
	before := computePlan(t.Context(), in)
	require.Empty(t, before.err)
	require.NoError(t, cat.AddSpeedTest(&catalog.SpeedTest{Volume: speedtest.PathVolume(shuttle), Kind: "folder", Path: shuttle,
		T: time.Now(), Link: "usb3.2-gen2x2", Size: 64e9, Block: 1 << 20, Streams: 1, Write: 0.15e9, Read: 0.9e9, Direct: true}))
	after := computePlan(t.Context(), in)
	require.Empty(t, after.err)
	require.Contains(t, strings.Join(after.notes, "\n"), "SHUTTLE: measured rates used")
	require.Equal(t, 0.15e9, after.topo.Dest(0).Write)
	require.NotEqual(t, before.topo.Dest(0).Write, after.topo.Dest(0).Write)
}
