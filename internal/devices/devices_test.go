package devices

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func linuxVolumes(t *testing.T) map[string]Volume {
	t.Helper()
	vols, err := Linux(LinuxOptions{Root: os.DirFS("testdata/linux")})
	require.NoError(t, err)
	out := map[string]Volume{}
	for _, v := range vols {
		out[v.Mount] = v
	}
	return out
}

func ids(path []Link) []string {
	var out []string
	for _, l := range path {
		out = append(out, l.ID+"="+l.Kind)
	}
	return out
}

func TestLinuxFakeSysfs(t *testing.T) {
	vols := linuxVolumes(t)
	var mounts []string
	for m := range vols {
		mounts = append(mounts, m)
	}
	require.ElementsMatch(t, []string{"/", "/media/dit/A023", "/media/dit/B001", "/media/dit/SHUTTLE T9", "/media/dit/C001",
		"/media/dit/C002", "/mnt/raid", "/media/dit/3A1F-22B0"}, mounts, "no proc, sysfs, tmpfs, loop; /srv/day01 is a second mount of /mnt/raid")

	// USB 5 Gbit/s: the AXS reader.
	a := vols["/media/dit/A023"]
	require.Equal(t, "A023", a.Label)
	require.Equal(t, "exfat", a.FSType)
	require.Equal(t, "/dev/sdb1", a.Device)
	require.Equal(t, int64((1000215216-2048)*512), a.Size)
	require.Equal(t, "usb3.0", a.Bus)
	require.Equal(t, 5e9, a.Speed)
	require.Equal(t, "axs", a.Media)
	require.Equal(t, "Sony", a.Vendor)
	require.Equal(t, "pci:0000:00:14.0", a.Controller)
	require.Equal(t, []string{"usb:2-1=usb3.0"}, ids(a.Path))
	require.True(t, a.Removable)
	require.False(t, a.Internal)

	// USB 10 Gbit/s: a CFast reader.
	b := vols["/media/dit/B001"]
	require.Equal(t, "usb3.2-gen2", b.Bus)
	require.Equal(t, 10e9, b.Speed)
	require.Equal(t, "cfast2", b.Media)

	// USB 20 Gbit/s: a portable SSD; the label has a space (\x20, \040).
	s := vols["/media/dit/SHUTTLE T9"]
	require.Equal(t, "SHUTTLE T9", s.Label)
	require.Equal(t, "usb3.2-gen2x2", s.Bus)
	require.Equal(t, 20e9, s.Speed)
	require.Equal(t, "ssd-usb", s.Media)

	// A hub with two readers: both share the hub's link.
	c1, c2 := vols["/media/dit/C001"], vols["/media/dit/C002"]
	require.Equal(t, []string{"usb:2-3.1=usb3.2-gen2", "usb:2-3=usb3.2-gen2"}, ids(c1.Path))
	require.Equal(t, []string{"usb:2-3.2=usb3.2-gen2", "usb:2-3=usb3.2-gen2"}, ids(c2.Path))
	require.True(t, c1.Path[1].Shared)
	require.Contains(t, c1.Path[1].Title, "hub USB3.2 Hub")
	require.Equal(t, c1.Controller, c2.Controller)

	// USB 2.0 stick without a label.
	u := vols["/media/dit/3A1F-22B0"]
	require.Equal(t, "usb2", u.Bus)
	require.Empty(t, u.Label)
	require.Empty(t, u.Media)

	// Internal NVMe: PCIe 4.0 x4.
	r := vols["/"]
	require.Equal(t, "internal", r.Bus)
	require.True(t, r.Internal)
	require.Equal(t, 64e9, r.Speed)
	require.Equal(t, "Samsung SSD 990 PRO 2TB", r.Product)
	require.InDelta(t, 16e9*128/130*4/8*0.9, r.Path[0].Usable, 1e6)

	// NVMe behind Thunderbolt 3, linked at 2 x 20 Gb/s, on controller 05:00.0.
	raid := vols["/mnt/raid"]
	require.Equal(t, "RAID", raid.Label)
	require.Equal(t, "xfs", raid.FSType)
	require.Equal(t, int64(15628053168*512), raid.Size)
	require.Equal(t, "tb3", raid.Bus)
	require.Equal(t, 40e9, raid.Speed)
	require.Equal(t, "nvme-tb", raid.Media)
	require.Equal(t, "OWC", raid.Vendor)
	require.Equal(t, []string{"tb:0-1=tb3", "pci:0000:05:00.0=tb3"}, ids(raid.Path))
	require.Equal(t, "pci:0000:05:00.0", raid.Controller)

	require.Equal(t, "C001", Find(mapValues(vols), "/media/dit/C001/A001C001.mov").Label)
	require.Nil(t, Find(nil, "/x"))
}

func mapValues(m map[string]Volume) []Volume {
	var out []Volume
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestLinuxStatFSAndErrors(t *testing.T) {
	vols, err := Linux(LinuxOptions{Root: os.DirFS("testdata/linux"), StatFS: func(m string) (int64, int64, error) {
		if m == "/mnt/raid" {
			return 8e12, 6e12, nil
		}
		return 0, 0, errors.New("no")
	}})
	require.NoError(t, err)
	for _, v := range vols {
		if v.Mount == "/mnt/raid" {
			require.Equal(t, int64(8e12), v.Size)
			require.Equal(t, int64(6e12), v.Free)
		}
	}
	_, err = Linux(LinuxOptions{Root: os.DirFS(t.TempDir())})
	require.ErrorContains(t, err, "cannot read /proc/self/mountinfo")
}

func TestMountinfoEscapes(t *testing.T) {
	m, ok := parseMountinfo(`42 22 8:49 / /media/a\040b\134c rw,relatime shared:42 master:3 - exfat /dev/sdd1 rw`)
	require.True(t, ok)
	require.Equal(t, `/media/a b\c`, m.mount)
	require.Equal(t, "exfat", m.fstype)
	require.Equal(t, 8, m.major)
	_, ok = parseMountinfo("garbage")
	require.False(t, ok)
	require.Equal(t, "SHUTTLE T9", unescapeUdev(`SHUTTLE\x20T9`))
	require.Equal(t, 40e9, parseRate("Up to 20 Gb/s x2"))
	require.Equal(t, 20e9, parseRate("20.0 Gb/s"))
	require.Equal(t, 480e6, parseRate("480 Mb/s"))
}

// sampleRunner answers diskutil and system_profiler from testdata/darwin.
func sampleRunner(sp string) Runner {
	return func(_ context.Context, name string, args ...string) ([]byte, error) {
		switch {
		case name == "diskutil" && args[0] == "list":
			return os.ReadFile("testdata/darwin/diskutil-list.plist")
		case name == "diskutil" && args[0] == "info":
			return os.ReadFile(filepath.Join("testdata/darwin", "diskutil-info-"+args[len(args)-1]+".plist"))
		case name == "system_profiler":
			return os.ReadFile(filepath.Join("testdata/darwin", sp))
		}
		return nil, errors.New("unexpected command " + name + " " + strings.Join(args, " "))
	}
}

func TestDarwinSamples(t *testing.T) {
	vols, err := Darwin(context.Background(), sampleRunner("system_profiler.json"))
	require.NoError(t, err)
	by := map[string]Volume{}
	for _, v := range vols {
		by[v.Mount] = v
	}
	require.Len(t, by, 7)

	root := by["/"]
	require.Equal(t, "internal", root.Bus)
	require.True(t, root.Internal)
	require.Equal(t, "apfs", root.FSType)
	require.Equal(t, int64(572918202368), root.Free, "APFS: the container's free space")

	a := by["/Volumes/A023"]
	require.Equal(t, "A023", a.Label)
	require.Equal(t, "exfat", a.FSType)
	require.Equal(t, "/dev/disk4s1", a.Device)
	require.Equal(t, int64(512109142016), a.Size)
	require.Equal(t, "usb3.0", a.Bus)
	require.Equal(t, 5e9, a.Speed)
	require.Equal(t, "axs", a.Media)
	require.Equal(t, "usbbus:USB31Bus #0", a.Controller)
	require.Equal(t, []string{"usb:0x01100000=usb3.0"}, ids(a.Path))

	c1, c2 := by["/Volumes/C001"], by["/Volumes/C002"]
	require.Equal(t, "cfast2", c1.Media)
	require.Equal(t, "usb3.2-gen2", c1.Bus)
	require.Equal(t, []string{"usb:0x01210000=usb3.2-gen2", "usb:0x01200000=usb3.2-gen2"}, ids(c1.Path))
	require.Equal(t, []string{"usb:0x01220000=usb3.2-gen2", "usb:0x01200000=usb3.2-gen2"}, ids(c2.Path))
	require.Contains(t, c1.Path[1].Title, "hub USB3.1 Hub")

	// Thunderbolt: the APFS volume's physical store is on the ThunderBlade;
	// the dock runs at 20 Gbit/s (long passive cable); both share controller 0.
	raid, codex := by["/Volumes/RAID"], by["/Volumes/CODEX"]
	require.Equal(t, "tb3", raid.Bus)
	require.Equal(t, 40e9, raid.Speed)
	require.Equal(t, "nvme-tb", raid.Media)
	require.Equal(t, "OWC", raid.Vendor)
	require.Equal(t, int64(6801353465856), raid.Free)
	require.Equal(t, "tb3-20g", codex.Bus)
	require.Equal(t, 20e9, codex.Speed)
	require.Equal(t, "codex-dock", codex.Media)
	require.Equal(t, "tbctl:thunderbolt_bus_0", raid.Controller)
	require.Equal(t, raid.Controller, codex.Controller)
	require.Equal(t, []string{"tb:thunderbolt_bus_0/Capture Drive Dock=tb3-20g", "tbctl:thunderbolt_bus_0=tb3"}, ids(codex.Path))
}

func TestDarwinMacOS26USBHost(t *testing.T) {
	usb, tb, err := ParseSystemProfiler(mustRead(t, "testdata/darwin/system_profiler-macos26.json"))
	require.NoError(t, err)
	require.Empty(t, tb)
	require.Len(t, usb, 1)
	require.Equal(t, 10e9, usb[0].Speed)
	require.Equal(t, "Angelbird", usb[0].Vendor)
	require.Equal(t, []string{"disk5"}, usb[0].Disks)

	vols, err := Darwin(context.Background(), sampleRunner("system_profiler-macos26.json"))
	require.NoError(t, err)
	for _, v := range vols {
		if v.Mount == "/Volumes/C001" {
			require.Equal(t, "usb3.2-gen2", v.Bus)
			require.Equal(t, "cfast2", v.Media)
		}
		if v.Mount == "/Volumes/A023" {
			require.Equal(t, "USB (link speed unknown)", v.Path[0].Title)
			require.Equal(t, "axs", v.Media, "told from diskutil's media name")
		}
	}
}

func TestDarwinBadInput(t *testing.T) {
	_, err := ParseDiskutilInfo([]byte("not a plist"))
	require.Error(t, err)
	_, err = ParseDiskutilInfo(mustRead(t, "testdata/darwin/diskutil-list.plist"))
	require.ErrorContains(t, err, "not diskutil info output")
	_, _, err = ParseSystemProfiler([]byte("{"))
	require.ErrorContains(t, err, "not JSON")
	_, err = Darwin(context.Background(), func(context.Context, string, ...string) ([]byte, error) {
		return nil, errors.New("diskutil list -plist took longer than 15s")
	})
	require.ErrorContains(t, err, "took longer")
	if _, err := execRunner(context.Background(), "diskutil", "list"); err == nil {
		t.Log("running on macOS")
	} else if !strings.Contains(err.Error(), "only on macOS") {
		t.Log(err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
