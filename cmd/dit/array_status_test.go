package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/devices"
)

// A blade whose drive reports media errors is named in a WARNING line at
// the top of dit array status; a healthy or silent drive is not.
func TestArrayStatusWarnsOfAFailingBladeDrive(t *testing.T) {
	read := func(name string) *devices.Health {
		b, err := os.ReadFile("../../internal/devices/testdata/smart/" + name)
		if err != nil {
			t.Fatal(err)
		}
		h, err := devices.ParseSmartctl(b)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	st := statusOut{Label: "cart", Level: "raid4", Health: "healthy", Members: []statusMember{
		{Role: 0, Kind: "data", Path: "/Volumes/B1", State: "active", Drive: read("nvme-blade-healthy.json")},
		{Role: 1, Kind: "data", Path: "/Volumes/B2", State: "active", Drive: read("nvme-blade-worn-media-errors.json")},
		{Role: 2, Kind: "parity", Path: "/Volumes/B3", State: "active", Drive: read("usb-bridge-unknown.json")},
	}}
	var b bytes.Buffer
	writeArrayStatus(&b, st, "/Volumes/B1")
	out := b.String()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[2], "WARNING: the drive of role 1 (/Volumes/B2) reports: ") || !strings.Contains(lines[2], "17 media error(s)") {
		t.Errorf("third line %q\n%s", lines[2], out)
	}
	if strings.Count(out, "WARNING") != 2 { // the top line and the drive's own line
		t.Errorf("WARNING count:\n%s", out)
	}
	for _, want := range []string{"role 0 drive: /dev/nvme0 (Samsung SSD 990 PRO 4TB S7DPNJ0W912345X): healthy (0 media errors, wear 3 %, 41 °C)",
		"role 2 drive: /dev/sdd: no health:", "USB bridge"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}
