package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/testneeds"
	"github.com/dit-org/dit/internal/verdict"
)

// Bin is the dit binary under test, built by [Main].
var Bin string

// Root is the repository's root folder (where go.mod is), found from the
// test's working folder (its package folder).
func Root(t *testing.T) string {
	t.Helper()
	dir, err := testneeds.RepoRoot()
	require.NoError(t, err)
	return dir
}

// ExitUsage is dit's documented exit code for a usage error (dit --help,
// docs/exit-codes.md).
const ExitUsage = 2

// Result is what a run of dit printed and its exit code.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Dit runs the dit binary with args and DIT_DB=db.
func Dit(t *testing.T, db string, args ...string) Result {
	t.Helper()
	return RunDit(t, append(os.Environ(), "DIT_DB="+db), args...)
}

// RunDit runs the dit binary with the environment env.
func RunDit(t *testing.T, env []string, args ...string) Result {
	t.Helper()
	return RunDitIn(t, "", env, args...)
}

// RunDitIn runs the dit binary in the folder dir ("": the test's) with
// the environment env: a test that needs dit's working folder elsewhere
// can still run in parallel (t.Chdir cannot).
func RunDitIn(t *testing.T, dir string, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(Bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return Result{o.String(), e.String(), code}
}

// Itoa is i in decimal (a job number as an argument).
func Itoa(i int64) string { return strconv.FormatInt(i, 10) }

// Tail is the last 2000 bytes of s (a long output in a failure message).
func Tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// StartAndKill starts dit offload with args (throttled), waits until it
// reports n files verified, kills it (kill -9: no hash list is written for
// an unfinished card) and returns the job's id.
func StartAndKill(t *testing.T, db string, n int, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(Bin, append([]string{"offload", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var jobID int64
	verified := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && verified < n {
		var ev offload.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if ev.Type == offload.EvFile && ev.State == verdict.Verified {
			verified++
		}
	}
	require.Equal(t, n, verified, "the job must report %d files verified before the kill", n)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	require.NotZero(t, jobID)
	return jobID
}

// DitCrash runs dit with extra environment (DIT_CRASH_AT, DIT_CRASH_LIST)
// and returns its output and whether SIGKILL ended it.
func DitCrash(t *testing.T, db string, env []string, args ...string) (Result, bool) {
	t.Helper()
	cmd := exec.Command(Bin, args...)
	cmd.Env = append(append(os.Environ(), "DIT_DB="+db), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := Result{Stdout: o.String(), Stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return r, true
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return r, false
}
