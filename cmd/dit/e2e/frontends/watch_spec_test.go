package frontends

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/sched"
)

// recordedSettings are the settings a job records in the catalog (its
// jobs row), without what names this job (id, times, station, state).
type recordedSettings struct {
	Name, Hashes, VerifyMode, VerifyHashes, Layout, OnConflict, MHL string
	IncludeHidden                                                   bool
	Ignore                                                          []string
	ThenParallel                                                    int
	Proxies                                                         string
	ProxiesTo                                                       []string
	RcloneConfig                                                    string
	CloudBwLimit                                                    int64
	ToolVersion                                                     string
}

func settingsOf(t *testing.T, db string, id int64) recordedSettings {
	t.Helper()
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	j, err := cat.Job(id)
	require.NoError(t, err)
	return recordedSettings{Name: j.Name, Hashes: j.Hashes, VerifyMode: j.VerifyMode, VerifyHashes: j.VerifyHashes, Layout: j.Layout,
		OnConflict: j.OnConflict, MHL: j.MHL, IncludeHidden: j.IncludeHidden, Ignore: j.Ignore, ThenParallel: j.ThenParallel,
		Proxies: j.Proxies, ProxiesTo: j.ProxiesTo, RcloneConfig: j.RcloneConfig, CloudBwLimit: j.CloudBwLimit, ToolVersion: j.ToolVersion}
}

// latestMHL is the newest ASC MHL manifest of card A001 of job day01
// under root (the layout puts a date between them).
func latestMHL(t *testing.T, root string) string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(root, "day01", "*", "A001", "ascmhl", "*.mhl"))
	require.NoError(t, err)
	require.NotEmpty(t, ms, "a history under %s", root)
	slices.Sort(ms)
	b, err := os.ReadFile(ms[len(ms)-1])
	require.NoError(t, err)
	return string(b)
}

// One settings schema (issue 37): the same settings given to dit offload
// as flags and to dit watch as a preset file (its keys the flags' words,
// its paths relative to its folder, its hashes in another order) make
// jobs that record the same settings in their catalogs, and write the
// same creator info into the cards' hash lists. A cascade with --mhl
// both: the second run's MHL v1.1 list is written beside the first
// copy's, made in the same second or not, and both verify. The watch's
// job, like dit offload's, learns what its destinations cost.
func TestWatchPresetRecordsWhatTheFlagsDo(t *testing.T) {
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, filepath.Join(dir, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--seed", "71")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, d := range []string{"raid1", "shuttle1", "raid2", "shuttle2", "Volumes"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignore.txt"), []byte("# junk\n*.tmp\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rclone.conf"), nil, 0o600))
	card := filepath.Join(cards, "A001")

	flagsDB := filepath.Join(dir, "flags.db")
	r = e2e.Dit(t, flagsDB, "offload", "--name", "day01", "--hash", "md5,xxh128", "--verify", "source+dest", "--verify-hashes", "all",
		"--layout", "{job}/{date}/{card}", "--on-conflict", "rename", "--mhl", "both", "--ignore", "*.RMD",
		"--ignore-file", filepath.Join(dir, "ignore.txt"), "--include-hidden", "--then-parallel", "2",
		"--rclone-config", filepath.Join(dir, "rclone.conf"), "--cloud-bwlimit", "20MB/s",
		"--author-name", "Jane Doe", "--author-role", "DIT", "--location", "Stage 5", "--comment", "second unit",
		"--drive-health", "off", "--block-size", "1MiB", "--checkpoint-every", "0",
		"-d", filepath.Join(dir, "raid1"), "--then", filepath.Join(dir, "shuttle1"), card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)

	preset := writePreset(t, dir, `destinations: [raid2]
then: [shuttle2]
name: day01
hashes: xxh128,md5
verify: source+dest
verify_hashes: all
layout: "{job}/{date}/{card}"
on_conflict: rename
mhl: both
ignore: ["*.RMD"]
ignore_file: ignore.txt
include_hidden: true
then_parallel: 2
rclone_config: rclone.conf
cloud_bwlimit: 20MB/s
author: Jane Doe
author_role: DIT
location: Stage 5
comment: second unit
drive_health: "off"
block_size: 1MiB
checkpoint_every: "0"
`)
	watchDB := filepath.Join(dir, "watch.db")
	w := startWatch(t, watchDB, "--preset", preset, "--volumes", filepath.Join(dir, "Volumes"))
	require.NoError(t, os.Rename(card, filepath.Join(dir, "Volumes", "A001")))
	sum := w.waitFor("A001's summary", summaryOf("A001"))
	require.EqualValues(t, 0, sum["exit_code"])
	stopWatch(t, w)

	flags, watched := settingsOf(t, flagsDB, 1), settingsOf(t, watchDB, int64(sum["job_id"].(float64)))
	require.Equal(t, flags, watched, "the same settings recorded")
	require.Equal(t, recordedSettings{Name: "day01", Hashes: "md5,xxh128", VerifyMode: "source+dest", VerifyHashes: "all",
		Layout: "{job}/{date}/{card}", OnConflict: "rename", MHL: "both", IncludeHidden: true, Ignore: []string{"*.RMD", "*.tmp"},
		ThenParallel: 2, RcloneConfig: filepath.Join(dir, "rclone.conf"), CloudBwLimit: 20e6, ToolVersion: flags.ToolVersion}, flags,
		"what was given, not the defaults")
	for _, root := range []string{"raid1", "raid2", "shuttle1", "shuttle2"} {
		m := latestMHL(t, filepath.Join(dir, root))
		require.Contains(t, m, `<author role="DIT">Jane Doe</author>`, root)
		require.Contains(t, m, "<location>Stage 5</location>", root)
		require.Regexp(t, `<comment>dit job \d+ [^<]*; second unit</comment>`, m, root)
	}
	for _, c := range []struct{ db, raid, shuttle string }{{flagsDB, "raid1", "shuttle1"}, {watchDB, "raid2", "shuttle2"}} {
		v1 := func(root string) []string {
			ls, err := filepath.Glob(filepath.Join(dir, root, "day01", "*", "A001", "A001_*.mhl"))
			require.NoError(t, err)
			slices.Sort(ls)
			return ls
		}
		first, second := v1(c.raid), v1(c.shuttle)
		require.Len(t, first, 1, "the first run's MHL v1.1 list")
		require.Len(t, second, 2, "the shuttle holds the first copy's list and its own: %v", second)
		want, err := os.ReadFile(first[0])
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(filepath.Dir(second[0]), filepath.Base(first[0])))
		require.NoError(t, err, "the first copy's list on the shuttle under its own name")
		require.Equal(t, want, got, "the first copy's list carried unchanged")
		for _, root := range []string{c.raid, c.shuttle} {
			folder := filepath.Dir(v1(root)[0])
			r := e2e.Dit(t, c.db, "mhl", "verify", folder)
			require.Equal(t, 0, r.Code, "%s: %s%s", root, r.Stdout, r.Stderr)
		}
		cat, err := catalog.Open(c.db)
		require.NoError(t, err)
		costs, err := cat.RecentCosts(sched.CostVolume(filepath.Join(dir, c.raid)), 5)
		cat.Close()
		require.NoError(t, err)
		require.NotEmpty(t, costs, "%s: the job's costs are learned for the next plans", c.db)
	}
}
