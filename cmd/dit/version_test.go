package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/testneeds"
	"github.com/stretchr/testify/require"
)

// TestVersionStamped builds dit as make dist does (-trimpath, -s -w, the
// -X stamps) and checks that dit version, dit version --json and
// dit --version print the stamped values, and that gen-docs writes man
// pages carrying the version. It builds a binary: not under -short.
func TestVersionStamped(t *testing.T) {
	testneeds.EndToEnd(t, "a release build of dit")
	dir := t.TempDir()
	bin := filepath.Join(dir, "dit")
	const ver, commit, date = "v9.8.7-3-gabc1234-dirty", "abc1234def5678", "2026-01-02T03:04:05Z"
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
		"-s -w -X main.version="+ver+" -X main.commit="+commit+" -X main.date="+date, "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	run := func(args ...string) string {
		out, err := exec.Command(bin, args...).Output()
		require.NoError(t, err, "dit %v", args)
		return string(out)
	}
	var got buildInfo
	require.NoError(t, json.Unmarshal([]byte(run("version", "--json")), &got))
	require.Equal(t, buildInfo{Version: ver, Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		MD5: strings.TrimPrefix(hashing.MD5Implementation(), "md5: ")}, got)

	text := run("version")
	for _, want := range []string{"dit " + ver + "\n", "commit:   " + commit, "built:    " + date, runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
		require.Contains(t, text, want)
	}
	require.Equal(t, text, run("--version"), "dit --version prints what dit version prints")

	man := filepath.Join(dir, "man")
	run("gen-docs", man)
	page, err := os.ReadFile(filepath.Join(man, "dit-offload.1"))
	require.NoError(t, err)
	require.Contains(t, string(page), "dit "+ver)
	require.Contains(t, string(page), "Jan 2026", "the pages carry the build date, not today's")
	root, err := os.ReadFile(filepath.Join(man, "dit.1"))
	require.NoError(t, err)
	require.Contains(t, string(root), "~/.local/share/dit/catalog.db", "the page names the catalog's place for any user")
	require.NotContains(t, run("--help"), "gen-docs", "gen-docs is hidden")
	require.True(t, strings.HasPrefix(run("completion", "bash"), "# bash completion"))
}

// dit version says how this process computes MD5, as the hashing
// service chose it from the CPU's flags.
func TestVersionSaysTheMD5Implementation(t *testing.T) {
	b := currentBuild()
	want := strings.TrimPrefix(hashing.MD5Implementation(), "md5: ")
	if b.MD5 == "" || b.MD5 != want {
		t.Fatalf("md5 = %q, want %q", b.MD5, want)
	}
	if !strings.Contains(b.String(), "\nmd5:      "+want+"\n") {
		t.Fatalf("dit version prints no md5 line:\n%s", b)
	}
}
