package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// Bin is the dit binary under test, built by [Main].
var Bin string

// Main is an end-to-end test package's TestMain: it builds cmd/dit
// (without cgo, as released) into a temp folder once, sets [Bin], runs the
// package's tests and removes the binary.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "dit-e2e-bin")
	if err != nil {
		panic(err)
	}
	Bin = filepath.Join(dir, "dit")
	cmd := exec.Command("go", "build", "-o", Bin, "github.com/dit-org/dit/cmd/dit")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic("building dit: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Root is the repository's root folder (where go.mod is), found from the
// test's working folder (its package folder).
func Root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		require.NotEqual(t, dir, up, "no go.mod above the test's folder")
		dir = up
	}
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
	cmd := exec.Command(Bin, args...)
	cmd.Env = env
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
