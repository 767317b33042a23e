package devices

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/plan"
)

func TestTopologyFromDiscoveryPlansTheHub(t *testing.T) {
	vols, err := Linux(LinuxOptions{Root: os.DirFS("testdata/linux")})
	require.NoError(t, err)
	top, notes, err := Topology(vols, []string{"/media/dit/C001", "/media/dit/C002", "/media/dit/A023/CLIPS", "/media/dit/3A1F-22B0"},
		[]string{"/mnt/raid/day01", "/media/dit/SHUTTLE T9/day01"})
	require.NoError(t, err)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], `card /media/dit/3A1F-22B0: the medium in "Cruzer Blade" (/media/dit/3A1F-22B0) cannot be told`)
	require.Equal(t, "cfast2", top.Sources[0].Media)
	require.Equal(t, "usb:2-3.1", top.Sources[0].Bus)
	require.Equal(t, "usb:2-3", top.BusByName("usb:2-3.1").Parent)
	require.Equal(t, "CLIPS", top.Sources[2].Name)
	require.Equal(t, "axs", top.Sources[2].Media)
	require.Equal(t, "nvme-tb", top.Destinations[0].Kind)
	require.Equal(t, "tb:0-1", top.Destinations[0].Bus)
	require.Equal(t, "pci:0000:05:00.0", top.BusByName("tb:0-1").Parent)
	require.Equal(t, "ssd-usb-20g", top.Destinations[1].Kind)
	require.Equal(t, "day01", top.Destinations[0].Name)
	require.Equal(t, "SHUTTLE T9/day01", top.Destinations[1].Name, "names stay unique")

	r, err := plan.Plan(top, plan.Options{})
	require.NoError(t, err)
	// Two CFast readers on one 10 Gbit/s hub run at full speed; the USB 2.0
	// stick holds its own card back.
	require.Equal(t, plan.LimitMedia, r.Card("C001").LimitedBy)
	require.Equal(t, plan.LimitMedia, r.Card("C002").LimitedBy)
	require.Equal(t, "bus:usb:1-5", r.Card("3A1F-22B0").LimitedBy)

	var noRoot []Volume
	for _, v := range vols {
		if v.Mount != "/" {
			noRoot = append(noRoot, v)
		}
	}
	_, notes, err = Topology(noRoot, []string{"/nowhere/A001"}, []string{"/media/dit/B001/x"})
	require.NoError(t, err)
	require.Contains(t, notes[0], "not on a volume dit can see")
	require.Contains(t, notes[1], "write rate of")
}

// A cloud destination (rclone:REMOTE:PATH) is on no bus of the machine
// (not the volume of the working folder): kind cloud, the uplink's.
func TestTopologyCloudDestinationIsOnNoBus(t *testing.T) {
	vols, err := Linux(LinuxOptions{Root: os.DirFS("testdata/linux")})
	require.NoError(t, err)
	top, _, err := Topology(vols, []string{"/media/dit/C001"}, []string{"/mnt/raid/day01", "rclone:s3backup:rushes/show"})
	require.NoError(t, err)
	require.Len(t, top.Destinations, 2)
	d := top.Destinations[1]
	require.Equal(t, plan.CloudKind, d.Kind)
	require.Empty(t, d.Bus)
	require.Equal(t, "rclone:s3backup:rushes/show", d.Path)
	require.True(t, plan.IsCloud(d))
}
