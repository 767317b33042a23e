// Package devices discovers the mounted volumes of the machine and what
// dit can tell of each: size, file system, label, and where the system
// says, the medium (a CFast or AXS reader, a Thunderbolt NVMe drive), the
// kind and speed of its link, the hubs above it and the controller it
// shares with other volumes. [Topology] turns that into a planner
// topology for `dit plan -d DEST CARD...` and `dit offload --limit`.
//
// Linux ([Linux]): /proc/self/mountinfo (octal escapes undone; pseudo,
// RAM and loop devices skipped), then /sys/dev/block/MAJ:MIN resolved to
// the device's sysfs path and walked up: the nearest USB devices (with
// idVendor and speed, in Mbit/s: 480, 5000, 10000, 20000; rx_lanes for
// Gen 1x2) are the device's port and the hubs above it; the root hub's
// PCI function is the controller (its PCIe link, when it has one, the
// budget every port shares); an NVMe drive's PCI function gives its link,
// and with removable = "removable" it is behind Thunderbolt, whose link
// speed and generation come from /sys/bus/thunderbolt/devices. Labels come
// from /dev/disk/by-label. Everything is read through an fs.FS
// (LinuxOptions.Root), so the tests run on fake trees in testdata/linux
// (built by testdata/make-linux-tree.sh).
//
// macOS ([Darwin]): `diskutil list -plist` and `diskutil info -plist`
// (parsed with howett.net/plist), and `system_profiler SPUSBDataType
// SPUSBHostDataType SPThunderboltDataType -json` for USB link speeds, hubs,
// controllers and Thunderbolt links (two ports of one Intel controller
// share a Thunderbolt bus). The commands run only on macOS, each with a
// timeout; the parsers are tested on samples in testdata/darwin. No cgo.
//
// Drive health ([SMART], [Health]): `smartctl --json -a DEVICE`
// (smartmontools, an existing engine; a partition is asked of its whole
// disk) read for the drive's own verdict, NVMe critical warnings, spare,
// media errors, ATA reallocated, pending and uncorrectable sectors, wear
// (percent of the rated endurance used; flagged from [WearLimit]),
// temperature and power-on hours. Where smartctl is missing or the device
// does not answer (a virtio disk, a USB bridge that does not pass SMART
// through) Health says so in Unavailable; it never fails. The parser is
// tested on testdata/smart (its README says which files were recorded on
// a machine and which were constructed).
package devices
