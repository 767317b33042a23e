//go:build unix

package cloud

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// confRig is a test's S3 remote defined in an rclone configuration file
// (not by variables), and an rclone on PATH that logs its arguments.
type confRig struct {
	s         *s3test.Server
	bk        string // the rig's bucket on it
	dir, conf string
	log, path string // rclone's argument log; the PATH with the logging rclone first
	env       []string
	card      string
}

func newConfRig(t *testing.T, size string) *confRig {
	t.Helper()
	real, err := exec.LookPath("rclone")
	if err != nil {
		t.Skip("rclone is not installed (apt-get install rclone)")
	}
	g := &confRig{dir: t.TempDir()}
	g.s, g.bk = bucket(t)
	g.conf = filepath.Join(g.dir, "my rclone.conf")
	var b strings.Builder
	b.WriteString("[ditcloud]\n")
	var other []string // the server's environment that is not the remote's
	for _, kv := range g.s.Env {
		k, v, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(k, "RCLONE_CONFIG_DITCLOUD_"); ok {
			b.WriteString(strings.ToLower(rest) + " = " + v + "\n")
		} else {
			other = append(other, kv)
		}
	}
	require.NoError(t, os.WriteFile(g.conf, []byte(b.String()), 0o600))
	bin := filepath.Join(g.dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	g.log = filepath.Join(g.dir, "rclone-args.log")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "rclone"), []byte("#!/bin/sh\necho \"$*\" >> '"+g.log+"'\nexec '"+real+"' \"$@\"\n"), 0o755))
	g.path = bin + ":" + os.Getenv("PATH")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RCLONE_CONFIG") && !strings.HasPrefix(kv, "PATH=") {
			g.env = append(g.env, kv)
		}
	}
	g.env = append(append(g.env, other...), "DIT_DB="+filepath.Join(g.dir, "catalog.db"))
	r := e2e.RunDit(t, g.with(g.path), "testdata", "cards", "--out", filepath.Join(g.dir, "cards"), "--cards", "1", "--size", size, "--style", "clips")
	require.Equal(t, 0, r.Code, r.Stderr)
	g.card = filepath.Join(g.dir, "cards", "A001")
	return g
}

// with is the rig's environment with PATH path.
func (g *confRig) with(path string) []string {
	return append(append([]string(nil), g.env...), "PATH="+path)
}

func (g *confRig) dit(t *testing.T, args ...string) e2e.Result {
	t.Helper()
	return e2e.RunDit(t, g.with(g.path), args...)
}

// rcloneArgs are the argument lines rclone was run with since the last
// call.
func (g *confRig) rcloneArgs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(g.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	require.NoError(t, os.Remove(g.log))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func jobState(t *testing.T, g *confRig, id int64) string {
	t.Helper()
	show := g.dit(t, "job", "show", e2e.Itoa(id), "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var s summary
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s))
	return s.State
}

// A job started with --rclone-config and --cloud-bwlimit, killed during
// its upload: the resume (given neither) runs rclone with both, the limit
// in bytes (rclone's binary units cannot change it); a resume whose
// configuration file is gone, or whose rclone is missing, is refused
// before the job is touched, naming what to do; dit verify uses the
// job's configuration, and says when it is gone.
func TestResumeKeepsCloudSettings(t *testing.T) {
	t.Parallel()
	g := newConfRig(t, "12MB")
	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--rclone-config", g.conf, "--cloud-bwlimit", "2MB/s",
		"-d", "rclone:ditcloud:"+g.bk+"/keep", g.card)
	cmd.Env = g.with(g.path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var jobID int64
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev progress
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if ev.Type == "progress" && len(ev.Progress.Cards) > 0 && ev.Progress.Cards[0].BytesCopied > 0 {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	require.NotZero(t, jobID, stderr.String())
	started := g.rcloneArgs(t)
	require.NotEmpty(t, started)
	senders := 0
	for _, l := range started {
		if sends(l) {
			senders++
			require.True(t, strings.HasPrefix(l, "--config "+g.conf+" "), l)
			require.Contains(t, l, "--bwlimit 2000000B", "the limit in bytes: %s", l)
		}
	}
	require.NotZero(t, senders, "%q", started)
	require.Equal(t, "interrupted", jobState(t, g, jobID))

	// The configuration file gone: refused, the job as it was.
	require.NoError(t, os.Rename(g.conf, g.conf+".away"))
	res := g.dit(t, "offload", "--resume", e2e.Itoa(jobID))
	require.NotEqual(t, 0, res.Code)
	require.Contains(t, res.Stderr, "job "+e2e.Itoa(jobID)+" not resumed (left as it was): cloud destination rclone:ditcloud:"+g.bk+"/keep: the rclone configuration file "+g.conf+` does not exist, so rclone's configuration has no remote "ditcloud": put the file back`)
	require.Equal(t, "interrupted", jobState(t, g, jobID))
	v := g.dit(t, "verify", e2e.Itoa(jobID))
	require.NotEqual(t, 0, v.Code)
	require.Contains(t, v.Stderr, "the rclone configuration file "+g.conf+" does not exist")
	require.NotContains(t, v.Stderr, "once the remote answers")
	require.NotContains(t, v.Stderr, "dit: dit verify")
	require.NoError(t, os.Rename(g.conf+".away", g.conf))

	// rclone not on PATH: refused, the job as it was.
	res = e2e.RunDit(t, g.with(t.TempDir()), "offload", "--resume", e2e.Itoa(jobID))
	require.NotEqual(t, 0, res.Code)
	require.Contains(t, res.Stderr, "not resumed (left as it was): cloud destination rclone:ditcloud:"+g.bk+"/keep: rclone is not installed: install it")
	require.NotContains(t, res.Stderr, "looked for")
	require.Equal(t, "interrupted", jobState(t, g, jobID))

	g.rcloneArgs(t)
	res = g.dit(t, "offload", "--json", "--resume", e2e.Itoa(jobID))
	require.Equal(t, 0, res.Code, "%s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.True(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat)
	senders = 0
	for _, l := range g.rcloneArgs(t) {
		require.True(t, strings.HasPrefix(l, "--config "+g.conf+" "), "every rclone of the resume gets the job's configuration: %s", l)
		if sends(l) {
			senders++
			require.Contains(t, l, "--bwlimit 2000000B", l)
		}
	}
	require.NotZero(t, senders, "an rclone that sends")
	var copied struct {
		BytesCopied int64 `json:"bytes_copied"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout[strings.LastIndex(strings.TrimSpace(res.Stdout), "\n")+1:]), &copied))
	require.NotZero(t, copied.BytesCopied, "the resume sent what the kill left")

	v = g.dit(t, "verify", e2e.Itoa(jobID))
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)
	// Every object is checked by its ETag from a listing: nothing is said
	// read back; the history dit wrote is read back and checked.
	require.Contains(t, v.Stderr, "dit verify: job "+e2e.Itoa(jobID)+": checking 17 cloud copies\n")
	require.Contains(t, v.Stderr, "dit verify: job "+e2e.Itoa(jobID)+": 17/17 copies checked, by the storage's checksum (listing)\n")
	require.NotContains(t, v.Stderr, "read back (")
	require.Contains(t, v.Stdout, "the ASC MHL history dit wrote in the cloud: read back, its chain and the 1 manifests it lists agree (c4)")
	for _, l := range g.rcloneArgs(t) {
		require.True(t, strings.HasPrefix(l, "--config "+g.conf+" "), "dit verify uses the job's configuration: %s", l)
	}
}

// sends: the rclone run with the argument line l sends footage: an rcat
// of a file (the process path), or the job's rclone rcd (the write
// check's rcat is not one).
func sends(l string) bool {
	return strings.Contains(l, " rcd ") || strings.Contains(l, " rcat ") && !strings.Contains(l, ".dit-write-check-")
}

// --cloud-bwlimit takes dit's rate syntax (decimal): a value it cannot
// read is refused with exit 2 before anything starts, naming it and the
// syntax; rclone is not run.
func TestCloudBwLimitRefused(t *testing.T) {
	t.Parallel()
	g := newConfRig(t, "1MB")
	for _, bad := range []string{"20MB/x", "fast", "0"} {
		res := g.dit(t, "offload", "--rclone-config", g.conf, "--cloud-bwlimit", bad, "-d", "rclone:ditcloud:"+g.bk+"/bw", g.card)
		require.Equal(t, 2, res.Code, "%s\n%s", res.Stdout, res.Stderr)
		require.Contains(t, res.Stderr, `dit: --cloud-bwlimit: "`+bad+`": give a rate in bytes/s, decimal units, e.g. 20MB/s (20 000 000 bytes/s)`)
		require.Empty(t, g.rcloneArgs(t), "refused before rclone runs")
	}
	res := g.dit(t, "offload", "--help")
	require.Contains(t, res.Stdout, "decimal units: 20MB/s (or 20M) is 20 000 000 bytes/s")
}

// The CLI says what dit-gui says of a remote that is not in the
// configuration (cloud.CheckDest), not rclone's log.
func TestUnknownRemoteWords(t *testing.T) {
	t.Parallel()
	g := newConfRig(t, "1MB")
	res := g.dit(t, "offload", "--rclone-config", g.conf, "-d", "rclone:nosuch:shots/x", g.card)
	require.NotEqual(t, 0, res.Code)
	require.Equal(t, `dit: cloud destination rclone:nosuch:shots/x: rclone's configuration has no remote "nosuch" (it has ditcloud): add it with rclone config, or write one of those`,
		strings.TrimSpace(res.Stderr))
}

// --proxies with only cloud destinations is refused before the job
// starts (exit 2): proxies are made from a verified copy in a folder or a
// dit array, which the job would not write. Nothing is sent.
func TestProxiesCloudOnlyRefused(t *testing.T) {
	t.Parallel()
	g := newConfRig(t, "1MB")
	res := g.dit(t, "offload", "--rclone-config", g.conf, "-d", "rclone:ditcloud:"+g.bk+"/pc", "--proxies", "h264", "--proxies-to", "rclone:ditcloud:"+g.bk+"/pc", g.card)
	require.Equal(t, 2, res.Code, "%s\n%s", res.Stdout, res.Stderr)
	require.Contains(t, res.Stderr, "dit: --proxies h264 with only cloud destinations: proxies are made from a verified copy in a folder or a dit array, and this job writes none; add one with -d")
	for _, l := range g.rcloneArgs(t) {
		if !strings.Contains(l, ".dit-write-check-") { // the check's own object, removed
			require.NotContains(t, l, "rcat", "nothing sent")
		}
	}
	require.NotEqual(t, 0, g.dit(t, "job", "show", "1").Code, "no job recorded")
}
