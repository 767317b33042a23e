package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
)

// While the Offload form is shown, a blade destination's drive health
// (SMART, through the smartctl runner) is asked again every FreshEvery
// with no click: a drive that starts reallocating sectors after it was
// added reads WARNING before Start, not the "ok" it read then.
func TestOffloadBladeHealthRefreshedWhileTheFormIsOpen(t *testing.T) {
	dir := t.TempDir()
	var blades []string
	for _, b := range []string{"b1", "b2"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID0, Label: "fresh-raid"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	var second atomic.Value // the fixture blade 1's drive answers with now
	second.Store("nvme-blade-healthy.json")
	var asked atomic.Int64
	h := newHarness(t, func(c *Config) {
		c.FreshEvery = 20 * time.Millisecond
		c.Discover = func(context.Context) ([]devices.Volume, error) {
			return []devices.Volume{{Mount: blades[0], Device: "/dev/fake0"}, {Mount: blades[1], Device: "/dev/fake1"}}, nil
		}
		c.SMART = func(_ context.Context, _ string, args ...string) ([]byte, error) {
			fix := "nvme-blade-healthy.json"
			if strings.HasSuffix(args[len(args)-1], "/dev/fake1") {
				fix = second.Load().(string)
				asked.Add(1)
			}
			return os.ReadFile(smartDir + fix)
		}
	})
	h.locked(func() {
		h.a.selectTab(h.a.offload.content)
		h.a.offload.addDest(blades[0])
	})
	h.eventually("the blades' drives read", func() bool {
		return strings.Contains(texts(h.a.offload.destBox), blades[1]+"; drive ok")
	})
	second.Store("sata-ssd-reallocated.json") // the drive degrades
	before := asked.Load()
	var shown string
	h.eventually("the drive asked again with no click, and its warning shown", func() bool {
		shown = texts(h.a.offload.destBox)
		return asked.Load() > before && strings.Contains(shown, blades[1]+"; drive WARNING: 2 media error(s); 48 reallocated")
	})
	require.Contains(t, shown, blades[0]+"; drive ok", "the other blade as it was")
	require.NotContains(t, shown, blades[1]+"; drive ok")
	require.NotContains(t, shown, "looking...", "a periodic read hid the known health")
}
