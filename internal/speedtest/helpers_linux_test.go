package speedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// loopExt4 makes an ext4 filesystem of size bytes in an image file,
// attaches it to a loop device that reads its image past the host's cache
// (--direct-io=on) and mounts it (read-only with ro). Unmounted and
// detached in t.Cleanup. Skips, saying why, without root or the tools.
func loopExt4(t *testing.T, size int64, ro bool, fill func(dir string)) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a loop-device filesystem needs root")
	}
	for _, tool := range []string{"mkfs.ext4", "losetup", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("a loop-device filesystem needs %s (Debian: e2fsprogs, mount)", tool)
		}
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "fs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Skipf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("mkfs.ext4", "-q", "-F", img)
	dev := run("losetup", "-f", "--show", "--direct-io=on", img)
	t.Cleanup(func() { exec.Command("losetup", "-d", dev).Run() })
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	run("mount", dev, mnt)
	if fill != nil {
		fill(mnt)
	}
	if ro {
		run("mount", "-o", "remount,ro", mnt)
	}
	t.Cleanup(func() {
		if exec.Command("umount", mnt).Run() != nil {
			exec.Command("umount", "-l", mnt).Run()
		}
	})
	return mnt
}

// resident is the fraction of the file's pages in the page cache.
func resident(t *testing.T, name string) float64 {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if fi.Size() == 0 {
		return 0
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return float64(n) / float64(len(vec))
}

// mountTmpfs mounts a small tmpfs at dir (root only), unmounted in cleanup.
func mountTmpfs(t *testing.T, dir string) {
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=128m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
}
