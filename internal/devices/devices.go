package devices

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// Link is one link on a volume's way to the CPU: its own port, a hub's
// upstream link, a Thunderbolt link, a controller's PCIe link.
type Link struct {
	// ID names the link uniquely on this machine ("usb:2-3.1", "usb:2-3",
	// "tb:0-1", "pci:0000:05:00.0").
	ID string `json:"id"`
	// Kind is a bus kind of the planner's profiles (usb3.2-gen2, tb3,
	// pcie, ...).
	Kind string `json:"kind"`
	// Speed is the negotiated link rate in bits/s (0: unknown).
	Speed float64 `json:"bits_per_s,omitempty"`
	// Usable overrides the kind's usable bytes/s when the link is known
	// better than its kind (a PCIe link of known width), else 0.
	Usable float64 `json:"usable_bytes_per_s,omitempty"`
	Title  string  `json:"title"`
	// Shared marks links that more than the volume's own device sit
	// behind (a hub, a controller).
	Shared bool `json:"shared,omitempty"`
}

// Volume is a mounted volume as dit sees it.
type Volume struct {
	Mount  string `json:"mount"`
	Device string `json:"device"`
	FSType string `json:"filesystem"`
	Label  string `json:"label,omitempty"`
	Size   int64  `json:"size_bytes"`
	Free   int64  `json:"free_bytes,omitempty"`
	// Media is the planner's media kind when it can be told from the
	// device (a CFast reader, an AXS reader, a Thunderbolt NVMe drive).
	Media   string `json:"media,omitempty"`
	Vendor  string `json:"vendor,omitempty"`
	Product string `json:"product,omitempty"`
	// Bus is the kind of the volume's own link, Speed its rate in bits/s.
	Bus   string  `json:"bus,omitempty"`
	Speed float64 `json:"link_bits_per_s,omitempty"`
	// Path is every link from the device up, nearest first.
	Path []Link `json:"path,omitempty"`
	// Controller is the controller the volume shares with others on it.
	Controller string `json:"controller,omitempty"`
	Internal   bool   `json:"internal"`
	Removable  bool   `json:"removable"`
}

// Discover lists the mounted volumes of this machine: Linux through
// /proc/self/mountinfo and sysfs, macOS through diskutil and
// system_profiler (each run with a timeout). Other systems get an error.
func Discover(ctx context.Context) ([]Volume, error) {
	switch runtime.GOOS {
	case "linux":
		return Linux(LinuxOptions{})
	case "darwin":
		return Darwin(ctx, nil)
	}
	return nil, fmt.Errorf("device discovery is not available on %s: describe the machine in a topology file (--topology)", runtime.GOOS)
}

// Find returns the volume a path is on (the longest mount point that
// contains it), or nil.
func Find(vols []Volume, path string) *Volume {
	var best *Volume
	for i := range vols {
		m := vols[i].Mount
		if path == m || strings.HasPrefix(path, strings.TrimSuffix(m, "/")+"/") {
			if best == nil || len(m) > len(best.Mount) {
				best = &vols[i]
			}
		}
	}
	return best
}

// usbKind maps a USB link speed (Mbit/s) and lane count to a bus kind.
func usbKind(mbps float64, lanes int) (kind, title string) {
	switch {
	case mbps >= 20000:
		return "usb3.2-gen2x2", "USB 3.2 Gen 2x2 (20 Gbit/s)"
	case mbps >= 10000 && lanes >= 2:
		return "usb3.2-gen1x2", "USB 3.2 Gen 1x2 (10 Gbit/s)"
	case mbps >= 10000:
		return "usb3.2-gen2", "USB 3.2 Gen 2 (10 Gbit/s)"
	case mbps >= 5000:
		return "usb3.0", "USB 3.0 (5 Gbit/s)"
	case mbps > 0:
		return "usb2", fmt.Sprintf("USB 2.0 (%g Mbit/s)", mbps)
	}
	return "", ""
}

// tbKind maps a Thunderbolt/USB4 link (total bits/s, generation) to a kind.
func tbKind(bps float64, generation int) (kind, title string) {
	switch {
	case generation >= 4:
		return "usb4", fmt.Sprintf("USB4 / Thunderbolt 4 (%g Gbit/s)", bps/1e9)
	case bps > 0 && bps <= 20e9:
		return "tb3-20g", fmt.Sprintf("Thunderbolt 3 (%g Gbit/s link)", bps/1e9)
	}
	return "tb3", "Thunderbolt 3 (40 Gbit/s)"
}

// pcieUsable is the data rate of a PCIe link: GT/s per lane x lanes with
// its line coding, less ~10% of protocol overhead.
func pcieUsable(gts float64, width int) float64 {
	coding := 128.0 / 130
	if gts < 8 {
		coding = 0.8
	}
	return math.Round(gts*1e9*coding*float64(width)/8*0.9/1e6) * 1e6
}

// mediaHints tell a medium from a device's product and vendor names.
var mediaHints = []struct {
	words []string
	media string
}{
	{[]string{"axs"}, "axs"},
	{[]string{"cfast"}, "cfast2"},
	{[]string{"codex", "compact"}, "codex-compact"},
	{[]string{"codex", "capture"}, "codex-dock"},
	{[]string{"codex", "dock"}, "codex-dock"},
	{[]string{"cfexpress"}, "cfexpress-b"},
	{[]string{"uhs-ii"}, "sd-uhs2"},
	{[]string{"uhs2"}, "sd-uhs2"},
	{[]string{"sd", "reader"}, "sd-uhs2"},
	{[]string{"ssd"}, "ssd-usb"},
}

var wordRe = regexp.MustCompile(`[a-z0-9-]+`)

// guessMedia returns the media kind of a device by its names, or "".
func guessMedia(names ...string) string {
	words := map[string]bool{}
	all := strings.ToLower(strings.Join(names, " "))
	for _, w := range wordRe.FindAllString(all, -1) {
		words[w] = true
	}
	for _, h := range mediaHints {
		ok := true
		for _, w := range h.words {
			if !words[w] && !strings.Contains(all, w) {
				ok = false
				break
			}
		}
		if ok {
			return h.media
		}
	}
	return ""
}

// parseRate reads "20.0 Gb/s", "10 Gb/s", "Up to 20 Gb/s x2", "480 Mb/s"
// as bits/s (lanes multiplied).
func parseRate(s string) float64 {
	m := regexp.MustCompile(`([0-9.]+)\s*([GM])b(?:it)?/s(?:\s*x\s*([0-9]+))?`).FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	if m[2] == "G" {
		v *= 1e9
	} else {
		v *= 1e6
	}
	if m[3] != "" {
		n, _ := strconv.Atoi(m[3])
		v *= float64(n)
	}
	return v
}

func sortVolumes(v []Volume) {
	sort.SliceStable(v, func(i, j int) bool { return v[i].Mount < v[j].Mount })
}
