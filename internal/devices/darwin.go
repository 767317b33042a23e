package devices

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"howett.net/plist"
)

// Runner runs a command and returns its standard output.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// CommandTimeout bounds each diskutil and system_profiler run.
const CommandTimeout = 15 * time.Second

// execRunner runs the command with CommandTimeout; only on macOS.
func execRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	if runtime.GOOS != "darwin" {
		return nil, fmt.Errorf("%s runs only on macOS", name)
	}
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %s took longer than %s: %w", name, strings.Join(args, " "), CommandTimeout, ctx.Err())
		}
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Darwin lists the mounted volumes of a Mac: `diskutil list -plist` for
// the mounted volumes, `diskutil info -plist` for each (size, file system,
// bus protocol, internal/removable), and `system_profiler SPUSBDataType
// SPUSBHostDataType SPThunderboltDataType -json` for USB link speeds, hubs,
// controllers and Thunderbolt links. run is the command runner (nil: run
// the commands, each with CommandTimeout).
func Darwin(ctx context.Context, run Runner) ([]Volume, error) {
	if run == nil {
		run = execRunner
	}
	list, err := run(ctx, "diskutil", "list", "-plist")
	if err != nil {
		return nil, err
	}
	ids, err := ParseDiskutilList(list)
	if err != nil {
		return nil, err
	}
	var infos []DiskInfo
	for _, id := range ids {
		b, err := run(ctx, "diskutil", "info", "-plist", id)
		if err != nil {
			return nil, err
		}
		info, err := ParseDiskutilInfo(b)
		if err != nil {
			return nil, fmt.Errorf("diskutil info %s: %w", id, err)
		}
		if whole := info.wholeDisk(); info.MediaName == "" && whole != "" && whole != id {
			// An APFS volume names no medium: its physical disk does.
			if b, err := run(ctx, "diskutil", "info", "-plist", whole); err == nil {
				if phys, err := ParseDiskutilInfo(b); err == nil {
					info.MediaName = phys.MediaName
				}
			}
		}
		infos = append(infos, info)
	}
	var usb []USBDevice
	var tb []TBDevice
	if sp, err := run(ctx, "system_profiler", "SPUSBDataType", "SPUSBHostDataType", "SPThunderboltDataType", "-json"); err == nil {
		if usb, tb, err = ParseSystemProfiler(sp); err != nil {
			return nil, err
		}
	}
	return DarwinVolumes(infos, usb, tb), nil
}

// ParseDiskutilList returns the device identifiers of every mounted
// volume in `diskutil list -plist` output.
func ParseDiskutilList(b []byte) ([]string, error) {
	type vol struct {
		DeviceIdentifier string `plist:"DeviceIdentifier"`
		MountPoint       string `plist:"MountPoint"`
	}
	var l struct {
		All []struct {
			vol
			Partitions  []vol `plist:"Partitions"`
			APFSVolumes []vol `plist:"APFSVolumes"`
		} `plist:"AllDisksAndPartitions"`
	}
	if _, err := plist.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("diskutil list: not a property list: %w", err)
	}
	var out []string
	for _, d := range l.All {
		for _, v := range append(append([]vol{d.vol}, d.Partitions...), d.APFSVolumes...) {
			if v.MountPoint != "" && v.DeviceIdentifier != "" {
				out = append(out, v.DeviceIdentifier)
			}
		}
	}
	return out, nil
}

// DiskInfo is what dit reads of `diskutil info -plist`.
type DiskInfo struct {
	DeviceIdentifier  string `plist:"DeviceIdentifier"`
	DeviceNode        string `plist:"DeviceNode"`
	ParentWholeDisk   string `plist:"ParentWholeDisk"`
	MountPoint        string `plist:"MountPoint"`
	VolumeName        string `plist:"VolumeName"`
	FilesystemType    string `plist:"FilesystemType"`
	FilesystemName    string `plist:"FilesystemName"`
	TotalSize         int64  `plist:"TotalSize"`
	Size              int64  `plist:"Size"`
	FreeSpace         int64  `plist:"FreeSpace"`
	APFSContainerFree int64  `plist:"APFSContainerFree"`
	// BusProtocol: USB, PCI-Express (Thunderbolt or internal NVMe), Apple
	// Fabric (Apple silicon internal SSD), Secure Digital, SATA, ...
	BusProtocol    string `plist:"BusProtocol"`
	Internal       bool   `plist:"Internal"`
	Removable      bool   `plist:"Removable"`
	RemovableMedia bool   `plist:"RemovableMedia"`
	Ejectable      bool   `plist:"Ejectable"`
	SolidState     bool   `plist:"SolidState"`
	MediaName      string `plist:"MediaName"`
	IORegistryName string `plist:"IORegistryEntryName"`
	PhysicalStores []struct {
		Store string `plist:"APFSPhysicalStore"`
	} `plist:"APFSPhysicalStores"`
}

// ParseDiskutilInfo reads `diskutil info -plist DEVICE` output.
func ParseDiskutilInfo(b []byte) (DiskInfo, error) {
	var d DiskInfo
	if _, err := plist.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("not a property list: %w", err)
	}
	if d.DeviceIdentifier == "" {
		return d, fmt.Errorf("no DeviceIdentifier: not diskutil info output")
	}
	return d, nil
}

// wholeDisk returns the physical whole disk a volume lives on ("disk4"
// for disk4s1; an APFS volume's physical store's disk).
func (d DiskInfo) wholeDisk() string {
	if len(d.PhysicalStores) > 0 {
		return diskOf(d.PhysicalStores[0].Store)
	}
	if d.ParentWholeDisk != "" {
		return d.ParentWholeDisk
	}
	return diskOf(d.DeviceIdentifier)
}

var diskRe = regexp.MustCompile(`^disk[0-9]+`)

func diskOf(id string) string { return diskRe.FindString(id) }

// USBDevice is one USB device of system_profiler's report.
type USBDevice struct {
	ID      string   // "usb:0x01120000"
	Name    string   // "CFast 2.0 Reader"
	Vendor  string   // "Angelbird"
	Speed   float64  // bits/s of its link (0: unknown)
	Hubs    []string // the IDs of the hubs above it, nearest first
	HubInfo map[string]USBDevice
	Bus     string   // the controller ("USB31Bus #0")
	Disks   []string // BSD whole-disk names of its media ("disk4")
}

// TBDevice is one Thunderbolt device of system_profiler's report.
type TBDevice struct {
	Name, Vendor string
	Speed        float64 // bits/s of its upstream link, all lanes
	Bus          string  // the controller ("thunderbolt_bus_0")
}

// ParseSystemProfiler reads `system_profiler SPUSBDataType
// SPUSBHostDataType SPThunderboltDataType -json` output (any of them may
// be missing: SPUSBDataType is gone in macOS 26, SPUSBHostDataType is new).
func ParseSystemProfiler(b []byte) ([]USBDevice, []TBDevice, error) {
	var doc map[string][]map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("system_profiler: not JSON: %w", err)
	}
	var usb []USBDevice
	for _, key := range []string{"SPUSBDataType", "SPUSBHostDataType"} {
		for i, bus := range doc[key] {
			name := fmt.Sprintf("%s #%d", str(bus["_name"]), i)
			walkUSB(bus, name, nil, map[string]USBDevice{}, &usb)
		}
	}
	var tb []TBDevice
	for _, bus := range doc["SPThunderboltDataType"] {
		walkTB(bus, str(bus["_name"]), &tb)
	}
	return usb, tb, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func items(m map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := m["_items"].([]any)
	for _, it := range list {
		if d, ok := it.(map[string]any); ok {
			out = append(out, d)
		}
	}
	return out
}

// usbSpeeds maps system_profiler's device_speed to Mbit/s.
var usbSpeeds = map[string]float64{
	"low_speed": 1.5, "full_speed": 12, "high_speed": 480, "super_speed": 5000,
	"super_speed_plus": 10000, "super_speed_plus_by2": 20000,
}

func walkUSB(m map[string]any, bus string, hubs []string, info map[string]USBDevice, out *[]USBDevice) {
	for i, it := range items(m) {
		d := USBDevice{Name: str(it["_name"]), Vendor: str(it["manufacturer"]), Bus: bus, Hubs: hubs, HubInfo: info}
		if d.Vendor == "" {
			d.Vendor = str(it["USBDeviceKeyVendorName"])
		}
		loc := strings.Fields(str(it["location_id"]))
		if len(loc) == 0 {
			loc = strings.Fields(str(it["USBDeviceKeyLocationID"]))
		}
		if len(loc) > 0 {
			d.ID = "usb:" + loc[0]
		} else {
			d.ID = fmt.Sprintf("usb:%s/%d", bus, i)
		}
		if v, ok := usbSpeeds[str(it["device_speed"])]; ok {
			d.Speed = v * 1e6
		} else {
			d.Speed = parseRate(str(it["USBDeviceKeyLinkSpeed"]))
		}
		collectDisks(it, &d.Disks)
		*out = append(*out, d)
		if len(items(it)) > 0 {
			info[d.ID] = d
			walkUSB(it, bus, append([]string{d.ID}, hubs...), info, out)
		}
	}
}

// collectDisks gathers the bsd_name of a device's media (not of devices
// below it).
func collectDisks(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == "_items" {
				continue
			}
			if k == "bsd_name" {
				if s := diskOf(str(val)); s != "" && !containsStr(*out, s) {
					*out = append(*out, s)
				}
				continue
			}
			collectDisks(val, out)
		}
	case []any:
		for _, e := range x {
			collectDisks(e, out)
		}
	}
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func walkTB(m map[string]any, bus string, out *[]TBDevice) {
	for _, it := range items(m) {
		d := TBDevice{Name: str(it["device_name_key"]), Vendor: str(it["vendor_name_key"]), Bus: bus}
		if d.Name == "" {
			d.Name = str(it["_name"])
		}
		for k, v := range it {
			if r, ok := v.(map[string]any); ok && strings.HasPrefix(k, "receptacle_upstream") {
				d.Speed = parseRate(str(r["current_speed_key"]))
			}
		}
		*out = append(*out, d)
		walkTB(it, bus, out)
	}
}

// DarwinVolumes combines diskutil's volumes with system_profiler's USB
// and Thunderbolt devices.
func DarwinVolumes(infos []DiskInfo, usb []USBDevice, tb []TBDevice) []Volume {
	var out []Volume
	for _, d := range infos {
		v := Volume{Mount: d.MountPoint, Device: d.DeviceNode, FSType: strings.ToLower(d.FilesystemType), Label: d.VolumeName,
			Size: d.TotalSize, Free: d.FreeSpace, Internal: d.Internal, Removable: d.Removable || d.RemovableMedia || d.Ejectable}
		if v.Size == 0 {
			v.Size = d.Size
		}
		if v.Free == 0 {
			v.Free = d.APFSContainerFree
		}
		if v.Device == "" {
			v.Device = "/dev/" + d.DeviceIdentifier
		}
		whole := d.wholeDisk()
		switch {
		case d.BusProtocol == "USB":
			darwinUSB(&v, d, whole, usb)
		case (d.BusProtocol == "PCI-Express" || d.BusProtocol == "PCI" || d.BusProtocol == "Thunderbolt") && !d.Internal:
			darwinTB(&v, d, tb)
		case d.BusProtocol == "Secure Digital":
			v.Media = "sd-uhs2"
			v.Path = []Link{{ID: "sd:" + whole, Title: "built-in SD card slot"}}
		case d.Internal:
			v.Bus = "internal"
			v.Path = []Link{{ID: "internal:" + whole, Kind: "internal", Title: "internal (" + d.BusProtocol + ")"}}
		}
		if v.Media == "" {
			v.Media = guessMedia(d.MediaName, d.IORegistryName)
			if v.Media == "ssd-usb" && v.Bus != "" && !strings.HasPrefix(v.Bus, "usb") {
				v.Media = ""
			}
		}
		out = append(out, v)
	}
	sortVolumes(out)
	return out
}

func darwinUSB(v *Volume, d DiskInfo, whole string, usb []USBDevice) {
	for _, u := range usb {
		if !containsStr(u.Disks, whole) {
			continue
		}
		v.Vendor, v.Product = u.Vendor, u.Name
		v.Media = guessMedia(u.Name, u.Vendor, d.MediaName)
		kind, title := usbKind(u.Speed/1e6, 1)
		v.Bus, v.Speed = kind, u.Speed
		v.Path = append(v.Path, Link{ID: u.ID, Kind: kind, Speed: u.Speed, Title: title})
		for _, h := range u.Hubs {
			hub := u.HubInfo[h]
			k, t := usbKind(hub.Speed/1e6, 1)
			v.Path = append(v.Path, Link{ID: h, Kind: k, Speed: hub.Speed, Title: t + " hub " + hub.Name, Shared: true})
		}
		v.Controller = "usbbus:" + u.Bus
		return
	}
	v.Bus = "usb3.0"
	v.Path = []Link{{ID: "usb:" + whole, Kind: "usb3.0", Title: "USB (link speed unknown)"}}
}

// words returns the lowercased words of three letters or more in s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if len(w) >= 3 {
			out[w] = true
		}
	}
	return out
}

func darwinTB(v *Volume, d DiskInfo, tb []TBDevice) {
	var dev *TBDevice
	var candidates []*TBDevice
	for i := range tb {
		if tb[i].Speed > 0 {
			candidates = append(candidates, &tb[i])
		}
	}
	// The device whose names share the most words with the disk's.
	disk := words(d.MediaName + " " + d.IORegistryName)
	best := 0
	for _, c := range candidates {
		n := 0
		for w := range words(c.Name + " " + c.Vendor) {
			if disk[w] {
				n++
			}
		}
		if n > best {
			dev, best = c, n
		}
	}
	if dev == nil && len(candidates) == 1 {
		dev = candidates[0]
	}
	v.Removable = true
	if dev == nil {
		kind, title := tbKind(0, 0)
		v.Bus = kind
		v.Path = []Link{{ID: "tb:" + d.wholeDisk(), Kind: kind, Title: title + " (link not identified)"}}
		return
	}
	kind, title := tbKind(dev.Speed, 0)
	v.Bus, v.Speed, v.Vendor, v.Product = kind, dev.Speed, dev.Vendor, dev.Name
	v.Media = guessMedia(dev.Name, dev.Vendor, d.MediaName)
	if v.Media == "" || v.Media == "ssd-usb" {
		v.Media = "nvme-tb"
	}
	v.Path = []Link{{ID: "tb:" + dev.Bus + "/" + dev.Name, Kind: kind, Speed: dev.Speed, Title: title + " to " + dev.Name},
		{ID: "tbctl:" + dev.Bus, Kind: "tb3", Title: "Thunderbolt controller " + dev.Bus, Shared: true}}
	v.Controller = "tbctl:" + dev.Bus
}
