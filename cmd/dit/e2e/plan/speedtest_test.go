package plan

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/faultfuse"
	"github.com/dit-org/dit/internal/speedtest"
)

func TestSpeedtestFolderAndCard(t *testing.T) {
	dir, cards := t.TempDir(), t.TempDir()
	db := filepath.Join(t.TempDir(), "c.db")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "40MB", "--seed", "31")
	require.Zero(t, r.Code, r.Stderr)
	card := filepath.Join(cards, "A001")
	before := e2e.Tree(t, card)

	chart := filepath.Join(t.TempDir(), "speed.png")
	r = e2e.Dit(t, db, "speedtest", "--size", "32MB", "--streams", "2", "--json", "--chart", chart, dir, card)
	require.Zero(t, r.Code, r.Stderr)
	var rs []speedtest.Result
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rs), r.Stdout)
	require.Len(t, rs, 2)
	folder, c := rs[0], rs[1]
	require.Equal(t, speedtest.Folder, folder.Kind)
	require.NotNil(t, folder.Write)
	require.GreaterOrEqual(t, folder.Write.Bytes, int64(32e6))
	require.Equal(t, folder.Write.Bytes, folder.Read.Bytes)
	require.Len(t, folder.Read.Curve, speedtest.DefaultParts)
	// The card was only read: no write phase, its tree unchanged, and
	// the message says why.
	require.Equal(t, speedtest.Card, c.Kind)
	require.Nil(t, c.Write)
	require.Contains(t, r.Stderr, "looks like a camera card")
	require.Equal(t, before, e2e.Tree(t, card))
	ents, _ := os.ReadDir(dir)
	require.Empty(t, ents, "test files left in the folder")
	for _, n := range []string{"speed-1.png", "speed-2.png"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(chart), n))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(b), "\x89PNG"), n)
	}

	// Text output names the rates; an existing chart is never replaced.
	os.WriteFile(chart, []byte("mine"), 0o644)
	r = e2e.Dit(t, db, "speedtest", "--size", "16MB", "--chart", chart, dir)
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, chart)
	require.Contains(t, r.Stderr, "exists already")
	b, _ := os.ReadFile(chart)
	require.Equal(t, "mine", string(b))
	r = e2e.Dit(t, db, "speedtest", "--size", "16MB", dir)
	require.Zero(t, r.Code, r.Stderr)
	require.Regexp(t, `write +[0-9.]+ [MG]B/s`, r.Stdout)
	require.Regexp(t, `read +[0-9.]+ [MG]B/s`, r.Stdout)
}

func TestSpeedtestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "c.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--size", "lots", dir}, `--size "lots"`},
		{[]string{"--frame", "8k-potato", dir}, "4k-rgba16"},
		{[]string{"--block", "1MB", "--frame", "4k-rgba16", dir}, "give one"},
		{[]string{"--streams", "0", dir}, "--streams 0"},
		{[]string{"--chart", "x.jpg", dir}, ".png"},
		{[]string{filepath.Join(dir, "nope")}, filepath.Join(dir, "nope")},
		{[]string{"--size", "1MB", dir}, "too small"},
	} {
		r := e2e.Dit(t, db, append([]string{"speedtest"}, c.args...)...)
		require.Equal(t, 2, r.Code, "%v: %s", c.args, r.Stderr)
		require.Contains(t, r.Stderr, c.want, "%v", c.args)
	}
	ents, _ := os.ReadDir(dir)
	require.Empty(t, ents)
	_, err := os.Stat(db)
	require.True(t, os.IsNotExist(err), "speedtest created a catalog")
}

// Ctrl-C during a test stops it, exits 130 and removes its files.
func TestSpeedtestInterruptRemovesFiles(t *testing.T) {
	fs := faultfuse.Mount(t, t.TempDir())
	fs.SlowWritesAfter(4<<20, 2e6) // 30 s for the test: stopped long before
	cmd := exec.Command(e2e.Bin, "speedtest", "--size", "64MB", fs.Dir())
	cmd.Env = append(os.Environ(), "DIT_DB="+filepath.Join(t.TempDir(), "c.db"))
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	// Wait for the test file to grow past the fast part.
	for {
		m, _ := filepath.Glob(filepath.Join(fs.Backing(), ".dit-speedtest-*"))
		if len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 4<<20 {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	var msg strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		msg.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "exit: %v", err)
	require.Equal(t, 130, ee.ExitCode(), msg.String())
	require.Contains(t, msg.String(), "removed")
	m, _ := filepath.Glob(filepath.Join(fs.Backing(), ".dit-speedtest-*"))
	require.Empty(t, m)
}

// After dit speedtest of a destination, dit plan of a job to it uses the
// measured rate and says so; the catalog keeps the test per volume.
func TestPlanUsesTheMeasuredRate(t *testing.T) {
	dest, cards := t.TempDir(), t.TempDir()
	db := filepath.Join(t.TempDir(), "c.db")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "20MB", "--seed", "32")
	require.Zero(t, r.Code, r.Stderr)
	r = e2e.Dit(t, db, "plan", "--no-cpu", "-d", dest, filepath.Join(cards, "A001"))
	require.NotContains(t, r.Stdout+r.Stderr, "measured rates used")

	r = e2e.Dit(t, db, "speedtest", "--json", "--size", "32MB", dest)
	require.Zero(t, r.Code, r.Stderr)
	var rs []speedtest.Result
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rs))
	want := rs[0].Write.Rate
	if c := rs[0].Write.Cliff; c != nil {
		want = c.After
	}

	r = e2e.Dit(t, db, "plan", "--no-cpu", "--json", "-d", dest, filepath.Join(cards, "A001"))
	require.Zero(t, r.Code, r.Stderr)
	var p struct {
		Notes []string `json:"notes"`
		Dests []struct {
			Name     string  `json:"name"`
			Capacity float64 `json:"capacity_bytes_per_s"`
		} `json:"destinations"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &p), r.Stdout)
	require.Contains(t, strings.Join(p.Notes, "\n"), "measured rates used", r.Stdout)
	require.NotContains(t, strings.Join(p.Notes, "\n"), "write rate of")
	require.Len(t, p.Dests, 1)
	require.InDelta(t, want, p.Dests[0].Capacity, want*1e-9, "the destination's capacity is the measured write rate")
	t.Logf("measured %.0f MB/s; plan: %s", want/1e6, r.Stdout)
}
