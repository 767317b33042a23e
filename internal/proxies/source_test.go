package proxies

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/copysource"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// A proxy made from a copy in a dit array records its source as the
// array's reader names it; the reports and dit job show give the path it
// opens at below the array's mount place (not mounted here), whatever
// the blade's folder is called (": " in it). A folder's copy is left as
// it is.
func TestSourcePathOfAnArrayCopyOpens(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DIT_ARRAY_MOUNTS", filepath.Join(dir, "mounts"))
	var blades []string
	for _, n := range []string{"b1: fast", "b2", "b3"} {
		b := filepath.Join(dir, n, "RAID")
		require.NoError(t, os.MkdirAll(b, 0o755))
		blades = append(blades, b)
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10, Label: "cart"})
	require.NoError(t, err)
	uuid, label, err := raid.ArrayIdentity(blades[0])
	require.NoError(t, err)
	require.NoError(t, a.Close())
	src, err := copysource.OpenArray(blades[0], "Day01/A001")
	require.NoError(t, err)
	recorded := src.Name("CLIPS/A001C001.mov")
	src.Close()

	res := mountplace.NewResolver()
	want := filepath.Join(mountplace.Default(uuid, label), "Day01", "A001", "CLIPS", "A001C001.mov")
	require.Equal(t, want, SourcePath(res, recorded), "recorded as %q", recorded)
	folder := filepath.Join(dir, "shuttle", "Day01", "A001", "CLIPS", "A001C001.mov")
	require.Equal(t, folder, SourcePath(res, folder))
	require.Equal(t, "dit array /nowhere: x.mov", SourcePath(res, "dit array /nowhere: x.mov"), "no array there: as recorded")
}
