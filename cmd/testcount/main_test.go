package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
	"github.com/stretchr/testify/require"
)

// A stream as go test -json writes it: a package that passes (with a
// skipped test and a subtest), one without tests, one with a failed test,
// one that does not build.
const stream = `{"Action":"start","Package":"ex/a"}
{"Action":"run","Package":"ex/a","Test":"TestOne"}
{"Action":"output","Package":"ex/a","Test":"TestOne","Output":"=== RUN   TestOne\n"}
{"Action":"output","Package":"ex/a","Test":"TestOne","Output":"    a_test.go:9: a log line of a passing test\n"}
{"Action":"run","Package":"ex/a","Test":"TestOne/sub"}
{"Action":"output","Package":"ex/a","Test":"TestOne/sub","Output":"=== RUN   TestOne/sub\n"}
{"Action":"pass","Package":"ex/a","Test":"TestOne/sub"}
{"Action":"output","Package":"ex/a","Test":"TestOne","Output":"--- PASS: TestOne (0.00s)\n"}
{"Action":"pass","Package":"ex/a","Test":"TestOne"}
{"Action":"run","Package":"ex/a","Test":"TestFUSE"}
{"Action":"output","Package":"ex/a","Test":"TestFUSE","Output":"=== RUN   TestFUSE\n"}
{"Action":"output","Package":"ex/a","Test":"TestFUSE","Output":"    a_test.go:20: no /dev/fuse here\n"}
{"Action":"output","Package":"ex/a","Test":"TestFUSE","Output":"--- SKIP: TestFUSE (0.00s)\n"}
{"Action":"skip","Package":"ex/a","Test":"TestFUSE"}
{"Action":"output","Package":"ex/a","Output":"stray line of TestMain\n"}
{"Action":"output","Package":"ex/a","Output":"PASS\n"}
{"Action":"output","Package":"ex/a","Output":"ok  \tex/a\t0.01s\n"}
{"Action":"pass","Package":"ex/a","Elapsed":3.25}
{"Action":"output","Package":"ex/none","Output":"?   \tex/none\t[no test files]\n"}
{"Action":"skip","Package":"ex/none"}
{"Action":"run","Package":"ex/b","Test":"TestGood"}
{"Action":"output","Package":"ex/b","Test":"TestGood","Output":"=== RUN   TestGood\n"}
{"Action":"output","Package":"ex/b","Test":"TestGood","Output":"--- PASS: TestGood (0.00s)\n"}
{"Action":"pass","Package":"ex/b","Test":"TestGood","Elapsed":1.5}
{"Action":"run","Package":"ex/b","Test":"TestBad"}
{"Action":"output","Package":"ex/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"ex/b","Test":"TestBad","Output":"    b_test.go:7: want 1, got 2\n"}
{"Action":"output","Package":"ex/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"ex/b","Test":"TestBad","Elapsed":7.25}
{"Action":"output","Package":"ex/b","Output":"FAIL\n"}
{"Action":"output","Package":"ex/b","Output":"FAIL\tex/b\t0.02s\n"}
{"Action":"fail","Package":"ex/b","Elapsed":12.5}
{"ImportPath":"ex/c","Action":"build-output","Output":"c.go:3:1: syntax error\n"}
{"ImportPath":"ex/c","Action":"build-fail"}
{"Action":"output","Package":"ex/c","Output":"FAIL\tex/c [build failed]\n"}
{"Action":"fail","Package":"ex/c"}
go: a message that is not JSON
`

func TestCounterPrintsAsGoTestAndCounts(t *testing.T) {
	var out bytes.Buffer
	c := newCounter(&out)
	require.NoError(t, c.read(strings.NewReader(stream)))
	c.summary(&out, "unit", true)
	got := out.String()
	for _, want := range []string{
		"ok  \tex/a\t0.01s\n",
		"?   \tex/none\t[no test files]\n",
		"    b_test.go:7: want 1, got 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\tex/b\t0.02s\n",
		"c.go:3:1: syntax error\n",
		"FAIL\tex/c [build failed]\n",
		"go: a message that is not JSON\n",
		"skipped:\n  ex/a TestFUSE: a_test.go:20: no /dev/fuse here\n",
		"slowest packages: ex/b 12.5s, ex/a 3.2s\nslowest tests: ex/b TestBad 7.2s, ex/b TestGood 1.5s",
	} {
		require.Contains(t, got, want)
	}
	printed := strings.Split(got, "slowest packages:")[0] // the lists name every test
	for _, not := range []string{"a log line of a passing test", "stray line", "=== RUN", "--- PASS", "TestGood"} {
		require.NotContains(t, printed, not, "what go test leaves out without -v")
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	require.Equal(t, "== unit: FAIL: 5 tests run, 3 passed, 1 failed, 1 skipped (1 package ok, 2 failed (1 did not build), 1 without tests)",
		lines[len(lines)-1])
	require.True(t, c.failed())

	out.Reset()
	c = newCounter(&out)
	require.NoError(t, c.read(strings.NewReader(strings.SplitN(stream, `{"Action":"run","Package":"ex/b"`, 2)[0])))
	c.summary(&out, "unit", false)
	require.False(t, c.failed())
	require.True(t, strings.HasSuffix(out.String(), "== unit: PASS: 3 tests run, 2 passed, 0 failed, 1 skipped (1 package ok, 1 without tests)\n"), out.String())
}

// Many tests skipped for one reason are one line, counted per package;
// a reason given by a few tests lists them by name.
func TestCounterGroupsSkipsOfOneReason(t *testing.T) {
	var in strings.Builder
	skipped := func(pkg, test, why string) {
		fmt.Fprintf(&in, `{"Action":"run","Package":%q,"Test":%q}`+"\n", pkg, test)
		fmt.Fprintf(&in, `{"Action":"output","Package":%q,"Test":%q,"Output":"    x_test.go:1: %s\n"}`+"\n", pkg, test, why)
		fmt.Fprintf(&in, `{"Action":"skip","Package":%q,"Test":%q}`+"\n", pkg, test)
	}
	for i := range 5 {
		skipped("ex/cat", fmt.Sprintf("TestT%d/postgres", i), "no server")
	}
	skipped("ex/serve", "TestS/postgres", "no server")
	skipped("ex/cat", "TestFFmpeg", "no ffmpeg")
	skipped("ex/ui", "TestFFmpeg", "no ffmpeg")
	var out bytes.Buffer
	c := newCounter(&out)
	require.NoError(t, c.read(strings.NewReader(in.String())))
	c.summary(&out, "unit", true)
	require.Contains(t, out.String(), "skipped:\n"+
		"  6 tests (ex/cat 5, ex/serve 1): x_test.go:1: no server\n"+
		"  ex/cat TestFFmpeg: x_test.go:1: no ffmpeg\n"+
		"  ex/ui TestFFmpeg: x_test.go:1: no ffmpeg\n")
	require.Contains(t, out.String(), "8 tests run, 0 passed, 0 failed, 8 skipped")
}

// A package whose test binary never ended (killed, -timeout): what it said
// is printed and it counts as failed.
func TestCounterShowsAPackageThatDidNotFinish(t *testing.T) {
	var out bytes.Buffer
	c := newCounter(&out)
	require.NoError(t, c.read(strings.NewReader(`{"Action":"run","Package":"ex/h","Test":"TestHang"}
{"Action":"output","Package":"ex/h","Test":"TestHang","Output":"    h_test.go:5: still waiting for the job\n"}
`)))
	c.summary(&out, "unit", true)
	require.Contains(t, out.String(), "still waiting for the job\ntestcount: ex/h did not finish\n")
	require.True(t, c.failed())
	require.Contains(t, out.String(), "failed:\n  ex/h TestHang (did not finish: timed out or crashed)\n")
	require.Contains(t, out.String(), "== unit: FAIL: 1 test run, 0 passed, 1 failed, 0 skipped (0 packages ok, 1 failed)")
}

// A real go test run with a test that fails and one that times out:
// both are counted failed and named, the one that timed out too (go test
// ends its package with "fail" and never ends the test).
func TestCounterNamesATimedOutTest(t *testing.T) {
	testneeds.EndToEnd(t, "go test of a sample package")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module ex\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(`package ex

import (
	"testing"
	"time"
)

func TestFails(t *testing.T) { t.Fatal("deliberately") }

func TestHangs(t *testing.T) { time.Sleep(time.Hour) }
`), 0o644))
	cmd := exec.Command(gobin, "test", "-json", "-count=1", "-timeout", "3s", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var out bytes.Buffer
	c := newCounter(&out)
	require.NoError(t, c.read(stdout))
	cmd.Wait()
	c.summary(&out, "unit", true)
	got := out.String()
	require.True(t, c.failed())
	require.Contains(t, got, "failed:\n  ex TestFails\n  ex TestHangs (did not finish: timed out or crashed)\n", got)
	require.Contains(t, got, "== unit: FAIL: 2 tests run, 0 passed, 2 failed, 0 skipped", got)
}
