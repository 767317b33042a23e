package array

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// kill -9 while offloading to an array: the next read-write open recovers
// the array (uncommitted files rolled back), the resumed job completes,
// and the array extracts byte-identical and scrubs clean.
func TestKill9ToArrayThenResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--size", "30MB", "--style", "clips", "--seed", "11")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB")
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")
	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--throttle", "6MB/s", "-d", blades[0], a, b)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	var jobID int64
	verified := 0
	for sc.Scan() && verified < 2 {
		var ev struct {
			Type  string `json:"type"`
			JobID int64  `json:"job_id"`
			State string `json:"state"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if ev.Type == "file" && ev.State == "verified" {
			verified++
		}
	}
	require.Equal(t, 2, verified)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()

	res := e2e.Dit(t, db, "offload", "--resume", strconv.FormatInt(jobID, 10))
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	out := filepath.Join(dir, "restore")
	r = e2e.Dit(t, db, "array", "extract", blades[1], "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	for _, c := range []string{a, b} {
		require.Equal(t, e2e.Footage(e2e.Tree(t, c)), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(out, "day01", filepath.Base(c)))))
	}
	r = e2e.Dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "verify", strconv.FormatInt(jobID, 10))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
}
