package assembly

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// The zero Spec is dit's defaults.
func TestSpecDefaults(t *testing.T) {
	s, err := Spec{Dests: []string{"/d1"}}.Settings(nil, []string{"/A001"})
	require.NoError(t, err)
	want, _ := hashing.ParseList("xxh64,md5")
	require.Equal(t, want, s.Hashes)
	require.Equal(t, offload.VerifyDest, s.Verify)
	require.Equal(t, offload.ConflictFail, s.OnConflict)
	require.Equal(t, "asc", s.MHL)
	require.Equal(t, 256<<10, s.BlockSize)
	require.Equal(t, int64(64<<20), s.CheckpointEvery)
	require.Equal(t, 1, s.ThenParallel)
	require.Equal(t, DrivesWarn, s.Drives)
	require.Equal(t, offload.DefaultLayout, s.Layout)
	require.Equal(t, 1, s.ProxyWorkers)
	// dit offload's flags at their defaults are the zero Spec.
	flags, err := Spec{Dests: []string{"/d1"}, Hashes: DefaultHashes, Verify: "dest", VerifyHashes: "fastest", Layout: offload.DefaultLayout,
		OnConflict: "fail", MHL: "asc", ThenParallel: 1, SpecProxies: SpecProxies{ProxyWorkers: 1},
		SpecPace: SpecPace{BlockSize: DefaultBlockSize, Checkpoint: DefaultCheckpoint}, DriveHealth: "warn"}.Settings(FlagNames, []string{"/A001"})
	require.NoError(t, err)
	require.Equal(t, s, flags)
}

// A resumed job takes this run's settings only: those the job keeps from
// the catalog are left at their defaults, and so never checked against
// each other (a blake3 job without hash lists resumed without --mhl).
func TestSpecForResume(t *testing.T) {
	s := Spec{Dests: []string{"/d1"}, Hashes: "blake3", Layout: "{card}", DriveHealth: "off", SpecFlags: SpecFlags{AllowDegraded: true, IncludeHidden: true}, Creator: Creator{Author: "Ana"}, SpecPace: SpecPace{Throttle: "20MB/s", BlockSize: "1MiB"}, SpecRemote: SpecRemote{RemoteBwLimit: "5MB/s"}}
	_, err := s.Settings(FlagNames, nil)
	require.ErrorContains(t, err, "--mhl: ASC MHL needs one of")
	r := s.ForResume()
	require.Equal(t, Spec{DriveHealth: "off", SpecFlags: SpecFlags{AllowDegraded: true}, Creator: Creator{Author: "Ana"}, SpecPace: SpecPace{Throttle: "20MB/s", BlockSize: "1MiB"}, SpecRemote: SpecRemote{RemoteBwLimit: "5MB/s"}}, r)
	got, err := r.Settings(FlagNames, nil)
	require.NoError(t, err)
	require.Equal(t, 20e6, got.Throttle)
	require.Equal(t, DrivesOff, got.Drives)
	_, err = Spec{Hashes: "blake3", SpecPace: SpecPace{Throttle: "fast"}}.ForResume().Settings(FlagNames, nil)
	require.ErrorContains(t, err, "--throttle")
}

// A bad value is a usage error naming the field as the front end calls
// it, and saying what to give.
func TestSpecRefusesNamingTheField(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		flag string
	}{
		{Spec{Hashes: "md5,crc"}, "--hash"},
		{Spec{Verify: "twice"}, "--verify"},
		{Spec{Verify: "none", Then: []string{"/d2"}}, "--verify"},
		{Spec{OnConflict: "overwrite"}, "--on-conflict"},
		{Spec{SpecPace: SpecPace{Throttle: "fast"}}, "--throttle"},
		{Spec{SpecPace: SpecPace{BlockSize: "1KiB"}}, "--block-size"},
		{Spec{SpecPace: SpecPace{Checkpoint: "-3MB"}}, "--checkpoint-every"},
		{Spec{DriveHealth: "maybe"}, "--drive-health"},
		{Spec{VerifyHashes: "some"}, "--verify-hashes"},
		{Spec{MHL: "xml"}, "--mhl"},
		{Spec{Layout: "{job}/{reel}"}, "--layout"},
		{Spec{Layout: "{job}"}, "--layout"},
		{Spec{Layout: "../{card}"}, "--layout"},
		{Spec{Hashes: "blake3", MHL: "v1"}, "--mhl"},
		{Spec{Ignore: []string{" "}}, "--ignore"},
		{Spec{IgnoreFile: "/nonexistent/ignore.txt"}, "--ignore-file"},
		{Spec{SpecPace: SpecPace{Limits: []string{"fast"}}}, "--limit"},
		{Spec{SpecPace: SpecPace{Limits: []string{"/d1=0MB/s"}}}, "--limit"},
		{Spec{SpecRemote: SpecRemote{RemoteBwLimit: "20MB/x"}}, "--cloud-bwlimit"},
		{Spec{SpecProxies: SpecProxies{Proxies: "mpeg2"}}, "--proxies"},
		{Spec{ThenParallel: -1}, "--then-parallel"},
		{Spec{SpecProxies: SpecProxies{ProxyWorkers: -2}}, "--proxy-workers"},
		{Spec{Creator: Creator{Email: "jane"}}, "--author-email"},
		{Spec{Creator: Creator{Author: "Ana\x01"}}, "--author-name"},
		{Spec{Creator: Creator{Comment: "day\x00one"}}, "--comment"},
	} {
		c.spec.Dests = []string{"/d1"}
		_, err := c.spec.Settings(FlagNames, []string{"/A001"})
		var ue *UsageError
		require.True(t, errors.As(err, &ue), "%+v: %v", c.spec, err)
		require.Contains(t, err.Error(), c.flag)
		_, err = c.spec.Settings(PresetNames("day.yaml"), nil)
		require.True(t, errors.As(err, &ue), "%+v: %v", c.spec, err)
		require.Contains(t, err.Error(), "preset day.yaml: ")
		require.NotContains(t, err.Error(), c.flag, "a preset's error names its key, not the flag")
	}
}

// Every key of a Spec is a field of it, and a flag of dit offload's
// words; the preset file's keys are known to the front ends.
func TestSpecKeys(t *testing.T) {
	keys := SpecKeys()
	require.Contains(t, keys, "destinations")
	require.Contains(t, keys, "limit")
	require.Contains(t, keys, "include_hidden", "the inline flags")
	require.Contains(t, keys, "author_email", "the inline creator")
	require.Len(t, keys, 32)
	require.Equal(t, "--author-name", FlagNames("author"))
	require.Equal(t, "--then-parallel", FlagNames("then_parallel"))
	lines := PresetLines("day.yaml", map[string]int{"verify": 4})
	require.Equal(t, "preset day.yaml:4: verify", lines("verify"))
	require.Equal(t, "preset day.yaml: hashes", lines("hashes"))
}

// One schema: the same settings given as a preset file and as the
// fields a form or the flags fill give the same job settings.
func TestSpecFromAPresetIsTheSpecOfTheFlags(t *testing.T) {
	dir := t.TempDir()
	ign := filepath.Join(dir, "ignore.txt")
	require.NoError(t, os.WriteFile(ign, []byte("# junk\n*.RMD\n"), 0o644))
	doc := `
name: Day 01
destinations: [/mnt/raid, /mnt/shuttle]
then: [/mnt/nas]
then_parallel: 2
hashes: md5,xxh128
verify: source+dest
verify_hashes: all
layout: "{date}/{card}"
on_conflict: rename
mhl: both
ignore: [CACHE/]
ignore_file: ` + ign + `
throttle: 200MB/s
limit: [1.5GB/s, /mnt/shuttle=800MB/s]
rclone_config: /etc/dit/rclone.conf
cloud_bwlimit: 20MB/s
block_size: 1MiB
checkpoint_every: "0"
proxies: h264,burnin
proxies_to: [/mnt/shuttle]
proxy_workers: 2
drive_health: refuse
include_hidden: true
allow_degraded: true
ale: true
no_directory_hashes: true
author: Ana Lúcia 🎬
author_role: DIT
location: Stage 4
comment: day one
`
	var fromFile Spec
	require.NoError(t, yaml.Unmarshal([]byte(doc), &fromFile))
	byHand := Spec{Name: "Day 01", Dests: []string{"/mnt/raid", "/mnt/shuttle"}, Then: []string{"/mnt/nas"}, ThenParallel: 2, Hashes: "md5,xxh128", Verify: "source+dest", VerifyHashes: "all", Layout: "{date}/{card}", OnConflict: "rename", MHL: "both", Ignore: []string{"CACHE/"}, IgnoreFile: ign, DriveHealth: "refuse", SpecFlags: SpecFlags{IncludeHidden: true, AllowDegraded: true, ALE: true, NoDirectoryHashes: true}, Creator: Creator{Author: "Ana Lúcia 🎬", Role: "DIT", Location: "Stage 4", Comment: "day one"}, SpecPace: SpecPace{Throttle: "200MB/s", BlockSize: "1MiB", Checkpoint: "0", Limits: []string{"1.5GB/s", "/mnt/shuttle=800MB/s"}}, SpecRemote: SpecRemote{RcloneConfig: "/etc/dit/rclone.conf", RemoteBwLimit: "20MB/s"}, SpecProxies: SpecProxies{Proxies: "h264,burnin", ProxiesTo: []string{"/mnt/shuttle"}, ProxyWorkers: 2}}
	require.Equal(t, byHand, fromFile)
	a, err := fromFile.Settings(PresetNames("day.yaml"), []string{"/A001"})
	require.NoError(t, err)
	b, err := byHand.Settings(FlagNames, []string{"/A001"})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Equal(t, []string{"CACHE/", "*.RMD"}, a.Ignore)
	require.Equal(t, 200e6, a.Throttle)
	require.Equal(t, Schedule{Limits: []string{"1.5GB/s", "/mnt/shuttle=800MB/s"}, Discover: true}, a.Sched)
	require.Equal(t, &cloud.Rclone{Config: "/etc/dit/rclone.conf", BwLimit: "20MB/s"}, a.Rclone)
	require.Equal(t, int64(-1), a.CheckpointEvery, "0: never")
	require.True(t, a.VerifyAll)
	require.Equal(t, offload.Author{Name: "Ana Lúcia 🎬", Role: "DIT"}, a.Author)
	// And back: a Spec written as a preset reads as the same Spec.
	out, err := yaml.Marshal(byHand)
	require.NoError(t, err)
	var again Spec
	require.NoError(t, yaml.Unmarshal(out, &again))
	require.Equal(t, byHand, again)
}
