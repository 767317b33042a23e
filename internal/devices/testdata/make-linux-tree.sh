#!/bin/sh
# Builds testdata/linux: a fake / with /proc/self/mountinfo, /sys and
# /dev/disk/by-label as Linux lays them out, for the discovery tests. The
# machine: an Intel laptop with
#   - an internal NVMe SSD (/),
#   - a Sony AXS-CR1 reader on a 5 Gbit/s port (sdb1: A023),
#   - a CFast 2.0 reader on a 10 Gbit/s port (sdc1: B001),
#   - a 20 Gbit/s portable SSD (sdd1: SHUTTLE),
#   - a USB 3.2 Gen 2 hub with two CFast readers (sde1: C001, sdf1: C002),
#   - a 4-blade Thunderbolt 3 NVMe enclosure (nvme1n1: RAID) behind a TB3
#     controller, linked at 2 x 20 Gb/s,
#   - a USB stick on a 480 Mbit/s port (sdg1, no label),
#   - a loop device and tmpfs, which discovery skips.
# Run from internal/devices: sh testdata/make-linux-tree.sh
set -e
R=testdata/linux
rm -rf "$R"
mkdir -p "$R/proc/self" "$R/sys/dev/block" "$R/dev/disk/by-label" "$R/sys/bus/thunderbolt/devices"
w() { mkdir -p "$(dirname "$R/$1")"; printf '%s\n' "$2" > "$R/$1"; }

PCI=sys/devices/pci0000:00
XHCI=$PCI/0000:00:14.0
w $XHCI/vendor 0x8086
w $XHCI/class 0x0c0330
# root hubs of the chipset xHCI (no PCIe link of their own)
w $XHCI/usb2/idVendor 1d6b; w $XHCI/usb2/speed 10000; w $XHCI/usb2/product "xHCI Host Controller"; w $XHCI/usb2/bDeviceClass 09
w $XHCI/usb1/idVendor 1d6b; w $XHCI/usb1/speed 480; w $XHCI/usb1/product "xHCI Host Controller"; w $XHCI/usb1/bDeviceClass 09

# usbdev DIR SPEED VENDOR PRODUCT MANUFACTURER CLASS [RX_LANES]
usbdev() {
  w "$1/idVendor" "$3"; w "$1/idProduct" 0001; w "$1/speed" "$2"; w "$1/product" "$4"
  w "$1/manufacturer" "$5"; w "$1/bDeviceClass" "$6"; w "$1/version" " 3.20"; w "$1/rx_lanes" "${7:-1}"
}
# disk USBDIR HOST SD MAJ:MIN(part) SECTORS
disk() {
  d="$1/${1##*/}:1.0/host$2/target$2:0:0/$2:0:0:0/block/$3"
  w "$d/size" "$5"; w "$d/removable" 1; w "$d/${3}1/size" "$(($5 - 2048))"; w "$d/${3}1/partition" 1
  ln -s "../../${d#sys/}/${3}1" "$R/sys/dev/block/$4"
}

usbdev $XHCI/usb2/2-1 5000 054c "AXS-CR1" "Sony" 00
disk $XHCI/usb2/2-1 6 sdb 8:17 1000215216
usbdev $XHCI/usb2/2-2 10000 0bda "CFast 2.0 Reader" "Angelbird" 00
disk $XHCI/usb2/2-2 7 sdc 8:33 500118192
usbdev $XHCI/usb2/2-4 20000 04e8 "Portable SSD T9" "Samsung" 00 2
disk $XHCI/usb2/2-4 8 sdd 8:49 3907029168
usbdev $XHCI/usb2/2-3 10000 2109 "USB3.2 Hub" "VIA Labs, Inc." 09
usbdev $XHCI/usb2/2-3/2-3.1 10000 0bda "CFast 2.0 Reader" "Angelbird" 00
disk $XHCI/usb2/2-3/2-3.1 9 sde 8:65 250069680
usbdev $XHCI/usb2/2-3/2-3.2 10000 0bda "CFast 2.0 Reader" "Angelbird" 00
disk $XHCI/usb2/2-3/2-3.2 10 sdf 8:81 250069680
usbdev $XHCI/usb1/1-5 480 0781 "Cruzer Blade" "SanDisk" 00
disk $XHCI/usb1/1-5 11 sdg 8:97 31266816

# internal NVMe on its own root port, PCIe 4.0 x4
N0=$PCI/0000:00:1d.0/0000:3c:00.0
w $N0/vendor 0x144d; w $N0/class 0x010802; w $N0/current_link_speed "16.0 GT/s PCIe"; w $N0/current_link_width 4
w $N0/nvme/nvme0/model "Samsung SSD 990 PRO 2TB"
w $N0/nvme/nvme0/nvme0n1/size 3907029168; w $N0/nvme/nvme0/nvme0n1/removable 0
w $N0/nvme/nvme0/nvme0n1/nvme0n1p2/size 3905029168; w $N0/nvme/nvme0/nvme0n1/nvme0n1p2/partition 2
ln -s "../../devices/pci0000:00/0000:00:1d.0/0000:3c:00.0/nvme/nvme0/nvme0n1/nvme0n1p2" "$R/sys/dev/block/259:2"

# Thunderbolt 3 controller on root port 1c.4: upstream 05:00.0, NHI 06:00.0,
# downstream 06:01.0 -> the enclosure's switch 08:00.0 -> 09:01.0 -> NVMe 0a:00.0
TB=$PCI/0000:00:1c.4/0000:05:00.0
w $TB/vendor 0x8086; w $TB/class 0x060400; w $TB/current_link_speed "8.0 GT/s PCIe"; w $TB/current_link_width 4
w $TB/0000:06:00.0/vendor 0x8086; w $TB/0000:06:00.0/class 0x088000
w $TB/0000:06:00.0/domain0/0-0/device_name "Laptop"; w $TB/0000:06:00.0/domain0/0-0/generation 3
D1=$TB/0000:06:00.0/domain0/0-0/0-1
w $D1/device_name "ThunderBlade"; w $D1/vendor_name "OWC"; w $D1/generation 3; w $D1/rx_speed "20.0 Gb/s"; w $D1/rx_lanes 2
ln -s "../../../devices/pci0000:00/0000:00:1c.4/0000:05:00.0/0000:06:00.0/domain0/0-0" "$R/sys/bus/thunderbolt/devices/0-0"
ln -s "../../../devices/pci0000:00/0000:00:1c.4/0000:05:00.0/0000:06:00.0/domain0/0-0/0-1" "$R/sys/bus/thunderbolt/devices/0-1"
N1=$TB/0000:06:01.0/0000:08:00.0/0000:09:01.0/0000:0a:00.0
w $N1/vendor 0x1987; w $N1/class 0x010802; w $N1/removable removable; w $N1/current_link_speed "8.0 GT/s PCIe"; w $N1/current_link_width 4
w $N1/nvme/nvme1/model "OWC ThunderBlade"
w $N1/nvme/nvme1/nvme1n1/size 15628053168; w $N1/nvme/nvme1/nvme1n1/removable 0
ln -s "../../devices/pci0000:00/0000:00:1c.4/0000:05:00.0/0000:06:01.0/0000:08:00.0/0000:09:01.0/0000:0a:00.0/nvme/nvme1/nvme1n1" "$R/sys/dev/block/259:4"

for l in "A023:sdb1" "B001:sdc1" 'SHUTTLE\x20T9:sdd1' "C001:sde1" "C002:sdf1" "RAID:nvme1n1"; do
  ln -s "../../${l##*:}" "$R/dev/disk/by-label/${l%%:*}"
done

cat > "$R/proc/self/mountinfo" <<'MI'
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
24 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
25 22 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=8000000k
30 22 0:27 / /tmp rw,nosuid,nodev shared:14 - tmpfs tmpfs rw
31 22 7:3 / /snap/core/1234 ro,nodev,relatime shared:15 - squashfs /dev/loop3 ro
40 22 8:17 / /media/dit/A023 ro,nosuid,nodev,relatime shared:40 - exfat /dev/sdb1 ro,fmask=0022,dmask=0022
41 22 8:33 / /media/dit/B001 rw,nosuid,nodev,relatime shared:41 - exfat /dev/sdc1 rw
42 22 8:49 / /media/dit/SHUTTLE\040T9 rw,nosuid,nodev,relatime shared:42 - exfat /dev/sdd1 rw
43 22 8:65 / /media/dit/C001 ro,nosuid,nodev,relatime shared:43 - exfat /dev/sde1 ro
44 22 8:81 / /media/dit/C002 ro,nosuid,nodev,relatime shared:44 - exfat /dev/sdf1 ro
45 22 259:4 / /mnt/raid rw,relatime shared:45 - xfs /dev/nvme1n1 rw
46 22 259:4 /day01 /srv/day01 rw,relatime shared:45 - xfs /dev/nvme1n1 rw
47 22 8:97 / /media/dit/3A1F-22B0 rw,nosuid,nodev,relatime shared:47 - vfat /dev/sdg1 rw
MI
