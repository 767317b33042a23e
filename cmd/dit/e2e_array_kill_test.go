package main

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
)

// kill -9 while offloading to an array: the next read-write open recovers
// the array (uncommitted files rolled back), the resumed job completes,
// and the array extracts byte-identical and scrubs clean.
func TestKill9ToArrayThenResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--size", "30MB", "--style", "clips", "--seed", "11")
	require.Equal(t, 0, r.code, r.stderr)
	blades := newBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB")
	a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")
	cmd := exec.Command(ditBin, "offload", "--json", "--name", "day01", "--throttle", "6MB/s", "-d", blades[0], a, b)
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

	res := dit(t, db, "offload", "--resume", strconv.FormatInt(jobID, 10))
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	out := filepath.Join(dir, "restore")
	r = dit(t, db, "array", "extract", blades[1], "--to", out)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	for _, c := range []string{a, b} {
		require.Equal(t, footage(tree(t, c)), withoutHistory(tree(t, filepath.Join(out, "day01", filepath.Base(c)))))
	}
	r = dit(t, db, "array", "scrub", blades[2])
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = dit(t, db, "verify", strconv.FormatInt(jobID, 10))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
