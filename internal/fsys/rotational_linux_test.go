package fsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A disk's flag is read from its queue, a partition's from its disk's;
// a device sysfs does not list is not rotational.
func TestRotationalReadsTheDisksFlag(t *testing.T) {
	sys := t.TempDir()
	mk := func(dir, flag string) {
		require.NoError(t, os.MkdirAll(filepath.Join(sys, dir, "queue"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sys, dir, "queue", "rotational"), []byte(flag+"\n"), 0o644))
	}
	mk("devices/sda", "1")
	mk("devices/nvme0n1", "0")
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "devices/sda/sda1"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "dev/block"), 0o755))
	for link, to := range map[string]string{"8:0": "devices/sda", "8:1": "devices/sda/sda1", "259:0": "devices/nvme0n1"} {
		require.NoError(t, os.Symlink(filepath.Join(sys, to), filepath.Join(sys, "dev/block", link)))
	}
	require.True(t, rotationalDev(8, 0, sys))
	require.True(t, rotationalDev(8, 1, sys), "a partition of a spinning disk")
	require.False(t, rotationalDev(259, 0, sys))
	require.False(t, rotationalDev(0, 40, sys), "tmpfs and the like: no block device")
	// This machine's temporary folder: whatever it is, no panic, and
	// /dev/shm (memory) is never spinning.
	Rotational(t.TempDir())
	if _, err := os.Stat("/dev/shm"); err == nil {
		require.False(t, Rotational("/dev/shm"))
	}
}
