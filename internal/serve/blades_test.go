package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
)

// A running job's destination is a dit array: the status (JSON and the
// page's data) carries each blade's drive health as the smartctl runner
// (the committed fixtures) gives it: ok, warning with the problems,
// unknown with why; a missing blade's is unknown. Drives are asked again
// only after DriveEvery.
func TestArrayBladesDriveHealth(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range []string{"b1", "b2", "b3", "b4"} {
		d := filepath.Join(root, n)
		require.NoError(t, os.Mkdir(d, 0o755))
		dirs = append(dirs, d)
	}
	a, err := raid.Create(dirs, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10, Label: "set"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	require.NoError(t, os.Rename(dirs[3], dirs[3]+"-pulled")) // the parity blade is gone

	cat, err := catalog.Open(filepath.Join(root, "c.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	host, _ := os.Hostname()
	job := &catalog.Job{Name: "day04", State: catalog.JobRunning, Host: host, PID: os.Getpid(), Hashes: "xxh64", VerifyMode: "dest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, cat.CreateJob(job))
	require.NoError(t, cat.AddDest(&catalog.Dest{JobID: job.ID, Path: dirs[0]}))

	fixtures := []string{"nvme-blade-healthy.json", "nvme-blade-worn-media-errors.json", "usb-bridge-unknown.json"}
	var runs atomic.Int32
	s := New(cat, Options{
		Discover: func(context.Context) ([]devices.Volume, error) {
			var vols []devices.Volume
			for i, d := range dirs {
				vols = append(vols, devices.Volume{Mount: d, Device: fmt.Sprintf("/dev/fake%d", i)})
			}
			return vols, nil
		},
		SMART: func(_ context.Context, _ string, args ...string) ([]byte, error) {
			runs.Add(1)
			var i int
			fmt.Sscanf(args[len(args)-1], "/dev/fake%d", &i)
			return os.ReadFile("../devices/testdata/smart/" + fixtures[i])
		},
		DriveEvery: time.Hour,
	})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/status")
	require.NoError(t, err)
	var st Status
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	require.Len(t, st.Arrays, 1)
	got := st.Arrays[0]
	require.Equal(t, "degraded", got.Health)
	require.Len(t, got.Blades, 4)
	want := []struct {
		kind, state string
		drive       devices.DriveState
		reason      string
	}{
		{"data", "active", devices.DriveOK, "0 media errors, wear 3 %, 41 °C"},
		{"data", "active", devices.DriveWarning, "17 media error(s)"},
		{"data", "active", devices.DriveUnknown, "USB bridge"},
		{"parity", "missing", devices.DriveUnknown, "the blade is not here"},
	}
	for i, w := range want {
		b := got.Blades[i]
		require.Equal(t, i, b.Role)
		require.Equal(t, w.kind, b.Kind, "blade %d", i)
		require.Equal(t, w.state, b.State, "blade %d", i)
		require.Equal(t, w.drive, b.Drive, "blade %d", i)
		require.Contains(t, b.DriveReason, w.reason, "blade %d", i)
	}
	require.Equal(t, dirs[0], got.Blades[0].Path)
	require.Equal(t, "/dev/nvme0", got.Blades[0].Device)
	require.Equal(t, int32(3), runs.Load())

	// Read again (the array's cache gone): the drives are not asked again
	// before DriveEvery.
	s.arrays.Clear()
	again, ok := s.array(dirs[0])
	require.True(t, ok)
	require.Equal(t, got.Blades, again.Blades)
	require.Equal(t, int32(3), runs.Load())

	// Prometheus: each blade's drive, 1 when ok.
	resp, err = http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	metrics, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(metrics), fmt.Sprintf(`dit_blade_drive_ok{path=%q,role="0",blade=%q,drive="ok"} 1`, dirs[0], dirs[0]))
	require.Contains(t, string(metrics), fmt.Sprintf(`dit_blade_drive_ok{path=%q,role="1",blade=%q,drive="warning"} 0`, dirs[0], dirs[1]))
	require.Contains(t, string(metrics), `role="3",blade=`)

	// The page renders the blades from the status it is given.
	resp, err = http.Get(srv.URL + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(page), "function bladesHTML")
	require.Contains(t, string(page), `"drive":"warning"`)
	if out := os.Getenv("DIT_SERVE_PAGE"); out != "" { // a look at it: chromium --screenshot
		require.NoError(t, os.WriteFile(out, page, 0o644))
	}
}
