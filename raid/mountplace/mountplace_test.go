package mountplace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/raid"
)

func TestNameIsAFileName(t *testing.T) {
	const uuid = "1a2b3c4d5e6f708192a3b4c5d6e7f809"
	require.Equal(t, "cart-1a2b3c4d", Name(uuid, "cart"))
	require.Equal(t, "array-1a2b3c4d", Name(uuid, ""))
	require.Equal(t, "A_B_C-1a2b3c4d", Name(uuid, "A/B:C"))
	require.Equal(t, "日本 カート-1a2b3c4d", Name(uuid, " 日本 カート "))
	require.Equal(t, "array-1a2b3c4d", Name(uuid, ".."))
}

func TestDefaultFollowsTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	require.Equal(t, filepath.Join(dir, "cart-1a2b3c4d"), Default("1a2b3c4d5e6f708192a3b4c5d6e7f809", "cart"))
	t.Setenv(Env, "")
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, "dit-arrays"), Parent())
}

// A copy the catalog records below a blade (named with or without a
// trailing slash) is a path below the array's mount place, never with a
// doubled slash, and the place says how to mount it; a folder's copy is
// its own path.
func TestResolverPaths(t *testing.T) {
	root := t.TempDir()
	t.Setenv(Env, filepath.Join(root, "mounts"))
	var blades []string
	for _, n := range []string{"b1", "b2", "b3"} {
		d := filepath.Join(root, n, "RAID")
		require.NoError(t, os.MkdirAll(d, 0o755))
		blades = append(blades, d)
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10, Label: "cart"})
	require.NoError(t, err)
	require.NoError(t, a.Mkdir("Day01", time.Now()))
	uuid := a.Superblock().ArrayUUID
	require.NoError(t, a.Close())

	r := NewResolver()
	want := filepath.Join(root, "mounts", "cart-"+uuid[:8], "Day01", "A001", "C001.mov")
	for _, blade := range []string{blades[0], blades[0] + "/"} {
		p, pl := r.CopyPath(blade, filepath.Join(blades[0], "Day01", "A001", "C001.mov"))
		require.Equal(t, want, p)
		require.NotNil(t, pl)
		require.False(t, pl.Mounted)
		require.Equal(t, "cart", pl.Name())
		require.Equal(t, "dit array mount "+filepath.Clean(blade), pl.MountCommand())
		p, _ = r.Path(blade, "/Day01/A001/C001.mov")
		require.Equal(t, want, p)
	}
	folder := t.TempDir()
	p, pl := r.CopyPath(folder+"/", filepath.Join(folder, "Day01", "C001.mov"))
	require.Nil(t, pl)
	require.Equal(t, filepath.Join(folder, "Day01", "C001.mov"), p)
}

func TestShellQuote(t *testing.T) {
	require.Equal(t, "/Volumes/Blade1", shellQuote("/Volumes/Blade1"))
	require.Equal(t, "'/Volumes/Blade 1'", shellQuote("/Volumes/Blade 1"))
	require.Equal(t, `'/x/it'\''s'`, shellQuote("/x/it's"))
}
