package devices

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) *Health {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "smart", name))
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseSmartctl(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return h
}

func TestSmartctlFixtures(t *testing.T) {
	for _, c := range []struct {
		file        string
		warn        bool
		unavailable string // a word of the reason, when there is no health
		media       int64
		wear        int
		problem     string // a word of one problem
	}{
		{file: "nvme-blade-healthy.json", wear: 3},
		{file: "nvme-blade-worn-media-errors.json", warn: true, media: 17, wear: 91, problem: "reliability degraded"},
		{file: "nvme-blade-spare-failing.json", warn: true, media: 2, wear: 100, problem: "FAILING"},
		{file: "sata-ssd-healthy.json", wear: 3},
		{file: "sata-ssd-reallocated.json", warn: true, media: 2, wear: 15, problem: "48 reallocated and 3 pending"},
		{file: "sata-ssd-attribute-failed.json", warn: true, media: 41, wear: 88, problem: "Reallocated_Sector_Ct is past its failure threshold"},
		{file: "usb-bridge-unknown.json", unavailable: "USB bridge", wear: -1},
		{file: "virtio-vda-no-smart.json", unavailable: "Unable to detect device type", wear: -1},
		{file: "zram-no-smart.json", unavailable: "does not answer", wear: -1},
	} {
		t.Run(c.file, func(t *testing.T) {
			h := fixture(t, c.file)
			if c.unavailable != "" {
				if !strings.Contains(h.Unavailable, c.unavailable) || h.Warn() {
					t.Fatalf("Unavailable %q (want %q), problems %q", h.Unavailable, c.unavailable, h.Problems)
				}
				if !strings.Contains(h.String(), "no health") {
					t.Errorf("String() = %q", h.String())
				}
				return
			}
			if h.Unavailable != "" {
				t.Fatalf("unavailable: %s", h.Unavailable)
			}
			if h.Warn() != c.warn || h.MediaErrors != c.media || h.Wear != c.wear {
				t.Errorf("warn %v media %d wear %d; want %v %d %d (problems %q)", h.Warn(), h.MediaErrors, h.Wear, c.warn, c.media, c.wear, h.Problems)
			}
			if c.problem != "" && !strings.Contains(strings.Join(h.Problems, "; "), c.problem) {
				t.Errorf("problems %q lack %q", h.Problems, c.problem)
			}
			s := h.String()
			if c.warn != strings.Contains(s, "WARNING") || !strings.Contains(s, h.Model) {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

func TestSmartctlMissingOrSilent(t *testing.T) {
	h := SMART(context.Background(), "/dev/nvme9n1", func(context.Context, string, ...string) ([]byte, error) {
		return nil, exec.ErrNotFound
	})
	if h.Unavailable == "" || h.Warn() {
		t.Fatalf("a runner that gives nothing: %+v", h)
	}
	got := ""
	SMART(context.Background(), "/dev/sdz", func(_ context.Context, name string, args ...string) ([]byte, error) {
		got = name + " " + strings.Join(args, " ")
		return os.ReadFile("testdata/smart/sata-ssd-healthy.json")
	})
	if got != "smartctl --json -a /dev/sdz" {
		t.Errorf("ran %q", got)
	}
}

// smartctl for real on the disk holding /: whatever the machine has (a
// virtio disk answers nothing), SMART says what smartctl's own output
// says, and never fails.
func TestSmartctlForReal(t *testing.T) {
	if _, err := exec.LookPath("smartctl"); err != nil {
		t.Skip("smartctl is not installed (Debian: smartmontools)")
	}
	vols, err := Discover(context.Background())
	if err != nil {
		t.Skip(err)
	}
	v := Find(vols, "/")
	if v == nil || !strings.HasPrefix(v.Device, "/dev/") {
		t.Skip("the root filesystem has no block device here")
	}
	h := SMART(context.Background(), v.Device, nil)
	if h.Device == "" || (h.Unavailable == "" && h.Wear < -1) {
		t.Fatalf("%+v", h)
	}
	checkParse(t, smartctlSays(t, h.Device), h)
	t.Logf("%s", h)
}
