package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// complete runs dit's __complete (what every shell's completion script
// calls) with args and DIT_DB=db: the values offered.
func complete(t *testing.T, db string, args ...string) (values []string) {
	t.Helper()
	t.Setenv("DIT_DB", db)
	var out, errb bytes.Buffer
	g := &GlobalOptions{stdout: &out, stderr: &errb}
	root := newRootCommand(g)
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(append([]string{"__complete"}, args...))
	require.NoError(t, root.Execute(), errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NotEmpty(t, lines)
	last := lines[len(lines)-1]
	require.True(t, strings.HasPrefix(last, ":"), "the directive ends the output: %q", out.String())
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	return values
}

// Flag values: each flag offers the values dit takes, and no file names.
func TestCompletionOffersFlagValues(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"offload", "--hash", ""}, []string{"md5", "xxh64", "sha1", "xxh3", "xxh128", "c4", "blake3"}},
		{[]string{"offload", "--hash", "xxh64,"}, []string{"xxh64,md5", "xxh64,blake3"}},
		{[]string{"offload", "--verify", ""}, []string{"dest", "source+dest", "none"}},
		{[]string{"offload", "--verify-hashes", ""}, []string{"fastest", "all"}},
		{[]string{"offload", "--mhl", ""}, []string{"asc", "v1", "both", "none"}},
		{[]string{"offload", "--on-conflict", ""}, []string{"fail", "skip", "rename"}},
		{[]string{"offload", "--drive-health", ""}, []string{"warn", "refuse", "off"}},
		{[]string{"offload", "--proxies", ""}, []string{"prores-proxy", "h264", "prores-proxy,burnin"}},
		{[]string{"plan", "--verify", ""}, []string{"dest", "source+dest", "none"}},
		{[]string{"plan", "--fit", ""}, []string{"cfast2", "axs"}},
		{[]string{"report", "1", "--format", ""}, []string{"csv", "json", "html", "pdf", "clips", "ale", "proxies"}},
		{[]string{"verify", "1", "--verify-hashes", ""}, []string{"fastest", "all"}},
		{[]string{"hash", "--hash", ""}, []string{"md5", "blake3"}},
		{[]string{"mhl", "create", "--hash", ""}, []string{"md5", "xxh64", "c4"}},
		{[]string{"mhl", "verify", "--verify-hashes", ""}, []string{"fastest", "all"}},
		{[]string{"testdata", "cards", "--style", ""}, []string{"clips", "frames", "dng", "mixed"}},
		{[]string{"speedtest", "--frame", ""}, []string{"4k-rgba16", "hd-rgb10"}},
		{[]string{"array", "create", "--level", ""}, []string{"0", "4"}},
	} {
		got := complete(t, db, c.args...)
		for _, w := range c.want {
			require.Contains(t, got, w, "dit %s", strings.Join(c.args, " "))
		}
	}
	got := complete(t, db, "mhl", "create", "--hash", "")
	require.NotContains(t, got, "blake3", "not an ASC MHL hash")
	got = complete(t, db, "offload", "--hash", "xxh64,md5,")
	require.NotContains(t, got, "xxh64,md5,md5", "a hash given is not offered again")
	require.NoFileExists(t, db, "completion creates no catalog")
}

// Job numbers: job show, verify, report, offload --resume and catalog
// sync --job offer the catalog's jobs, newest first, with their names.
func TestCompletionOffersJobNumbers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	host, _ := os.Hostname()
	for _, name := range []string{"Day01", "Tag 2 Drehort Köln"} {
		j := &catalog.Job{Name: name, State: catalog.JobDone, Host: host, Hashes: "md5", VerifyMode: "dest",
			VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Unix(1e9, 0), Finished: time.Unix(1e9+60, 0)}
		require.NoError(t, cat.CreateJob(j))
	}
	require.NoError(t, cat.Close())
	for _, args := range [][]string{
		{"job", "show", ""}, {"verify", ""}, {"report", ""}, {"offload", "--resume", ""}, {"catalog", "sync", "--job", ""},
	} {
		got := complete(t, db, args...)
		require.Equal(t, []string{"2", "1"}, got, "dit %s", strings.Join(args, " "))
	}
	var out bytes.Buffer
	g := &GlobalOptions{stdout: &out, stderr: &out}
	root := newRootCommand(g)
	root.SetOut(&out)
	root.SetArgs([]string{"__complete", "job", "show", ""})
	require.NoError(t, root.Execute())
	require.Contains(t, out.String(), "2\tTag 2 Drehort Köln (done)")
	got := complete(t, db, "job", "show", "1", "")
	require.Empty(t, got, "dit job show takes one job")
	missing := filepath.Join(t.TempDir(), "missing.db")
	got = complete(t, missing, "verify", "")
	require.Empty(t, got)
	require.NoFileExists(t, missing, "completion creates no catalog")
}
