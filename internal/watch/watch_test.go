package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func next(t *testing.T, ch <-chan Change) Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
	}
	return Change{}
}

// Folders appearing and disappearing in a Dir are volumes inserted and
// pulled; a volume that comes back is reported again.
func TestWatchDir(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "SYSTEM"), 0o755))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := Watch(ctx, Dir(root), 5*time.Millisecond)
	c := next(t, ch)
	require.Equal(t, "SYSTEM", c.Label, "what is there at the start comes first")
	require.False(t, c.Gone)
	a := filepath.Join(root, "A001")
	require.NoError(t, os.Mkdir(a, 0o755))
	c = next(t, ch)
	require.Equal(t, a, c.Path)
	require.NotEmpty(t, c.ID)
	require.NoError(t, os.Rename(a, filepath.Join(root, ".away")))
	c = next(t, ch)
	require.True(t, c.Gone)
	require.Equal(t, a, c.Path)
	require.NoError(t, os.Rename(filepath.Join(root, ".away"), a))
	c = next(t, ch)
	require.False(t, c.Gone)
	require.Equal(t, "A001", c.Label)
}

func TestParseMountInfo(t *testing.T) {
	v, ok := parseMountInfo(`36 35 8:17 / /media/dit/A001\040CARD rw,nosuid shared:1 - exfat /dev/sdb1 rw,uid=1000`)
	require.True(t, ok)
	require.Equal(t, "/media/dit/A001 CARD", v.Path)
	require.Equal(t, "A001 CARD", v.Label)
	require.Equal(t, "/dev/sdb1", v.Device)
	require.Equal(t, "exfat", v.FSType)
	f := filepath.Join(t.TempDir(), "mountinfo")
	require.NoError(t, os.WriteFile(f, []byte(`22 1 8:2 / / rw - ext4 /dev/sda2 rw
23 22 0:5 / /proc rw - proc proc rw
24 22 8:17 / /media/x/A002 rw - exfat /dev/sdb1 rw
25 22 0:30 / /run/user/1000 rw - tmpfs tmpfs rw
`), 0o644))
	vols, err := MountInfo{File: f}.List()
	require.NoError(t, err)
	require.Len(t, vols, 1, "the root, proc and tmpfs are not volumes a card can be")
	require.Equal(t, "/media/x/A002", vols[0].Path)
}

func TestRecognize(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, paths ...string) string {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		for _, f := range paths {
			full := filepath.Join(p, f)
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			if filepath.Ext(f) != "" {
				require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
			} else {
				require.NoError(t, os.MkdirAll(full, 0o755))
			}
		}
		return p
	}
	raid := mk("RAID")
	preset := &Preset{Destinations: []string{raid}, VolumePattern: []string{"B[0-9][0-9][0-9]*"}}
	for _, tc := range []struct {
		path string
		card bool
		why  string
	}{
		{mk("SONY", "XDROOT/Clip"), true, "XDROOT"},
		{mk("STILLS", "DCIM/100CANON"), true, "DCIM"},
		{mk("ALEXA", "A001R1AB/A001C001_220101_R1AB.mxf"), true, "MXF"},
		{mk("RED", "A001_0101AB.RDM/A001_C001_0101AB.RDC/x.R3D"), true, "RED"},
		{mk("BMPCC", "A001_08121402_C001.braw"), true, "Blackmagic"},
		{mk("B017_CARD"), true, "volume_pattern"},
		{mk("Backup Drive", "Documents/notes.txt"), false, "not a camera card"},
		{raid, false, "destination"},
		{mk("Blade2", "dit-array/SUPERBLOCK"), false, "blade"},
		{mk("OTHER", ".dit.lock"), false, "dit destination"},
	} {
		card, why := Recognize(tc.path, preset)
		require.Equal(t, tc.card, card, "%s: %s", tc.path, why)
		require.Contains(t, why, tc.why, tc.path)
	}
	// A folder that holds a destination is never a card either.
	outer := mk("OUTER", "DCIM")
	card, why := Recognize(outer, &Preset{Destinations: []string{filepath.Join(outer, "dest")}})
	require.False(t, card, why)
	require.Error(t, SafeToEject(Volume{Path: outer}, &Preset{Destinations: []string{filepath.Join(outer, "dest")}}))
	require.NoError(t, SafeToEject(Volume{Path: mk("CARD")}, preset))
}

func TestParsePreset(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "day.yaml")
	p, err := ParsePreset(f, []byte(`
destinations: [raid]
then: [/Volumes/SHUTTLE1]
then_parallel: 2
hashes: md5,xxh64
volume_pattern: "A[0-9][0-9][0-9]*"
eject: true
notify:
  webhooks: [{url: "http://127.0.0.1/x"}]
`))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "raid")}, p.Destinations, "relative to the preset's folder")
	require.Equal(t, []string{"/Volumes/SHUTTLE1"}, p.Then)
	require.Equal(t, 2, p.ThenParallel)
	require.Equal(t, []string{"A[0-9][0-9][0-9]*"}, p.VolumePattern)
	require.True(t, p.Eject)
	require.NotNil(t, p.Notify)
	_, err = ParsePreset(f, []byte("destinations: [a]\nejekt: true\n"))
	require.ErrorContains(t, err, "day.yaml:2")
	require.ErrorContains(t, err, `unknown key "ejekt"`)
	_, err = ParsePreset(f, []byte("then: [a]\n"))
	require.ErrorContains(t, err, "no destinations")
	p, err = ParsePreset(f, []byte("destinations: [a]\nlimit: 1.5GB/s\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"1.5GB/s"}, p.Limits)
	p, err = ParsePreset(f, []byte("destinations: [a]\nlimit: [a=800MB/s, b=2GB/s]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"a=800MB/s", "b=2GB/s"}, p.Limits)
	_, err = ParsePreset(f, []byte("destinations: [a]\nlimit: fast\n"))
	require.ErrorContains(t, err, "day.yaml:2")
	require.ErrorContains(t, err, `"fast"`)
	p, err = ParsePreset(f, []byte("destinations: [a]\nproxies: h264,burnin\nproxies_to: a\n"))
	require.NoError(t, err)
	require.Equal(t, "h264,burnin", p.Proxies)
	require.Equal(t, []string{filepath.Join(dir, "a")}, p.ProxiesTo)
	_, err = ParsePreset(f, []byte("destinations: [a]\nproxies: mpeg2\n"))
	require.ErrorContains(t, err, "day.yaml:2")
	require.ErrorContains(t, err, "prores-proxy, h264")
}
