package devices

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// LinuxOptions say where Linux discovery reads from.
type LinuxOptions struct {
	// Root is the file system "/" is read from (default os.DirFS("/")); it
	// must hold symlinks (fs.ReadLinkFS), as os.DirFS and fstest.MapFS do.
	Root fs.FS
	// StatFS gives a mount point's size and free bytes (default: statfs on
	// the real system when Root is the default, else nothing: the size
	// then comes from sysfs).
	StatFS func(mount string) (size, free int64, err error)
}

// Pseudo and loop devices are skipped: RAM disks (1) and loop devices (7).
var skipMajors = map[int]bool{0: true, 1: true, 7: true}

var pciRe = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// Linux lists mounted block-device volumes from /proc/self/mountinfo and
// sysfs: each with its size, file system, label, and where sysfs tells,
// the device's USB link speed, the hubs above it, the controller it
// shares, NVMe PCIe links and Thunderbolt links.
func Linux(o LinuxOptions) ([]Volume, error) {
	if o.Root == nil {
		o.Root = os.DirFS("/")
		if o.StatFS == nil {
			o.StatFS = statfs
		}
	}
	mi, err := fs.ReadFile(o.Root, "proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("cannot read /proc/self/mountinfo: %w", err)
	}
	labels := readLabels(o.Root)
	tb := readThunderbolt(o.Root)
	seen := map[string]int{}
	var out []Volume
	sc := bufio.NewScanner(bytes.NewReader(mi))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m, ok := parseMountinfo(sc.Text())
		if !ok || skipMajors[m.major] {
			continue
		}
		if i, dup := seen[m.devnum]; dup {
			// A bind mount or a second mount of the same volume: keep the
			// mount of its root.
			if m.root == "/" && out[i].Mount != "/" && len(m.mount) < len(out[i].Mount) {
				out[i].Mount = m.mount
			}
			continue
		}
		v := Volume{Mount: m.mount, Device: m.source, FSType: m.fstype}
		describeBlock(o.Root, m.devnum, &v, labels, tb)
		if o.StatFS != nil {
			if size, free, err := o.StatFS(m.mount); err == nil {
				if size > 0 {
					v.Size = size
				}
				v.Free = free
			}
		}
		seen[m.devnum] = len(out)
		out = append(out, v)
	}
	sortVolumes(out)
	return out, sc.Err()
}

type mountEntry struct {
	major          int
	devnum         string
	root, mount    string
	fstype, source string
}

// parseMountinfo reads one line of /proc/self/mountinfo:
// ID PARENT MAJ:MIN ROOT MOUNT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS
func parseMountinfo(line string) (mountEntry, bool) {
	f := strings.Fields(line)
	sep := -1
	for i, s := range f {
		if s == "-" && i >= 6 {
			sep = i
			break
		}
	}
	if len(f) < 10 || sep < 0 || sep+2 >= len(f) {
		return mountEntry{}, false
	}
	maj, _, ok := strings.Cut(f[2], ":")
	if !ok {
		return mountEntry{}, false
	}
	major, err := strconv.Atoi(maj)
	if err != nil {
		return mountEntry{}, false
	}
	return mountEntry{major: major, devnum: f[2], root: unescapeOctal(f[3]), mount: unescapeOctal(f[4]),
		fstype: f[sep+1], source: unescapeOctal(f[sep+2])}, true
}

// unescapeOctal undoes mountinfo's \040-style escapes.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeUdev undoes udev's \x20-style escapes in /dev/disk/by-label.
func unescapeUdev(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readLabels maps a kernel device name (sdb1) to its file system label.
func readLabels(root fs.FS) map[string]string {
	out := map[string]string{}
	ents, err := fs.ReadDir(root, "dev/disk/by-label")
	if err != nil {
		return out
	}
	for _, e := range ents {
		target, err := fs.ReadLink(root, "dev/disk/by-label/"+e.Name())
		if err != nil {
			continue
		}
		out[path.Base(target)] = unescapeUdev(e.Name())
	}
	return out
}

type tbDevice struct {
	dir        string // resolved sysfs path
	name       string
	vendor     string
	speed      float64 // bits/s, all lanes
	generation int
	host       bool
}

func readThunderbolt(root fs.FS) []tbDevice {
	ents, err := fs.ReadDir(root, "sys/bus/thunderbolt/devices")
	if err != nil {
		return nil
	}
	var out []tbDevice
	for _, e := range ents {
		dir, err := resolve(root, "sys/bus/thunderbolt/devices/"+e.Name())
		if err != nil {
			continue
		}
		d := tbDevice{dir: dir, name: read(root, dir, "device_name"), vendor: read(root, dir, "vendor_name"),
			host: strings.HasSuffix(e.Name(), "-0")}
		d.generation, _ = strconv.Atoi(read(root, dir, "generation"))
		lanes, _ := strconv.Atoi(read(root, dir, "rx_lanes"))
		d.speed = parseRate(read(root, dir, "rx_speed")) * float64(max(lanes, 1))
		if d.name == "" && !exists(root, dir+"/device_name") {
			continue // a service or retimer, not a device
		}
		out = append(out, d)
	}
	return out
}

// resolve follows symlinks in p (relative to root) and returns the clean
// path without any.
func resolve(root fs.FS, p string) (string, error) {
	parts := strings.Split(path.Clean(p), "/")
	cur := ""
	for hops := 0; len(parts) > 0; {
		next := path.Join(cur, parts[0])
		parts = parts[1:]
		fi, err := fs.Lstat(root, next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", errors.New("too many symlinks")
		}
		target, err := fs.ReadLink(root, next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join(cur, target)
		}
		if strings.HasPrefix(target, "..") {
			return "", fmt.Errorf("%s leaves the root", next)
		}
		parts = append(strings.Split(target, "/"), parts...)
		cur = ""
	}
	return cur, nil
}

func read(root fs.FS, dir, name string) string {
	b, err := fs.ReadFile(root, dir+"/"+name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func exists(root fs.FS, p string) bool {
	_, err := fs.Stat(root, p)
	return err == nil
}

// describeBlock fills v from sysfs: size, label, links up to the CPU.
func describeBlock(root fs.FS, devnum string, v *Volume, labels map[string]string, tb []tbDevice) {
	dir, err := resolve(root, "sys/dev/block/"+devnum)
	if err != nil {
		return
	}
	name := path.Base(dir)
	if sectors, err := strconv.ParseInt(read(root, dir, "size"), 10, 64); err == nil {
		v.Size = sectors * 512
	}
	if v.Label = labels[name]; v.Label == "" {
		v.Label = labels[path.Base(path.Dir(dir))]
	}
	disk := dir
	if exists(root, dir+"/partition") {
		disk = path.Dir(dir)
	}
	v.Removable = read(root, disk, "removable") == "1"
	v.Internal = true
	var usbDevs []string // USB devices from the volume up, root hub last
	var pcis []string    // PCI functions from the device up, root port last
	for p := path.Dir(disk); strings.HasPrefix(p, "sys/devices/") && p != "sys/devices"; p = path.Dir(p) {
		base := path.Base(p)
		switch {
		case exists(root, p+"/idVendor") && exists(root, p+"/speed"):
			usbDevs = append(usbDevs, p)
		case pciRe.MatchString(base):
			pcis = append(pcis, p)
		}
		if strings.HasSuffix(p, "/nvme") || path.Base(path.Dir(p)) == "nvme" {
			if m := read(root, p, "model"); m != "" && v.Product == "" {
				v.Product = m
			}
		}
	}
	switch {
	case len(usbDevs) > 0:
		describeUSB(root, v, usbDevs, pcis)
	case len(pcis) > 0:
		describePCI(root, v, pcis, tb)
	}
}

func describeUSB(root fs.FS, v *Volume, usbDevs, pcis []string) {
	v.Internal = false
	v.Removable = true
	dev := usbDevs[0]
	v.Product, v.Vendor = read(root, dev, "product"), read(root, dev, "manufacturer")
	v.Media = guessMedia(v.Product, v.Vendor)
	for i, d := range usbDevs {
		base := path.Base(d)
		if strings.HasPrefix(base, "usb") {
			// The root hub: the controller's bus.
			if len(pcis) > 0 {
				v.Controller = "pci:" + path.Base(pcis[0])
			} else {
				v.Controller = "usb:" + base
			}
			break
		}
		mbps, _ := strconv.ParseFloat(read(root, d, "speed"), 64)
		lanes, _ := strconv.Atoi(read(root, d, "rx_lanes"))
		kind, title := usbKind(mbps, lanes)
		l := Link{ID: "usb:" + base, Kind: kind, Speed: mbps * 1e6, Title: title, Shared: i > 0}
		if i > 0 {
			l.Title += " hub " + read(root, d, "product")
		}
		v.Path = append(v.Path, l)
	}
	if len(v.Path) > 0 {
		v.Bus, v.Speed = v.Path[0].Kind, v.Path[0].Speed
	}
	if len(pcis) > 0 {
		// A discrete USB controller has a PCIe link of its own: the budget
		// every port of it shares.
		p := pcis[0]
		if gts := parseGTs(read(root, p, "current_link_speed")); gts > 0 {
			w, _ := strconv.Atoi(read(root, p, "current_link_width"))
			v.Path = append(v.Path, Link{ID: "pci:" + path.Base(p), Kind: "pcie", Speed: gts * 1e9 * float64(max(w, 1)),
				Usable: pcieUsable(gts, max(w, 1)), Title: fmt.Sprintf("USB controller on PCIe %g GT/s x%d", gts, max(w, 1)), Shared: true})
		}
	}
}

func describePCI(root fs.FS, v *Volume, pcis []string, tb []tbDevice) {
	dev := pcis[0]
	rootPort := pcis[len(pcis)-1]
	gts := parseGTs(read(root, dev, "current_link_speed"))
	w, _ := strconv.Atoi(read(root, dev, "current_link_width"))
	behindTB := read(root, dev, "removable") == "removable"
	if !behindTB {
		v.Bus, v.Speed = "internal", gts*1e9*float64(max(w, 1))
		l := Link{ID: "pci:" + path.Base(dev), Kind: "internal", Speed: v.Speed, Title: "internal"}
		if gts > 0 {
			l.Usable = pcieUsable(gts, max(w, 1))
			l.Title = fmt.Sprintf("internal PCIe %g GT/s x%d", gts, max(w, 1))
		}
		v.Path = append(v.Path, l)
		v.Controller = "pci:" + path.Base(rootPort)
		return
	}
	v.Internal, v.Removable = false, true
	v.Media = "nvme-tb"
	// The Thunderbolt device on the same root port as the drive is its link.
	var link *tbDevice
	for i := range tb {
		if !tb[i].host && strings.HasPrefix(tb[i].dir, rootPort+"/") && (link == nil || tb[i].speed < link.speed) {
			link = &tb[i]
		}
	}
	ctrl := rootPort
	if len(pcis) >= 2 {
		ctrl = pcis[len(pcis)-2] // the controller's upstream port, under the root port
	}
	id := "tb:" + path.Base(dev)
	kind, title := tbKind(0, 0)
	var speed float64
	if link != nil {
		kind, title = tbKind(link.speed, link.generation)
		speed = link.speed
		id = "tb:" + path.Base(link.dir)
		if v.Vendor == "" {
			v.Vendor = link.vendor
		}
		title += " to " + link.name
	}
	v.Bus, v.Speed = kind, speed
	v.Path = append(v.Path, Link{ID: id, Kind: kind, Speed: speed, Title: title})
	cgts := parseGTs(read(root, ctrl, "current_link_speed"))
	cw, _ := strconv.Atoi(read(root, ctrl, "current_link_width"))
	ckind, ctitle := tbKind(0, 0)
	if link != nil && link.generation >= 4 {
		ckind, ctitle = tbKind(0, link.generation)
	}
	cl := Link{ID: "pci:" + path.Base(ctrl), Kind: ckind, Title: ctitle + " controller", Shared: true}
	if cgts > 0 {
		cl.Speed = cgts * 1e9 * float64(max(cw, 1))
	}
	v.Path = append(v.Path, cl)
	v.Controller = cl.ID
}

var gtsRe = regexp.MustCompile(`([0-9.]+)\s*GT/s`)

func parseGTs(s string) float64 {
	m := gtsRe.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}
