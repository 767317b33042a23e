//go:build !windows

package usage

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// usageCase is one bad command line: args ($T is the case's temp
// folder), the words the message must hold (the flag or argument, and
// the value), and extra environment.
type usageCase struct {
	args []string
	want []string
	env  []string
}

// a is a case: args, then "--" and the words the message must hold.
func a(s ...string) usageCase {
	i := slices.Index(s, "--want")
	return usageCase{args: s[:i], want: s[i+1:]}
}

// usageCases are the bad values of every command and flag of dit help,
// command by command (dit --help, each command's --help).
func usageCases() []usageCase {
	return []usageCase{
		// dit offload: each flag's bad value, and its arguments.
		a("offload", "-d", "$T/d1", "--hash", "crc32", "$T/card", "--want", "--hash", "crc32"),
		a("offload", "-d", "$T/d1", "--hash", "", "$T/card", "--want", "--hash", `""`),
		a("offload", "-d", "$T/d1", "--verify", "bogus", "$T/card", "--want", "--verify", "bogus"),
		a("offload", "-d", "$T/d1", "--verify", "none", "--then", "$T/d2", "$T/card", "--want", "--verify", "then"),
		a("offload", "-d", "$T/d1", "--verify-hashes", "some", "$T/card", "--want", "--verify-hashes", "some"),
		a("offload", "-d", "$T/d1", "--layout", "{cam}/{card}", "$T/card", "--want", "--layout", "{cam}"),
		a("offload", "-d", "$T/d1", "--layout", "{job}", "$T/card", "--want", "--layout", "{job}"),
		a("offload", "-d", "$T/d1", "--on-conflict", "overwrite", "$T/card", "--want", "--on-conflict", "overwrite"),
		a("offload", "-d", "$T/d1", "--mhl", "v2", "$T/card", "--want", "--mhl", "v2"),
		a("offload", "-d", "$T/d1", "--drive-health", "ignore", "$T/card", "--want", "--drive-health", "ignore"),
		a("offload", "-d", "$T/d1", "--checkpoint-every", "often", "$T/card", "--want", "--checkpoint-every", "often"),
		a("offload", "-d", "$T/d1", "--checkpoint-every", "-5MB", "$T/card", "--want", "--checkpoint-every", "-5MB"),
		a("offload", "-d", "$T/d1", "--throttle", "fast", "$T/card", "--want", "--throttle", "fast"),
		a("offload", "-d", "$T/d1", "--limit", "fast", "$T/card", "--want", "--limit", "fast"),
		a("offload", "-d", "$T/d1", "--limit", "nodest=1GB/s", "$T/card", "--want", "--limit", "nodest=1GB/s"),
		a("offload", "-d", "$T/d1", "--topology", "$T/bad.yaml", "$T/card", "--want", "--topology", "$T/bad.yaml"),
		a("offload", "-d", "$T/d1", "--topology", "$T/file.txt", "$T/card", "--want", "--topology", "$T/file.txt"),
		a("offload", "-d", "$T/d1", "--simulate", "--simulate-scale", "0", "$T/card", "--want", "--simulate-scale", "0"),
		a("offload", "-d", "$T/d1", "--simulate", "--simulate-scale", "11", "$T/card", "--want", "--simulate-scale", "11"),
		a("offload", "-d", "$T/d1", "--simulate", "--simulate-scale", "tenth", "$T/card", "--want", "--simulate-scale", "tenth"),
		a("offload", "-d", "$T/d1", "--simulate-scale", "0.5", "$T/card", "--want", "--simulate-scale", "--simulate"),
		a("offload", "-d", "$T/d1", "--then-parallel", "0", "$T/card", "--want", "--then-parallel", "0"),
		a("offload", "-d", "$T/d1", "--then-parallel", "-1", "$T/card", "--want", "--then-parallel", "-1"),
		a("offload", "-d", "$T/d1", "--then-parallel", "two", "$T/card", "--want", "--then-parallel", "two"),
		a("offload", "-d", "$T/d1", "--proxies", "mpeg2", "$T/card", "--want", "--proxies", "mpeg2"),
		a("offload", "-d", "$T/d1", "--proxies-to", "$T/d2", "$T/card", "--want", "--proxies-to", "--proxies"),
		a("offload", "-d", "$T/d1", "--proxies", "h264", "--proxy-workers", "0", "$T/card", "--want", "--proxy-workers", "0"),
		a("offload", "-d", "$T/d1", "--proxy-workers", "-1", "$T/card", "--want", "--proxy-workers", "-1"),
		a("offload", "-d", "$T/d1", "--proxy-workers", "many", "$T/card", "--want", "--proxy-workers", "many"),
		a("offload", "-d", "$T/d1", "--ignore-file", "$T/nofile", "$T/card", "--want", "--ignore-file", "$T/nofile"),
		a("offload", "-d", "$T/d1", "--notify-config", "$T/nofile", "$T/card", "--want", "--notify-config", "$T/nofile"),
		a("offload", "-d", "$T/d1", "--author-email", "dit-at-set", "$T/card", "--want", "--author-email", "dit-at-set"),
		a("offload", "-d", "$T/d1", "--cloud-bwlimit", "fast", "$T/card", "--want", "--cloud-bwlimit", "fast"),
		a("offload", "-d", "$T/d1", "--rclone-config", "$T/nofile", "$T/card", "--want", "--rclone-config", "$T/nofile"),
		a("offload", "-d", "$T/d1", "--sync-to", "$T/nodir/shared.db", "$T/card", "--want", "--sync-to", "$T/nodir/shared.db"),
		a("offload", "-d", "$T/d1", "--name", "a/b", "$T/card", "--want", "--name a/b", "cannot hold / or .."),
		a("offload", "-d", "$T/d1", "--name", "../../escape", "$T/card", "--want", "--name ../../escape", "cannot hold / or .."),
		a("offload", "-d", "$T/d1", "--name", "..", "$T/card", "--want", "--name ..", "cannot hold / or .."),
		a("offload", "-d", "$T/d1", "--name", `Tag 1\Karte`, "$T/card", "--want", `--name Tag 1\Karte`, "cannot hold"),
		a("offload", "-d", "$T/d1", "--resume", "abc", "--want", "--resume", `"abc"`, "job number"),
		a("offload", "--resume", "-3", "--want", "--resume", `"-3"`, "job number"),
		a("offload", "--resume", "0", "--want", "--resume", `"0"`, "job number"),
		a("offload", "-d", "$T/d1", "--block-size", "huge", "$T/card", "--want", "--block-size", "huge"),
		a("offload", "-d", "$T/d1", "--again=perhaps", "$T/card", "--want", "--again", "perhaps"),
		a("offload", "-d", "$T/d1", "--bogus", "$T/card", "--want", "--bogus"),
		a("offload", "$T/card", "--want", "-d DEST"),
		a("offload", "-d", "$T/d1", "--want", "card"),
		a("offload", "-d", "$T/d1", "$T/nocard", "--want", "card", "$T/nocard"),
		a("offload", "-d", "$T/d1", "$T/file.txt", "--want", "card", "$T/file.txt"),
		a("offload", "-d", "$T/d1", "$T/card", "$T/card/", "--want", "card", "given twice"),
		a("offload", "-d", "$T/nodest", "$T/card", "--want", "destination", "$T/nodest"),
		a("offload", "-d", "$T/file.txt", "$T/card", "--want", "destination", "$T/file.txt"),
		a("offload", "-d", "$T/d1", "-d", "$T/d1/", "$T/card", "--want", "destination", "given twice"),
		a("offload", "-d", "$T/d1", "--then", "$T/nodest", "$T/card", "--want", "destination", "$T/nodest"),
		a("offload", "-d", "$T/d1", "--then", "$T/d1", "$T/card", "--want", "destination", "$T/d1"),
		a("offload", "-d", "rclone:nosuch:bucket/x", "$T/card", "--want", "rclone:nosuch:bucket/x", "nosuch"),
		a("offload", "-d", "$T/d1", "--then", "rclone:nosuch:bucket/x", "$T/card", "--want", "rclone:nosuch:bucket/x", "nosuch"),
		{args: []string{"offload", "-d", "rclone:r:bucket/x", "$T/card"}, want: []string{"rclone:r:bucket/x", "rclone is not installed"},
			env: []string{"PATH=$T/empty"}},
		a("offload", "--db", "$T/nodir/c.db", "-d", "$T/d1", "$T/card", "--want", "$T/nodir/c.db", "does not exist"),

		// dit watch
		a("watch", "--want", "--preset"),
		a("watch", "--preset", "$T/nofile.yaml", "--want", "preset", "$T/nofile.yaml"),
		a("watch", "--preset", "$T/file.txt", "--want", "preset", "file.txt"),
		a("watch", "--preset", "$T/nodest.yaml", "--want", "destination", "nodest", "preset"),
		a("watch", "--preset", "$T/slash.yaml", "--want", "name:", "a/b", "cannot hold / or .."),
		a("watch", "--preset", "$T/good.yaml", "--volumes", "$T/novols", "--want", "--volumes", "$T/novols"),
		a("watch", "--preset", "$T/good.yaml", "--interval", "0", "--want", "--interval", "0"),
		a("watch", "--preset", "$T/good.yaml", "--interval", "-1s", "--want", "--interval", "-1s"),
		a("watch", "--preset", "$T/good.yaml", "--interval", "often", "--want", "--interval", "often"),
		a("watch", "--preset", "$T/good.yaml", "--topology", "$T/bad.yaml", "--want", "--topology", "$T/bad.yaml"),
		a("watch", "--preset", "$T/good.yaml", "--limit", "fast", "--want", "--limit", "fast"),
		a("watch", "--preset", "$T/good.yaml", "--notify-config", "$T/nofile", "--want", "--notify-config", "$T/nofile"),
		a("watch", "--preset", "$T/good.yaml", "--eject=sometimes", "--want", "--eject", "sometimes"),
		a("watch", "--preset", "$T/good.yaml", "$T/card", "--want", "$T/card"),

		// dit plan
		a("plan", "--want", "--topology FILE", "-d DEST"),
		a("plan", "--topology", "$T/bad.yaml", "--want", "--topology", "$T/bad.yaml"),
		a("plan", "--topology", "$T/file.txt", "--want", "--topology", "$T/file.txt"),
		a("plan", "-d", "$T/d1", "--hash", "crc32", "$T/card", "--want", "--hash", "crc32"),
		a("plan", "-d", "$T/d1", "--verify", "twice", "$T/card", "--want", "--verify", "twice"),
		a("plan", "-d", "$T/d1", "--limit", "fast", "$T/card", "--want", "--limit", "fast"),
		a("plan", "-d", "$T/d1", "--limit", "nodest=1GB/s", "$T/card", "--want", "--limit", "nodest=1GB/s"),
		a("plan", "-d", "$T/d1", "--upload-rate", "fast", "$T/card", "--want", "--upload-rate", "fast"),
		a("plan", "-d", "$T/d1", "--upload-rate", "100", "$T/card", "--want", "--upload-rate", "100"),
		a("plan", "-d", "$T/d1", "--then-parallel", "0", "$T/card", "--want", "--then-parallel", "0"),
		a("plan", "-d", "$T/d1", "--fit", "floppy", "$T/card", "--want", "--fit", "floppy"),
		a("plan", "-d", "$T/d1", "--simulate", "--simulate-scale", "0", "$T/card", "--want", "--simulate-scale", "0"),
		a("plan", "-d", "$T/d1", "--simulate-scale", "0.5", "$T/card", "--want", "--simulate-scale", "--simulate"),
		a("plan", "-d", "$T/nodest", "$T/card", "--want", "destination", "$T/nodest"),
		a("plan", "-d", "$T/d1", "--then", "$T/nodest", "$T/card", "--want", "destination", "$T/nodest"),
		a("plan", "-d", "$T/d1", "$T/nocard", "--want", "card", "$T/nocard"),
		a("plan", "--db", "$T/nodir/c.db", "-d", "$T/d1", "$T/card", "--want", "$T/nodir/c.db", "does not exist"),

		// dit devices, jobs, job show, verify, report, find, day
		a("devices", "--json=yes", "--want", "--json", "yes"),
		a("devices", "sda", "--want", "sda"),
		a("jobs", "--all-stations=maybe", "--want", "--all-stations", "maybe"),
		a("jobs", "12", "--want", "12"),
		a("jobs", "--want", "no catalog at", "$T/c.db"),
		a("job", "shwo", "1", "--want", "shwo", "dit job"),
		a("job", "show", "--want", "job number"),
		a("job", "show", "abc", "--want", "JOB", `"abc"`),
		a("job", "show", "0", "--want", "JOB", `"0"`),
		a("job", "show", "--", "-1", "--want", "JOB", `"-1"`),
		a("job", "show", "1", "2", "--want", "one job number"),
		a("job", "show", "1", "--clips=some", "--want", "--clips", "some"),
		a("job", "show", "1", "--want", "no catalog at", "$T/c.db"),
		a("verify", "abc", "--want", "JOB", `"abc"`),
		a("verify", "1", "--verify-hashes", "some", "--want", "--verify-hashes", "some"),
		a("verify", "1", "--rclone-config", "$T/nofile", "--want", "--rclone-config", "$T/nofile"),
		a("report", "abc", "--want", "JOB", `"abc"`),
		a("report", "1", "--format", "docx", "--want", "--format", "docx"),
		a("report", "1", "--out", "$T/report.docx", "--want", "--out", "$T/report.docx"),
		a("report", "1", "--out", "$T/nodir/report.pdf", "--want", "--out", "$T/nodir/report.pdf"),
		a("find", "A001C001", "--limit", "0", "--want", "--limit", "0"),
		a("find", "A001C001", "--limit", "ten", "--want", "--limit", "ten"),
		a("find", "A001C001", "--offset", "-1", "--want", "--offset", "-1"),
		a("find", "--want", "1 arg"),
		a("day", "2026-02-30", "--want", "DATE", "2026-02-30"),
		a("day", "tomorrow", "--want", "DATE", "tomorrow"),

		// dit hash, testdata, version, catalog, serve, speedtest
		a("hash", "--hash", "crc32", "$T/file.txt", "--want", "--hash", "crc32"),
		a("hash", "--hash", "", "$T/file.txt", "--want", "--hash", `""`),
		a("hash", "$T/nofile", "--want", "FILE", "$T/nofile"),
		a("hash", "$T/d1", "--want", "FILE", "$T/d1"),
		a("testdata", "cards", "--out", "$T/out", "--cards", "-1", "--want", "--cards", "-1"),
		a("testdata", "cards", "--out", "$T/out", "--cards", "0", "--want", "--cards", "0"),
		a("testdata", "cards", "--out", "$T/out", "--cards", "1000", "--want", "--cards", "1000"),
		a("testdata", "cards", "--out", "$T/out", "--cards", "two", "--want", "--cards", "two"),
		a("testdata", "cards", "--out", "$T/out", "--style", "bogus", "--want", "--style", "bogus"),
		a("testdata", "cards", "--out", "$T/out", "--size", "big", "--want", "--size", "big"),
		a("testdata", "cards", "--out", "$T/out", "--size", "0", "--want", "--size", "0"),
		a("testdata", "cards", "--out", "$T/out", "--seed", "x", "--want", "--seed", "x"),
		a("testdata", "cards", "--out", "$T/file.txt", "--want", "--out", "$T/file.txt"),
		a("testdata", "cards", "--want", "--out"),
		a("testdata", "disks", "--want", "disks", "dit testdata"),
		a("version", "--json=maybe", "--want", "--json", "maybe"),
		a("version", "now", "--want", "now"),
		a("catalog", "push", "--want", "push", "dit catalog"),
		a("catalog", "sync", "--want", "--to"),
		a("catalog", "sync", "--to", "$T/nodir/shared.db", "--want", "--to", "$T/nodir/shared.db"),
		a("catalog", "sync", "--to", "$T/shared.db", "--job", "abc", "--want", "--job", `"abc"`, "job number"),
		a("catalog", "sync", "--to", "$T/shared.db", "--job", "-1", "--want", "--job", `"-1"`, "job number"),
		a("serve", "--listen", "8765", "--want", "--listen", "8765"),
		a("serve", "--listen", "0.0.0.0:8765", "--want", "--listen", "0.0.0.0:8765", "--token"),
		a("serve", "--poll", "0", "--want", "--poll", "0"),
		a("serve", "--poll", "soon", "--want", "--poll", "soon"),
		a("serve", "--token-file", "$T/nofile", "--want", "--token-file", "$T/nofile"),
		a("serve", "--token-file", "$T/empty.txt", "--want", "--token-file", "$T/empty.txt"),
		a("speedtest", "--size", "big", "$T/d1", "--want", "--size", "big"),
		a("speedtest", "--size", "1kB", "$T/d1", "--want", "--size", "1kB"),
		a("speedtest", "--block", "1", "$T/d1", "--want", "--block", `"1"`),
		a("speedtest", "--block", "4KiB", "--frame", "hd-rgb10", "$T/d1", "--want", "--block", "--frame"),
		a("speedtest", "--frame", "8k-film", "$T/d1", "--want", "--frame", "8k-film"),
		a("speedtest", "--streams", "0", "$T/d1", "--want", "--streams", "0"),
		a("speedtest", "--streams", "65", "$T/d1", "--want", "--streams", "65"),
		a("speedtest", "--chart", "$T/chart.jpg", "$T/d1", "--want", "--chart", "$T/chart.jpg"),
		a("speedtest", "--chart", "$T/nodir/chart.png", "$T/d1", "--want", "--chart", "$T/nodir/chart.png"),
		a("speedtest", "$T/nodir", "--want", "$T/nodir"),

		// dit mhl
		a("mhl", "check", "$T/card", "--want", "check", "dit mhl"),
		a("mhl", "create", "$T/card", "--hash", "crc32", "--want", "--hash", "crc32"),
		a("mhl", "create", "$T/card", "--hash", "blake3", "--want", "--hash", "blake3"),
		a("mhl", "create", "$T/card", "--ignore-file", "$T/nofile", "--want", "--ignore-file", "$T/nofile"),
		a("mhl", "create", "$T/card", "--author-email", "dit-at-set", "--want", "--author-email", "dit-at-set"),
		a("mhl", "create", "$T/nodir", "--want", "DIR", "$T/nodir"),
		a("mhl", "create", "$T/file.txt", "--want", "$T/file.txt", "not a folder"),
		a("mhl", "verify", "$T/card", "--verify-hashes", "some", "--want", "--verify-hashes", "some"),
		a("mhl", "verify", "$T/nodir", "--want", "DIR", "$T/nodir"),
		a("mhl", "diff", "$T/nodir", "--want", "DIR", "$T/nodir"),
		a("mhl", "diff", "$T/card", "--ignore-file", "$T/nofile", "--want", "--ignore-file", "$T/nofile"),
		a("mhl", "info", "$T/file.txt", "--want", "DIR", "$T/file.txt"),
		a("mhl", "flatten", "$T/card", "--want", "--out"),
		a("mhl", "flatten", "$T/card", "--out", "$T/nodir/list.mhl", "--want", "--out", "$T/nodir/list.mhl"),
		a("mhl", "flatten", "$T/card", "--out", "$T/list.mhl", "--author-email", "x", "--want", "--author-email", `"x"`),

		// dit array (cmd_array.go). --level 0 with a blade given twice
		// exits 1 before the raid helper's change is merged.
		a("array", "create", "--level", "0", "$T/d1", "$T/d1", "--want", "$T/d1", "twice"),
		a("array", "create", "--level", "5", "$T/d1", "$T/d2", "$T/d3", "--want", "--level", "5"),
		a("array", "create", "--level", "four", "$T/d1", "$T/d2", "$T/d3", "--want", "--level", "four"),
		a("array", "create", "--stripe-unit", "wide", "$T/d1", "$T/d2", "$T/d3", "--want", "--stripe-unit", "wide"),
		a("array", "extract", "$T/d1", "--want", "--to"),
		a("array", "replace", "$T/d1", "--role", "x", "--blade", "$T/d2", "--want", "--role", "x"),
		a("array", "replace", "$T/d1", "--role", "0", "--want", "--blade"),
		a("array", "grow", "$T/d1", "--want", "grow", "dit array"),

		// the command tree itself
		a("offlaod", "--want", "offlaod"),
		a("help", "offlaod", "--want", "offlaod"),
		a("completion", "tcsh", "--want", "tcsh"),
		a("--versoin", "--want", "--versoin"),
	}
}

// TestEveryBadValueIsAUsageError runs every case of usageCases (181
// cases: every command of dit --help and each of its flags' bad values)
// in a folder of its own holding a card, destinations, a file and presets,
// with --db (DIT_DB) a catalog there that does not exist: each exits 2,
// its message names the flag (or argument) and the value, and nothing is
// created: no catalog, no folder, no file.
func TestEveryBadValueIsAUsageError(t *testing.T) {
	cases := usageCases()
	require.Equal(t, usageCaseCount, len(cases), "the count in the doc comment and the report")
	seen := map[string]bool{}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		require.False(t, seen[name], "case %q twice", name)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			dir := usageFolder(t)
			args := expand(c.args, dir)
			env := append(os.Environ(), "DIT_DB="+filepath.Join(dir, "c.db"), "DIT_SYNC_TO=", "DIT_SERVE_TOKEN=", "DIT_SIMULATE_SCALE=")
			env = append(env, expand(c.env, dir)...)
			before := tree(t, dir)
			r := e2e.RunDit(t, env, args...)
			require.Equal(t, e2e.ExitUsage, r.Code, "stdout %q\nstderr %q", e2e.Tail(r.Stdout), r.Stderr)
			for _, w := range expand(c.want, dir) {
				require.Contains(t, r.Stderr, w, "the message names the flag and the value")
			}
			require.NotContains(t, r.Stderr, "strconv.", "said in dit's words")
			require.Equal(t, before, tree(t, dir), "nothing created")
		})
	}
}

// usageCaseCount is how many bad command lines the test runs.
const usageCaseCount = 181

// usageFolder makes a case's folder: a card, three destination folders, a
// file, an empty file, topology-less presets (good, one whose destination
// is not there, one whose job name holds a /) and an empty folder for
// PATH (no rclone).
func usageFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"card/CLIPS", "d1", "d2", "d3", "empty"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	files := map[string]string{
		"card/CLIPS/A001C001.mov": "frames",
		"file.txt":                "not a card\n",
		"empty.txt":               "",
		"good.yaml":               "destinations: [d1]\n",
		"nodest.yaml":             "destinations: [nodest]\n",
		"slash.yaml":              "destinations: [d1]\nname: a/b\n",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// expand replaces $T in each of s with dir.
func expand(s []string, dir string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ReplaceAll(v, "$T", dir)
	}
	return out
}

// tree lists every path under dir with its size.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+fi.Mode().String()+" "+e2e.Itoa(fi.Size()))
		return nil
	}))
	return out
}
