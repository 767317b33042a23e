package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
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
	preset := &Preset{Spec: assembly.Spec{Dests: []string{raid}}, VolumePattern: []string{"B[0-9][0-9][0-9]*"}}
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
	card, why := Recognize(outer, &Preset{Spec: assembly.Spec{Dests: []string{filepath.Join(outer, "dest")}}})
	require.False(t, card, why)
	require.Error(t, SafeToEject(Volume{Path: outer}, &Preset{Spec: assembly.Spec{Dests: []string{filepath.Join(outer, "dest")}}}))
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
	require.Equal(t, []string{filepath.Join(dir, "raid")}, p.Dests, "relative to the preset's folder")
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

// A preset says what dit offload's flags can: every job key is the
// assembly.Spec's (relative paths from the preset's folder, one value
// where a list is taken), the watch's own keys beside them; the job's
// settings are the Spec's, its name's {date} filled in; a bad value is
// refused when the file is read, naming the key and its line.
func TestPresetJobKeysAreTheSpec(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "day.yaml")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignore.txt"), []byte("*.RMD\n"), 0o644))
	p, err := ParsePreset(f, []byte(`
destinations: raid
then: [/Volumes/SHUTTLE1]
then_parallel: 2
hashes: md5,xxh128
verify: source+dest
verify_hashes: all
layout: "{date}/{card}"
name: "Day {date}"
on_conflict: rename
mhl: both
ignore: CACHE/
ignore_file: ignore.txt
include_hidden: true
throttle: 200MB/s
limit: 1.5GB/s
block_size: 1MiB
checkpoint_every: "0"
proxies: h264,burnin
proxies_to: raid
proxy_workers: 2
drive_health: refuse
rclone_config: rclone.conf
cloud_bwlimit: 20MB/s
allow_degraded: true
ale: true
no_directory_hashes: true
author: Ana
author_email: ana@example.org
author_phone: "+49 30 1234"
author_role: DIT
location: Stage 4
comment: day one
topology: set.yaml
volume_pattern: A*
eject: true
`))
	require.NoError(t, err)
	raid := filepath.Join(dir, "raid")
	want := assembly.Spec{Name: "Day {date}", Dests: []string{raid}, Then: []string{"/Volumes/SHUTTLE1"}, ThenParallel: 2,
		Hashes: "md5,xxh128", Verify: "source+dest", VerifyHashes: "all", Layout: "{date}/{card}", OnConflict: "rename", MHL: "both",
		Ignore: []string{"CACHE/"}, IgnoreFile: filepath.Join(dir, "ignore.txt"),
		SpecPace:    assembly.SpecPace{Throttle: "200MB/s", Limits: []string{"1.5GB/s"}, BlockSize: "1MiB", Checkpoint: "0"},
		SpecProxies: assembly.SpecProxies{Proxies: "h264,burnin", ProxiesTo: []string{raid}, ProxyWorkers: 2}, DriveHealth: "refuse",
		SpecRemote: assembly.SpecRemote{RcloneConfig: filepath.Join(dir, "rclone.conf"), RemoteBwLimit: "20MB/s"},
		SpecFlags:  assembly.SpecFlags{IncludeHidden: true, AllowDegraded: true, ALE: true, NoDirectoryHashes: true},
		Creator:    assembly.Creator{Author: "Ana", Email: "ana@example.org", Phone: "+49 30 1234", Role: "DIT", Location: "Stage 4", Comment: "day one"}}
	require.Equal(t, want, p.Spec)
	require.Equal(t, filepath.Join(dir, "set.yaml"), p.Topology)
	require.Equal(t, []string{"A*"}, p.VolumePattern)
	require.True(t, p.Eject)

	day := time.Date(2026, 11, 22, 9, 30, 0, 0, time.Local)
	got, err := p.JobSettings([]string{"/cards/A001"}, day)
	require.NoError(t, err)
	want.Name = "Day 2026-11-22"
	flags, err := want.Settings(assembly.FlagNames, []string{"/cards/A001"})
	require.NoError(t, err)
	require.Equal(t, flags, got, "a preset's job is the job of the same flags")
	require.Equal(t, []string{"CACHE/", "*.RMD"}, got.Ignore)

	// The zero preset's job is dit offload's defaults.
	p, err = ParsePreset(f, []byte("destinations: [raid]\n"))
	require.NoError(t, err)
	got, err = p.JobSettings(nil, day)
	require.NoError(t, err)
	flags, err = assembly.Spec{Dests: []string{raid}, Hashes: "xxh64,md5", Verify: "dest", VerifyHashes: "fastest", OnConflict: "fail", MHL: "asc", ThenParallel: 1, Layout: "{job}/{card}", DriveHealth: "warn", SpecPace: assembly.SpecPace{BlockSize: "256KiB", Checkpoint: "64MiB"}, SpecProxies: assembly.SpecProxies{ProxyWorkers: 1}}.Settings(assembly.FlagNames, nil)
	require.NoError(t, err)
	require.Equal(t, flags, got)

	for _, c := range []struct{ doc, want string }{
		{"destinations: [a]\nhashes: md5,crc\n", `day.yaml:2: hashes: unknown hash "crc"`},
		{"destinations: [a]\n\nverify: twice\n", `day.yaml:3: verify: "twice": use dest`},
		{"destinations: [a]\nthen: [b]\nverify: none\n", "day.yaml:3: verify: a cascade (then) needs read-back"},
		{"destinations: [a]\nmhl: v1\nhashes: xxh128\n", "day.yaml:2: mhl: MHL v1.1 needs md5, sha1 or xxh64"},
		{"destinations: [a]\nignore_file: missing.txt\n", "day.yaml:2: ignore_file: open " + filepath.Join(dir, "missing.txt")},
		{"destinations: [a]\nauthor_email: ana\n", `day.yaml:2: author_email: author email "ana" is not an address`},
		{"destinations: [a]\nthen_parallel: many\n", "day.yaml:2: then_parallel: "},
		{"destinations: [a]\nhashes: md5\nhashes: sha1\n", "day.yaml:3: hashes is given twice (line 2 too)"},
		{"destinations: [a]\nvolume_pattern: \"[\"\n", `day.yaml:2: volume_pattern "[": syntax error`},
	} {
		_, err := ParsePreset(f, []byte(c.doc))
		require.ErrorContains(t, err, c.want, c.doc)
	}
}

// The preset file of the package doc reads: every key it shows is one a
// preset takes, every value one dit accepts.
func TestPresetOfThePackageDoc(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	_, format, ok := strings.Cut(string(b), "# Preset file")
	require.True(t, ok)
	var doc strings.Builder
	for _, l := range strings.Split(format, "\n") {
		if y, ok := strings.CutPrefix(l, "//\t"); ok {
			doc.WriteString(y + "\n")
		}
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignore.txt"), []byte("*.tmp\n"), 0o644))
	p, err := ParsePreset(filepath.Join(dir, "day.yaml"), []byte(doc.String()))
	require.NoError(t, err, doc.String())
	require.Equal(t, "Jane Doe", p.Creator.Author)
	require.Equal(t, "comment: second unit", "comment: "+p.Creator.Comment)
	require.True(t, p.Eject)
	require.NotNil(t, p.Notify)
	for _, key := range append(assembly.SpecKeys(), WatchKeys...) {
		if !strings.Contains(key, "author_") {
			require.Contains(t, "\n"+doc.String(), "\n"+key+":", "the package doc shows %s", key)
		}
	}
}
