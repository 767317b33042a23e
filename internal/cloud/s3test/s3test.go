// Package s3test starts a real S3 server for tests: moto's server
// (moto[server] from PyPI, installed once into the repository's
// .cache/moto-venv under a file lock, as the e2e harness installs the ASC
// MHL reference tool), listening on a free port of 127.0.0.1 only, and
// gives the environment that defines an rclone remote on it
// (RCLONE_CONFIG_<NAME>_TYPE=s3, provider Other, its endpoint and keys),
// so tests drive the real rclone binary against it. The server is a child
// of the test process and goes with it.
//
// Under go test -short (the quick loop) the test is skipped: it is an
// end-to-end test. Where python3 or rclone is missing, or moto cannot be
// installed (PyPI out of reach), it is skipped with a message naming what
// to install.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// MotoVersion is the moto release the tests run.
const MotoVersion = "5.2.5"

// Server is a running S3 server and an rclone remote on it.
type Server struct {
	Port   int
	Remote string   // the rclone remote's name
	Env    []string // RCLONE_CONFIG_<REMOTE>_* defining it
	URL    string   // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a server for t (stopped at its end) with an rclone remote
// named remote on it and the bucket bucket created.
func Start(t testing.TB, remote, bucket string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone and moto's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed: skipping the cloud test (Debian: apt-get install rclone)")
	}
	s, err := StartServer(Moto(t), t.TempDir(), remote, bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartServer starts moto's server from the venv bin folder bin (its log
// in the folder dir) with an rclone remote named remote on it and the
// bucket bucket created ("" none). Stop stops it.
func StartServer(bin, dir, remote, bucket string) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(filepath.Join(bin, "moto_server"), "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	logf, err := os.CreateTemp(dir, "moto-*.log")
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setParentDeath(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting moto_server: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s := &Server{Port: port, Remote: remote, URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, exited: exited}
	if err := waitUp(s.URL, exited); err != nil {
		s.Stop()
		b, _ := os.ReadFile(logf.Name())
		return nil, fmt.Errorf("moto_server on %s: %v\n%s", s.URL, err, b)
	}
	up := strings.ToUpper(remote)
	s.Env = []string{
		"RCLONE_CONFIG_" + up + "_TYPE=s3",
		"RCLONE_CONFIG_" + up + "_PROVIDER=Other",
		"RCLONE_CONFIG_" + up + "_ENDPOINT=" + s.URL,
		"RCLONE_CONFIG_" + up + "_ACCESS_KEY_ID=testing",
		"RCLONE_CONFIG_" + up + "_SECRET_ACCESS_KEY=testing",
		"RCLONE_CONFIG_" + up + "_REGION=us-east-1",
		"RCLONE_CONFIG_" + up + "_FORCE_PATH_STYLE=true",
		// The server speaks plain HTTP: a CA bundle of the machine's
		// environment would only make the S3 client refuse to start.
		"AWS_CA_BUNDLE=",
	}
	if bucket != "" {
		mk := exec.Command("rclone", "mkdir", remote+":"+bucket)
		mk.Env = append(os.Environ(), s.Env...)
		if out, err := mk.CombinedOutput(); err != nil {
			s.Stop()
			return nil, fmt.Errorf("rclone mkdir %s:%s: %v\n%s", remote, bucket, err, out)
		}
	}
	return s, nil
}

// Stop stops the server.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	<-s.exited
}

// Rclone runs rclone with args against the server's remote and returns
// what it printed on stdout; it fails the test on an error.
func (s *Server) Rclone(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("rclone", args...)
	cmd.Env = append(os.Environ(), s.Env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rclone %s: %v\n%s%s", strings.Join(args, " "), err, out, errb.String())
	}
	return string(out)
}

// Moto returns the bin folder of a venv holding moto's server, creating
// it under the repository's .cache on first use (several test packages
// may ask at once: one installs, the others wait on the lock).
func Moto(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs moto's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: skipping the cloud test, which needs moto's S3 server (install python3 and python3-venv)")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Install(root, t.Logf)
	if err != nil {
		t.Skipf("skipping the cloud test: %v", err)
	}
	return bin
}

// Install installs moto[server] MotoVersion into root/.cache/moto-venv
// once (under a file lock) and returns the venv's bin folder.
func Install(root string, logf func(string, ...any)) (string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("python3 is not installed: moto's S3 server needs it (install python3 and python3-venv)")
	}
	venv := filepath.Join(root, ".cache", "moto-venv")
	bin := filepath.Join(venv, "bin")
	marker := filepath.Join(venv, ".dit-moto-"+MotoVersion)
	if _, err := os.Stat(marker); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(venv), 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(venv + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(marker); err == nil {
		return bin, nil
	}
	os.RemoveAll(venv)
	logf("installing moto[server]==%s into %s (once)", MotoVersion, venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		return "", fmt.Errorf("python3 -m venv %s failed (on Debian: apt-get install python3-venv): %v\n%s", venv, err, out)
	}
	cmd := exec.Command(filepath.Join(bin, "pip"), "install", "-q", "--disable-pip-version-check", "moto[server]=="+MotoVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pip install moto[server]==%s failed (PyPI must be reachable): %v\n%s", MotoVersion, err, out)
	}
	return bin, os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// repoRoot is the folder of go.mod above the working folder.
func repoRoot() (string, error) {
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

// waitUp waits until the server answers (or exits).
func waitUp(url string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/moto-api/", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("exited before it answered")
		case <-ctx.Done():
			return fmt.Errorf("no answer: %v", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
