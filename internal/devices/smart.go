package devices

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Health is what a drive says of itself through SMART (ATA) or the NVMe
// health log, as smartctl (smartmontools) reads it: the drive's own
// verdict, media errors, wear and spare, temperature. Problems lists, in
// words, what should make a DIT replace the drive before it fails.
type Health struct {
	Device   string `json:"device"`
	Protocol string `json:"protocol,omitempty"` // NVMe | ATA | SCSI
	Model    string `json:"model,omitempty"`
	Serial   string `json:"serial,omitempty"`
	Firmware string `json:"firmware,omitempty"`
	// Passed is the drive's overall verdict (nil: it gave none).
	Passed *bool `json:"passed,omitempty"`
	// NVMe: the critical warning bits and the spare.
	CriticalWarning int `json:"critical_warning,omitempty"`
	AvailableSpare  int `json:"available_spare_percent,omitempty"`
	SpareThreshold  int `json:"available_spare_threshold_percent,omitempty"`
	// MediaErrors: NVMe media and data integrity errors, or ATA
	// uncorrectable sectors (reported uncorrectable, offline uncorrectable).
	MediaErrors int64 `json:"media_errors"`
	// Reallocated and Pending sectors (ATA).
	Reallocated int64 `json:"reallocated_sectors,omitempty"`
	Pending     int64 `json:"pending_sectors,omitempty"`
	// Wear is the share of the rated endurance used, in percent (NVMe
	// percentage_used; ATA from the wear-levelling or life-left
	// attribute); -1 when the drive does not say.
	Wear         int   `json:"wear_percent"`
	TemperatureC int   `json:"temperature_c,omitempty"`
	PowerOnHours int64 `json:"power_on_hours,omitempty"`
	// Problems are the reasons to worry, in words; empty: healthy.
	Problems []string `json:"problems,omitempty"`
	// Unavailable says why there is no health to show (smartctl missing,
	// a USB bridge that does not pass SMART through); the other fields are
	// then empty.
	Unavailable string `json:"unavailable,omitempty"`
}

// WearLimit is the wear, in percent of the rated endurance, past which a
// drive is flagged: a blade at 80 % has a fifth of its writes left.
const WearLimit = 80

// smartctl's exit status bits (man smartctl, EXIT STATUS).
const (
	smartCmdLine   = 1 << 0 // the command line did not parse
	smartOpen      = 1 << 1 // the device could not be opened or typed
	smartCmdFailed = 1 << 2 // a SMART or other command to the disk failed
)

// smartJSON is the part of `smartctl --json -a` that dit reads (smartctl
// 7.0 and later; the key names are smartmontools' JSON output).
type smartJSON struct {
	Smartctl struct {
		Messages []struct {
			String   string `json:"string"`
			Severity string `json:"severity"`
		} `json:"messages"`
		ExitStatus int      `json:"exit_status"`
		Argv       []string `json:"argv"`
	} `json:"smartctl"`
	Device struct {
		Name     string `json:"name"`
		Protocol string `json:"protocol"`
	} `json:"device"`
	Model    string `json:"model_name"`
	Serial   string `json:"serial_number"`
	Firmware string `json:"firmware_version"`
	Status   *struct {
		Passed *bool `json:"passed"`
	} `json:"smart_status"`
	NVMe *struct {
		CriticalWarning int   `json:"critical_warning"`
		Temperature     int   `json:"temperature"`
		AvailableSpare  int   `json:"available_spare"`
		SpareThreshold  int   `json:"available_spare_threshold"`
		PercentageUsed  int   `json:"percentage_used"`
		PowerOnHours    int64 `json:"power_on_hours"`
		MediaErrors     int64 `json:"media_errors"`
	} `json:"nvme_smart_health_information_log"`
	ATA *struct {
		Table []struct {
			ID         int    `json:"id"`
			Name       string `json:"name"`
			Value      int    `json:"value"`
			Thresh     int    `json:"thresh"`
			WhenFailed string `json:"when_failed"`
			Raw        struct {
				Value int64 `json:"value"`
			} `json:"raw"`
		} `json:"table"`
	} `json:"ata_smart_attributes"`
	Temperature *struct {
		Current int `json:"current"`
	} `json:"temperature"`
	PowerOn *struct {
		Hours int64 `json:"hours"`
	} `json:"power_on_time"`
}

// nvmeWarnings are the critical warning bits of the NVMe health log.
var nvmeWarnings = []string{
	"available spare below its threshold",
	"temperature past its limit",
	"reliability degraded (media or internal errors)",
	"media in read-only mode",
	"volatile memory backup failed",
	"persistent memory region read-only",
}

// ParseSmartctl reads `smartctl --json -a DEVICE`'s output.
func ParseSmartctl(data []byte) (*Health, error) {
	var j smartJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("smartctl's JSON output did not parse: %w", err)
	}
	h := &Health{Device: j.Device.Name, Protocol: j.Device.Protocol, Model: j.Model, Serial: j.Serial, Firmware: j.Firmware, Wear: -1}
	if a := j.Smartctl.Argv; h.Device == "" && len(a) > 0 && strings.HasPrefix(a[len(a)-1], "/dev/") {
		h.Device = a[len(a)-1]
	}
	if j.Smartctl.ExitStatus&(smartCmdLine|smartOpen) != 0 || (j.NVMe == nil && j.ATA == nil && j.Status == nil) {
		var msgs []string
		for _, m := range j.Smartctl.Messages {
			msgs = append(msgs, strings.ReplaceAll(strings.TrimSpace(m.String), "\n", " "))
		}
		h.Unavailable = "the device does not answer SMART queries"
		if len(msgs) > 0 {
			h.Unavailable += ": " + strings.Join(msgs, "; ")
		}
		if strings.Contains(strings.ToLower(h.Unavailable), "usb bridge") {
			h.Unavailable += " (a USB enclosure that does not pass SMART through; try smartctl -d sat)"
		}
		return h, nil
	}
	if j.Status != nil {
		h.Passed = j.Status.Passed
	}
	if j.Temperature != nil {
		h.TemperatureC = j.Temperature.Current
	}
	if j.PowerOn != nil {
		h.PowerOnHours = j.PowerOn.Hours
	}
	if n := j.NVMe; n != nil {
		h.CriticalWarning, h.AvailableSpare, h.SpareThreshold = n.CriticalWarning, n.AvailableSpare, n.SpareThreshold
		h.MediaErrors, h.Wear = n.MediaErrors, n.PercentageUsed
		h.TemperatureC = max(h.TemperatureC, n.Temperature)
		h.PowerOnHours = max(h.PowerOnHours, n.PowerOnHours)
	}
	if a := j.ATA; a != nil {
		for _, at := range a.Table {
			switch at.ID {
			case 5: // Reallocated_Sector_Ct
				h.Reallocated = at.Raw.Value
			case 197: // Current_Pending_Sector
				h.Pending = at.Raw.Value
			case 187, 198: // Reported_Uncorrect, Offline_Uncorrectable
				h.MediaErrors += at.Raw.Value
			case 177, 202, 231, 233: // Wear_Leveling_Count, Percent_Lifetime_Remain, SSD_Life_Left, Media_Wearout_Indicator
				if at.Value > 0 && at.Value <= 100 {
					h.Wear = max(h.Wear, 100-at.Value)
				}
			}
			if at.WhenFailed == "now" {
				h.Problems = append(h.Problems, fmt.Sprintf("attribute %d %s is past its failure threshold", at.ID, at.Name))
			}
		}
	}
	h.judge()
	return h, nil
}

// judge lists the problems.
func (h *Health) judge() {
	if h.Passed != nil && !*h.Passed {
		h.Problems = append([]string{"the drive reports itself FAILING"}, h.Problems...)
	}
	for bit, what := range nvmeWarnings {
		if h.CriticalWarning&(1<<bit) != 0 {
			h.Problems = append(h.Problems, "critical warning: "+what)
		}
	}
	if h.MediaErrors > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("%d media error(s)", h.MediaErrors))
	}
	if h.Reallocated > 0 || h.Pending > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("%d reallocated and %d pending sector(s)", h.Reallocated, h.Pending))
	}
	if h.Wear >= WearLimit {
		h.Problems = append(h.Problems, fmt.Sprintf("worn: %d %% of its rated endurance used (flagged from %d %%)", h.Wear, WearLimit))
	}
}

// Warn reports whether the drive should be replaced or watched.
func (h *Health) Warn() bool { return len(h.Problems) > 0 }

// String is one line: the verdict and what it rests on.
func (h *Health) String() string {
	switch h.State() {
	case DriveUnknown:
		return h.Device + ": no health: " + h.Unavailable
	case DriveWarning:
		return fmt.Sprintf("%s: WARNING: %s (%s)", h.ident(), strings.Join(h.Problems, "; "), strings.TrimPrefix(h.facts(), h.ident()+": "))
	}
	return fmt.Sprintf("%s: healthy (%s)", h.ident(), strings.TrimPrefix(h.facts(), h.ident()+": "))
}

// SmartTimeout bounds one smartctl run.
const SmartTimeout = 20 * time.Second

// SMART asks smartctl for the health of the device (e.g. /dev/nvme0n1;
// a partition is asked of its whole disk). run is the command runner (nil:
// run smartctl with SmartTimeout). Never an error: what went wrong is the
// Health's Unavailable.
func SMART(ctx context.Context, device string, run Runner) *Health {
	device = wholeDiskOf(device)
	if run == nil {
		if _, err := exec.LookPath("smartctl"); err != nil {
			return &Health{Device: device, Wear: -1, Unavailable: "smartctl is not installed (smartmontools: apt install smartmontools, brew install smartmontools)"}
		}
		run = smartctlRunner
	}
	out, err := run(ctx, "smartctl", "--json", "-a", device)
	if len(out) == 0 {
		return &Health{Device: device, Wear: -1, Unavailable: fmt.Sprintf("smartctl gave nothing: %v", err)}
	}
	h, perr := ParseSmartctl(out)
	if perr != nil {
		return &Health{Device: device, Wear: -1, Unavailable: perr.Error()}
	}
	if h.Device == "" {
		h.Device = device
	}
	return h
}

// smartctlRunner runs smartctl; its exit status is a bit mask that is
// non-zero on a healthy drive with old errors logged, so the output is
// kept whatever the status.
func smartctlRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, SmartTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil
	}
	if ctx.Err() != nil {
		return out.Bytes(), fmt.Errorf("smartctl took longer than %s", SmartTimeout)
	}
	return out.Bytes(), err
}

// wholeDiskOf maps a partition's device to its disk's (Linux sysfs:
// /sys/class/block/sda1 is a partition of the block device above it).
func wholeDiskOf(dev string) string {
	name := filepath.Base(dev)
	link, err := filepath.EvalSymlinks(filepath.Join("/sys/class/block", name))
	if err != nil {
		return dev
	}
	if _, err := os.Stat(filepath.Join(link, "partition")); err != nil {
		return dev
	}
	return filepath.Join(filepath.Dir(dev), filepath.Base(filepath.Dir(link)))
}

// HealthOf is the health of the drive holding path (a blade's folder, a
// destination), found among vols (from [Discover]); Unavailable says why
// when the path's device is not known.
func HealthOf(ctx context.Context, vols []Volume, path string, run Runner) *Health {
	dev := driveOf(vols, path)
	if dev == "" {
		return noDrive(path)
	}
	return SMART(ctx, dev, run)
}

// driveOf is the block device holding path among vols ("" when none:
// also for a path on tmpfs or ramfs, which discovery does not list and
// which is not on the drive of the volume mounted around it).
func driveOf(vols []Volume, path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	}
	v := Find(vols, abs)
	if v == nil || !strings.HasPrefix(v.Device, "/dev/") {
		return ""
	}
	if v.FSType != "" && InMemory(abs) {
		return "" // a tmpfs mounted inside the volume: in memory, not on its drive
	}
	return v.Device
}

func noDrive(path string) *Health {
	return &Health{Device: path, Wear: -1, Unavailable: "no drive found under " + path}
}
