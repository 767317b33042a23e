package assembly

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
)

// A job to a dit array asks each blade's drive, not just the folder
// named: a worn blade is named in a warning and the job goes on; with
// DrivesRefuse the job is refused and none is created; DrivesOff asks
// nothing.
func TestDestinationDrivesChecked(t *testing.T) {
	e := newEnv(t)
	a := e.card("A001")
	var blades []string
	for _, b := range []string{"Blade1", "Blade2", "Blade3"} {
		blades = append(blades, e.folder(b))
	}
	arr, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "cart"})
	require.NoError(t, err)
	arr.Close()
	shuttle := e.folder("SHUTTLE")
	fixture, err := os.ReadFile("../devices/testdata/smart/nvme-blade-worn-media-errors.json")
	require.NoError(t, err)
	worn, err := devices.ParseSmartctl(fixture)
	require.NoError(t, err)

	var mu sync.Mutex
	var asked []string
	health := func(_ context.Context, _ []devices.Volume, p string) *devices.Health {
		mu.Lock()
		asked = append(asked, filepath.Base(p))
		mu.Unlock()
		if filepath.Base(p) == "Blade2" {
			return worn
		}
		return &devices.Health{Device: "/dev/" + filepath.Base(p), Wear: 2}
	}
	s := e.settings([]string{a}, []string{blades[0], shuttle})
	s.Hooks.DriveHealth = health
	p, err := Prepare(context.Background(), s)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"Blade1", "Blade2", "Blade3", "SHUTTLE"}, asked)
	require.Len(t, p.Warnings, 1, "%q", p.Warnings)
	require.Contains(t, p.Warnings[0], blades[1])
	require.Contains(t, p.Warnings[0], "17 media error(s)")

	s.Drives = DrivesRefuse
	_, err = Prepare(context.Background(), s)
	var de *DriveError
	require.True(t, errors.As(err, &de), "%v", err)
	require.Contains(t, err.Error(), blades[1])
	require.Equal(t, 0, e.jobs(), "a refused job is not recorded")

	asked = nil
	s.Drives = DrivesOff
	p, err = Prepare(context.Background(), s)
	require.NoError(t, err)
	require.Empty(t, asked)
	require.False(t, strings.Contains(strings.Join(p.Warnings, " "), "reports"))
}
