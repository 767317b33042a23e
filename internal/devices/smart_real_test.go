package devices

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// smartctl for real on every device `smartctl --scan` lists: what dit
// makes of `smartctl --json -a DEVICE` (SMART, as dit runs it) is what
// that output says, read here key by key. A machine whose scan lists no
// device (a VM's virtio disk has no SMART) skips, saying what smartctl
// answers for the disk holding /.
func TestSmartctlScannedDevices(t *testing.T) {
	if _, err := exec.LookPath("smartctl"); err != nil {
		t.Skip("smartctl is not installed (Debian: smartmontools)")
	}
	out, _ := exec.Command("smartctl", "--scan", "--json").Output() // its exit status is a bit mask
	var scan struct {
		Devices []struct {
			Name, Type, Protocol string
		} `json:"devices"`
	}
	if err := json.Unmarshal(out, &scan); err != nil {
		t.Fatalf("smartctl --scan --json: %v\n%s", err, out)
	}
	if len(scan.Devices) == 0 {
		t.Skipf("smartctl --scan lists no device on this machine; %s", rootDiskAnswer())
	}
	for _, d := range scan.Devices {
		t.Run(d.Name, func(t *testing.T) {
			h := SMART(context.Background(), d.Name, nil)
			checkParse(t, smartctlSays(t, d.Name), h)
			t.Logf("%s (%s, %s): %s", d.Name, d.Type, d.Protocol, h)
		})
	}
}

// rootDiskAnswer is what smartctl answers, through SMART, for the disk
// holding / (the reason a scan lists nothing, on a VM).
func rootDiskAnswer() string {
	vols, err := Discover(context.Background())
	if err != nil {
		return fmt.Sprintf("the disks are not known here: %v", err)
	}
	v := Find(vols, "/")
	if v == nil || !strings.HasPrefix(v.Device, "/dev/") {
		return "the root filesystem has no block device here"
	}
	return fmt.Sprintf("the disk holding / says: %s", SMART(context.Background(), v.Device, nil))
}

// smartctlSays runs smartctl --json -a on dev and decodes its output.
func smartctlSays(t *testing.T, dev string) map[string]any {
	t.Helper()
	out, _ := exec.Command("smartctl", "--json", "-a", dev).Output() // its exit status is a bit mask
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("smartctl --json -a %s: %v\n%s", dev, err, out)
	}
	return v
}

// dig is the value at a path of keys in smartctl's JSON.
func dig(v any, path ...string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func digInt(v any, path ...string) int64 {
	x, _ := dig(v, path...)
	f, _ := x.(float64)
	return int64(f)
}

func digString(v any, path ...string) string {
	x, _ := dig(v, path...)
	s, _ := x.(string)
	return s
}

// checkParse compares h with smartctl's own output raw: a device that
// cannot be opened or answers no SMART has no health, and the reason
// carries smartctl's messages; one that answers has its identity, its
// verdict and its counters as smartctl gives them.
func checkParse(t *testing.T, raw map[string]any, h *Health) {
	t.Helper()
	_, nvme := dig(raw, "nvme_smart_health_information_log")
	_, ata := dig(raw, "ata_smart_attributes")
	_, status := dig(raw, "smart_status")
	if digInt(raw, "smartctl", "exit_status")&(smartCmdLine|smartOpen) != 0 || (!nvme && !ata && !status) {
		if h.Unavailable == "" || h.Warn() {
			t.Fatalf("smartctl answers no SMART, yet: %+v", h)
		}
		msgs, _ := dig(raw, "smartctl", "messages")
		list, _ := msgs.([]any)
		for i := range list {
			m := strings.ReplaceAll(strings.TrimSpace(digString(list[i], "string")), "\n", " ")
			if !strings.Contains(h.Unavailable, m) {
				t.Errorf("the reason %q lacks smartctl's message %q", h.Unavailable, m)
			}
		}
		return
	}
	if h.Unavailable != "" {
		t.Fatalf("smartctl answers, yet: %s", h.Unavailable)
	}
	for _, c := range [][2]string{{h.Model, digString(raw, "model_name")}, {h.Serial, digString(raw, "serial_number")},
		{h.Firmware, digString(raw, "firmware_version")}, {h.Protocol, digString(raw, "device", "protocol")}} {
		if c[0] != c[1] {
			t.Errorf("dit reads %q, smartctl says %q", c[0], c[1])
		}
	}
	if p, ok := dig(raw, "smart_status", "passed"); ok && (h.Passed == nil || *h.Passed != p.(bool)) {
		t.Errorf("passed: smartctl says %v, dit reads %v", p, h.Passed)
	}
	if nvme {
		log := "nvme_smart_health_information_log"
		got := []int64{int64(h.Wear), h.MediaErrors, int64(h.CriticalWarning), int64(h.AvailableSpare)}
		want := []int64{digInt(raw, log, "percentage_used"), digInt(raw, log, "media_errors"),
			digInt(raw, log, "critical_warning"), digInt(raw, log, "available_spare")}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("wear, media errors, critical warning, spare: dit reads %v, smartctl says %v", got, want)
		}
	}
	if ata {
		table, _ := dig(raw, "ata_smart_attributes", "table")
		rows, _ := table.([]any)
		var realloc, pending, media int64
		for _, r := range rows {
			switch digInt(r, "id") {
			case 5:
				realloc = digInt(r, "raw", "value")
			case 197:
				pending = digInt(r, "raw", "value")
			case 187, 198:
				media += digInt(r, "raw", "value")
			}
		}
		if h.Reallocated != realloc || h.Pending != pending || h.MediaErrors != media {
			t.Errorf("reallocated, pending, media errors: dit reads %d %d %d, smartctl says %d %d %d",
				h.Reallocated, h.Pending, h.MediaErrors, realloc, pending, media)
		}
	}
}

// The comparison above, on the fixtures (recorded and constructed): it
// holds for what dit reads of each, NVMe and ATA included, which no
// machine this project runs on has for real.
func TestCheckParseOnFixtures(t *testing.T) {
	files, err := os.ReadDir(filepath.Join("testdata", "smart"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if filepath.Ext(f.Name()) != ".json" {
			continue
		}
		n++
		t.Run(f.Name(), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "smart", f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			checkParse(t, raw, fixture(t, f.Name()))
		})
	}
	if n < 9 {
		t.Errorf("%d fixtures", n)
	}
}
