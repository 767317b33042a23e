package main

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The profiling variables give what docs/testing.md says: a CPU profile
// pprof reads (gzip), an execution trace, the MD5 lanes' counters; a
// file that cannot be made is said, and the command goes on.
func TestProfilesFromEnv(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"DIT_CPUPROFILE": filepath.Join(dir, "cpu.prof"),
		"DIT_TRACE":      filepath.Join(dir, "trace.out"),
		"DIT_MD5STATS":   "1",
	}
	var errOut bytes.Buffer
	stop := startProfiles(func(k string) string { return env[k] }, &errOut)
	h := md5.New()
	h.Write(make([]byte, 1<<20))
	stop()
	stop() // a second stop (an interrupt beside the normal exit) does nothing

	f, err := os.Open(env["DIT_CPUPROFILE"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the CPU profile is not gzip (pprof's format): %v", err)
	}
	if _, err := io.ReadAll(zr); err != nil {
		t.Fatalf("the CPU profile is cut short: %v", err)
	}
	tr, err := os.ReadFile(env["DIT_TRACE"])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(tr, []byte("go 1.")) {
		t.Fatalf("the trace does not start with Go's trace header: %q", tr[:min(len(tr), 16)])
	}
	if got := errOut.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "md5: ") || !strings.Contains(got, "streams a batch") {
		t.Fatalf("DIT_MD5STATS: want one line of the lanes' counters, got %q", got)
	}

	errOut.Reset()
	env = map[string]string{"DIT_CPUPROFILE": filepath.Join(dir, "no-such-folder", "cpu.prof")}
	startProfiles(func(k string) string { return env[k] }, &errOut)()
	if !strings.Contains(errOut.String(), "DIT_CPUPROFILE") {
		t.Fatalf("a profile that cannot be made is not said: %q", errOut.String())
	}
}
