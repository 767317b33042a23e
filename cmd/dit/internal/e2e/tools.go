package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// AscmhlVersion is the ASC reference tool the interop test runs.
const AscmhlVersion = "1.2"

// ReferenceTool returns the bin folder of a venv holding ascmhl, creating
// it under the repository's .cache (gitignored) on first use. It skips the
// test where python3 is absent or the install fails (no PyPI).
func ReferenceTool(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the interop test with the ASC MHL reference tool (install python3 to run it)")
	}
	venv := filepath.Join(Root(t), ".cache", "ascmhl-venv")
	bin := filepath.Join(venv, "bin")
	marker := filepath.Join(venv, ".dit-ascmhl-"+AscmhlVersion)
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	// Several test packages may ask at once: one installs, the others
	// wait for it and find the marker.
	require.NoError(t, os.MkdirAll(filepath.Dir(venv), 0o755))
	defer lockFile(t, venv+".lock")()
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	t.Logf("installing ascmhl==%s into %s (once)", AscmhlVersion, venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): skipping: %v\n%s", venv, err, out)
	}
	cmd := exec.Command(filepath.Join(bin, "pip"), "install", "-q", "--disable-pip-version-check", "ascmhl=="+AscmhlVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("pip install ascmhl==%s failed (PyPI must be reachable): skipping the check with the ASC MHL reference tool: %v\n%s", AscmhlVersion, err, out)
	}
	require.NoError(t, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644))
	return bin
}

// ToolRun is what an external tool printed (stdout and stderr) and its
// exit code.
type ToolRun struct {
	Out  string
	Code int
}

// RunTool runs the tool name with args.
func RunTool(t *testing.T, name string, args ...string) ToolRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return ToolRun{b.String(), code}
}

// refVerify runs the reference tool's verify command (the one
// ascmhl-debug verify runs, with the same exit codes) on each folder of
// argv in one Python process, and prints, as JSON, each folder's exit
// code and output. ascmhl-debug itself takes one folder a run and
// imports click, requests and lxml and asks GitHub for its latest
// version each time: about a second a folder on a loaded 2-core VM.
const refVerify = `import contextlib, io, json, sys, traceback
from ascmhl import commands
res = []
for d in sys.argv[1:]:
    buf, code = io.StringIO(), 0
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            commands.verify.main(args=[d], prog_name="ascmhl-debug verify")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
    res.append({"dir": d, "code": code, "out": buf.getvalue()})
json.dump(res, sys.stdout)
`

// ReferenceVerify runs ascmhl-debug verify (the ASC reference tool from
// [ReferenceTool]'s bin folder tool) on each of dirs and returns each
// one's output and exit code, in the order of dirs: in one Python
// process per core, each verifying its share of dirs one after another.
func ReferenceVerify(t *testing.T, tool string, dirs []string) []ToolRun {
	t.Helper()
	runs := make([]ToolRun, len(dirs))
	n := min(runtime.NumCPU(), len(dirs))
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := i*len(dirs)/n, (i+1)*len(dirs)/n
		wg.Go(func() { errs[i] = refVerifyRun(tool, dirs[lo:hi], runs[lo:hi]) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return runs
}

// refVerifyRun verifies dirs in one Python process and puts each one's
// result into runs.
func refVerifyRun(tool string, dirs []string, runs []ToolRun) error {
	cmd := exec.Command(filepath.Join(tool, "python"), append([]string{"-c", refVerify}, dirs...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the ASC reference tool's verify: %v\n%s", err, e.String())
	}
	var res []struct {
		Dir  string `json:"dir"`
		Code int    `json:"code"`
		Out  string `json:"out"`
	}
	if err := json.Unmarshal(o.Bytes(), &res); err != nil || len(res) != len(dirs) {
		return fmt.Errorf("the ASC reference tool's verify of %d folders printed: %v\n%s%s", len(dirs), err, o.String(), e.String())
	}
	for i, r := range res {
		if r.Dir != dirs[i] {
			return fmt.Errorf("the ASC reference tool's verify: result %d is of %s, not %s", i, r.Dir, dirs[i])
		}
		runs[i] = ToolRun{Out: r.Out, Code: r.Code}
	}
	return nil
}

// OTIOPython returns a Python with OpenTimelineIO and its ALE adapter (the
// reader Resolve-adjacent tools use), installed once from PyPI into the
// repository's .cache/otio-venv (the one internal/format/ale's test
// uses). It skips the test where python3 is absent or the install fails
// (no PyPI).
func OTIOPython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the OpenTimelineIO ALE check")
	}
	venv := filepath.Join(Root(t), ".cache", "otio-venv")
	marker := filepath.Join(venv, otioMarker)
	bin := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(venv), 0o755))
	defer lockFile(t, venv+".lock")() // internal/format/ale's test takes it too
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): skipping: %v\n%s", venv, err, out)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "pip"), append([]string{"install", "-q", "--disable-pip-version-check"},
		otioPackages...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("pip install opentimelineio otio-ale-adapter failed (PyPI must be reachable): skipping the OpenTimelineIO ALE check: %v\n%s", err, out)
	}
	require.NoError(t, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644))
	return bin
}

// The OpenTimelineIO venvs: what is installed, and the marker a venv
// holds once it is (.ci/run installs the same before make test).
const (
	otioMarker          = ".dit-otio-0.18.1-ale-1.1.0"
	otioEditorialMarker = ".dit-otio-0.18.1-cmx3600-1.0.0-fcpx-1.0.0"
)

var (
	otioPackages          = []string{"opentimelineio==0.18.1", "otio-ale-adapter==1.1.0"}
	otioEditorialPackages = []string{"opentimelineio==0.18.1", "otio-cmx3600-adapter==1.0.0", "otio-fcpx-xml-adapter==1.0.0"}
)

// OTIOEditorialPython returns a Python with OpenTimelineIO and its CMX
// 3600 EDL and FCPXML adapters, installed once from PyPI into the
// repository's .cache/otio-edl-venv. It skips the test where python3 is absent or the
// install fails (no PyPI).
func OTIOEditorialPython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the OpenTimelineIO EDL and FCPXML checks")
	}
	venv := filepath.Join(Root(t), ".cache", "otio-edl-venv")
	marker := filepath.Join(venv, otioEditorialMarker)
	bin := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(venv), 0o755))
	defer lockFile(t, venv+".lock")()
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): skipping: %v\n%s", venv, err, out)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "pip"), append([]string{"install", "-q", "--disable-pip-version-check"},
		otioEditorialPackages...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("pip install opentimelineio otio-cmx3600-adapter otio-fcpx-xml-adapter failed (PyPI must be reachable): skipping the OpenTimelineIO EDL and FCPXML checks: %v\n%s", err, out)
	}
	require.NoError(t, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644))
	return bin
}
