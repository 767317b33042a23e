// Package testneeds splits dit's tests into the quick loop and the rest.
// Under go test -short (make test-short) no test builds a binary, installs
// a package or starts an outside program or server: a test that needs
// ffmpeg, rclone, a pip package, PostgreSQL, a browser or a build of dit
// is an end-to-end test, skipped there with a message, and run by make
// test (no -short). Outside -short, a tool that is not installed skips
// the test with a message naming what to install; it never fails it.
package testneeds

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EndToEnd skips t under -short: it needs what (a program, a server, a
// build), which the quick loop never starts.
func EndToEnd(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("end-to-end (needs %s): not under -short; make test runs it", what)
	}
}

// Tool skips t under -short, and where the program name is not on PATH
// (install says how to get it, e.g. "Debian: apt-get install ffmpeg");
// it returns the program's path.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	EndToEnd(t, name)
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (%s): skipping this test", name, install)
	}
	return p
}

// RepoRoot is the folder of go.mod above the working folder (a test's
// package folder): where the test helpers keep what they build and
// install (.cache/).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = up
	}
}
