//go:build linux || darwin

package fusemount

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/raid"
)

func TestMountReadsEveryFileAlsoDegraded(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse on this machine: FUSE mount not tested")
	}
	root := t.TempDir()
	var blades []string
	for i := 0; i < 4; i++ {
		d := filepath.Join(root, fmt.Sprintf("blade%d", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		blades = append(blades, d)
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10})
	require.NoError(t, err)
	files := map[string][]byte{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, size := range []int{0, 1, 70_000, 1_000_000} {
		p := fmt.Sprintf("day01/A001/CLIPS/C%03d.mov", i)
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		files[p] = b
		w, err := a.Create(raid.FileSpec{Path: p, Mtime: time.Unix(1_700_000_000, 0)})
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
		_, err = w.Commit()
		require.NoError(t, err)
	}
	require.NoError(t, a.Mkdir("day01/A001/EMPTY", time.Now()))
	require.NoError(t, a.Close())

	check := func(degraded bool) {
		ra, err := raid.Open([]string{blades[0]}, raid.OpenOptions{})
		require.NoError(t, err)
		defer ra.Close()
		if degraded {
			require.Equal(t, []int{2}, ra.Missing())
		}
		mnt := filepath.Join(t.TempDir(), "mnt")
		require.NoError(t, os.Mkdir(mnt, 0o755))
		srv, err := Mount(ra, mnt)
		if err != nil {
			t.Skipf("cannot mount FUSE here (%v): FUSE mount not tested", err)
		}
		defer srv.Unmount()
		for p, want := range files {
			got, err := os.ReadFile(filepath.Join(mnt, filepath.FromSlash(p)))
			require.NoError(t, err, p)
			require.True(t, bytes.Equal(want, got), "%s byte-identical (degraded=%v)", p, degraded)
		}
		fi, err := os.Stat(filepath.Join(mnt, "day01", "A001", "EMPTY"))
		require.NoError(t, err)
		require.True(t, fi.IsDir())
		err = os.WriteFile(filepath.Join(mnt, "day01", "new.txt"), []byte("x"), 0o644)
		require.Error(t, err, "read-only")
		require.NoError(t, srv.Unmount())
	}
	check(false)
	require.NoError(t, os.Rename(blades[2], blades[2]+"-pulled"))
	check(true)
}
