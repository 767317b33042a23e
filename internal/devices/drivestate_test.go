package devices

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Each fixture's state in a word and its reason, as the front ends show
// them.
func TestDriveStateAndReason(t *testing.T) {
	for _, c := range []struct {
		file   string
		state  DriveState
		reason string
	}{
		{"nvme-blade-healthy.json", DriveOK, "0 media errors, wear 3 %"},
		{"nvme-blade-worn-media-errors.json", DriveWarning, "17 media error(s)"},
		{"sata-ssd-reallocated.json", DriveWarning, "48 reallocated and 3 pending"},
		{"usb-bridge-unknown.json", DriveUnknown, "USB bridge"},
		{"virtio-vda-no-smart.json", DriveUnknown, "does not answer SMART queries"},
	} {
		h := fixture(t, c.file)
		if h.State() != c.state || !strings.Contains(h.Reason(), c.reason) {
			t.Errorf("%s: %s %q; want %s with %q", c.file, h.State(), h.Reason(), c.state, c.reason)
		}
	}
	var none *Health
	if none.State() != DriveUnknown || none.Reason() == "" {
		t.Errorf("a nil health: %s %q", none.State(), none.Reason())
	}
}

// HealthOfAll asks each drive once, keeps the folders' order and says
// why a folder on no known drive has no health.
func TestHealthOfAll(t *testing.T) {
	dir := t.TempDir()
	var folders []string
	for _, n := range []string{"b1", "b2", "b3", "elsewhere"} {
		folders = append(folders, filepath.Join(dir, n))
		if err := os.Mkdir(folders[len(folders)-1], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vols := []Volume{{Mount: folders[0], Device: "/dev/nvme7n1"}, {Mount: folders[1], Device: "/dev/nvme7n1"}, {Mount: folders[2], Device: "/dev/sdz"}}
	var runs atomic.Int32
	run := func(_ context.Context, _ string, args ...string) ([]byte, error) {
		runs.Add(1)
		if args[len(args)-1] == "/dev/sdz" {
			return os.ReadFile("testdata/smart/usb-bridge-unknown.json")
		}
		return os.ReadFile("testdata/smart/nvme-blade-worn-media-errors.json")
	}
	hs := HealthOfAll(context.Background(), vols, folders, run)
	want := []DriveState{DriveWarning, DriveWarning, DriveUnknown, DriveUnknown}
	for i, h := range hs {
		if h.State() != want[i] {
			t.Errorf("%s: %s (%s), want %s", folders[i], h.State(), h.Reason(), want[i])
		}
	}
	if hs[0] != hs[1] {
		t.Error("two blades on one drive: one health")
	}
	if !strings.Contains(hs[3].Reason(), "no drive found under "+folders[3]) {
		t.Errorf("reason %q", hs[3].Reason())
	}
	if runs.Load() != 2 {
		t.Errorf("smartctl ran %d times for two drives", runs.Load())
	}
}

// A folder on tmpfs (/dev/shm) is on no drive, though the volume around
// it (/) is on one: no SMART query, and the health says why.
func TestHealthOfAFolderInMemory(t *testing.T) {
	if !InMemory("/dev/shm") {
		t.Skip("/dev/shm is not tmpfs here")
	}
	shm, err := os.MkdirTemp("/dev/shm", "dit-drive-")
	if err != nil {
		t.Skip("/dev/shm not writable:", err)
	}
	defer os.RemoveAll(shm)
	disk := t.TempDir()
	if InMemory(disk) {
		t.Skip("the temporary folder is in memory too")
	}
	vols := []Volume{{Mount: "/", Device: "/dev/vdz", FSType: "ext4"}}
	var asked []string
	run := func(_ context.Context, _ string, args ...string) ([]byte, error) {
		asked = append(asked, args[len(args)-1])
		return os.ReadFile("testdata/smart/nvme-blade-healthy.json")
	}
	hs := HealthOfAll(context.Background(), vols, []string{shm, disk}, run)
	if hs[0].State() != DriveUnknown || !strings.Contains(hs[0].Reason(), "no drive found under "+shm) {
		t.Errorf("%s: %s (%s), want no drive", shm, hs[0].State(), hs[0].Reason())
	}
	if hs[1].State() != DriveOK {
		t.Errorf("%s: %s (%s), want the drive of /", disk, hs[1].State(), hs[1].Reason())
	}
	if len(asked) != 1 || asked[0] != "/dev/vdz" {
		t.Errorf("smartctl asked %v, want /dev/vdz once", asked)
	}
}
