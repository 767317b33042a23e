// Package s3test starts a real S3 server for tests, listening on a free
// port of 127.0.0.1 only, and gives the environment that defines an
// rclone remote on it (RCLONE_CONFIG_<NAME>_TYPE=s3, provider Other, its
// endpoint and keys), so tests drive the real rclone binary against it.
// The server is a child of the test process and goes with it.
//
// Start runs rclone's own S3 server (rclone serve s3, RcloneVersion, over
// a folder of the test's: each bucket a folder in it) with --auth-key, so
// that every request's signature is checked: a wrong secret or an unknown
// key is refused as AWS refuses it. That rclone is built once from its Go
// module into the repository's .cache/rclone-server-VERSION under a file
// lock (the rcloneserver folder: a module of its own holding only serve
// s3 and the local backend, so dit's go.mod holds none of rclone's
// dependencies; Debian's rclone 1.60 has no serve s3).
//
// StartAWS runs moto's server instead (moto[server] from PyPI, installed
// once into .cache/moto-venv under a file lock) for the few tests that
// need what only AWS does: a multipart object's ETag "HEX-N", which is no
// MD5 of the object (rclone serve s3 gives every object its MD5).
//
// Under go test -short (the quick loop) the test is skipped: it is an
// end-to-end test. Where go, python3 or rclone is missing, or the server
// cannot be built or installed (the module proxy or PyPI out of reach),
// it is skipped with a message naming what to install.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/dit-org/dit/internal/tether"
)

// RcloneVersion is the rclone release whose serve s3 the tests run (the
// rcloneserver module's go.mod requires it).
const RcloneVersion = "v1.76.0"

// MotoVersion is the moto release StartAWS runs.
const MotoVersion = "5.2.5"

// Server is a running S3 server and an rclone remote on it.
type Server struct {
	Port   int
	Remote string   // the rclone remote's name
	Env    []string // RCLONE_CONFIG_<REMOTE>_* defining it
	URL    string   // http://127.0.0.1:PORT
	// AccessKey and SecretKey are the credentials the server accepts
	// (random for an rclone server, which checks them; moto's accepts any).
	AccessKey, SecretKey string
	// Dir is the folder an rclone server serves: each bucket a folder in
	// it, each object a file ("" moto's).
	Dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts an S3 server for t (stopped at its end) with an rclone
// remote named remote on it and the bucket bucket created: moto's (see
// StartAWS). rclone serve s3 (StartChecked) answered 500 at times when
// several uploads created one new folder at once (docs/cloud.md), which
// no real storage does: the tests that need no checked keys run on moto.
func Start(t testing.TB, remote, bucket string) *Server {
	t.Helper()
	return StartAWS(t, remote, bucket)
}

// StartChecked starts an rclone S3 server (rclone serve s3 --auth-key)
// for t, which checks every request's signature: the tests of wrong,
// unknown and missing keys.
func StartChecked(t testing.TB, remote, bucket string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone and rclone's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed: skipping the cloud test (Debian: apt-get install rclone)")
	}
	s, err := StartServer(Rclone(t), t.TempDir(), remote, bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartReadOnly is StartChecked for a server that refuses every write
// (StartServerReadOnly): keys that may read the bucket but not write to
// it. rclone serve s3 answers such a write 500 InternalError, where AWS
// answers 403 AccessDenied.
func StartReadOnly(t testing.TB, remote, bucket string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone and rclone's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed: skipping the cloud test (Debian: apt-get install rclone)")
	}
	s, err := StartServerReadOnly(Rclone(t), t.TempDir(), remote, bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartAWS is Start with moto's server, which gives a multipart object
// AWS's ETag (HEX-N, no MD5 of the object). Its keys are not checked.
func StartAWS(t testing.TB, remote, bucket string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone and moto's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed: skipping the cloud test (Debian: apt-get install rclone)")
	}
	s, err := StartMoto(Moto(t), t.TempDir(), remote, bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartServer starts the rclone S3 server bin (Install's) serving a new
// folder under dir (its log in dir too), with an rclone remote named
// remote on it and the bucket bucket created ("" none). Stop stops it.
func StartServer(bin, dir, remote, bucket string) (*Server, error) {
	return startRclone(bin, dir, remote, bucket)
}

// StartServerReadOnly is StartServer for a server that refuses every
// write (rclone serve s3 --read-only): a bucket the keys cannot write.
func StartServerReadOnly(bin, dir, remote, bucket string) (*Server, error) {
	return startRclone(bin, dir, remote, bucket, "--read-only")
}

func startRclone(bin, dir, remote, bucket string, extra ...string) (*Server, error) {
	data, err := os.MkdirTemp(dir, "s3-")
	if err != nil {
		return nil, err
	}
	if bucket != "" {
		if err := os.Mkdir(filepath.Join(data, bucket), 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	key, secret := randHex(10), randHex(20)
	args := append([]string{"serve", "s3", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--auth-key", key + "," + secret,
		"--config", os.DevNull, "--log-level", "NOTICE"}, extra...)
	s := &Server{Port: port, Remote: remote, URL: fmt.Sprintf("http://127.0.0.1:%d", port), AccessKey: key, SecretKey: secret, Dir: data}
	if err := s.start(exec.Command(bin, append(args, data)...), dir, "rclone serve s3", "/"); err != nil {
		return nil, err
	}
	s.Env = remoteEnv(remote, s.URL, key, secret)
	return s, nil
}

// StartMoto starts moto's server from the venv bin folder bin (Moto's;
// its log in the folder dir) with an rclone remote named remote on it and
// the bucket bucket created ("" none). Stop stops it.
func StartMoto(bin, dir, remote, bucket string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Port: port, Remote: remote, URL: fmt.Sprintf("http://127.0.0.1:%d", port), AccessKey: "testing", SecretKey: "testing"}
	cmd := exec.Command(filepath.Join(bin, "moto_server"), "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := s.start(cmd, dir, "moto_server", "/moto-api/"); err != nil {
		return nil, err
	}
	s.Env = remoteEnv(remote, s.URL, s.AccessKey, s.SecretKey)
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

// start starts cmd (what), its log in a file of dir, and waits until it
// answers at path.
func (s *Server) start(cmd *exec.Cmd, dir, what, path string) error {
	logf, err := os.CreateTemp(dir, "s3server-*.log")
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	// Killed by the kernel when the test process dies, so a killed test
	// leaves no server behind (internal/tether: forked from a thread that
	// never ends, or another test's ended thread would take it).
	if err := tether.Start(cmd, syscall.SIGKILL); err != nil {
		return fmt.Errorf("starting %s: %v", what, err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	if err := waitUp(s.URL+path, s.exited); err != nil {
		s.Stop()
		b, _ := os.ReadFile(logf.Name())
		return fmt.Errorf("%s on %s: %v\n%s", what, s.URL, err, b)
	}
	return nil
}

// remoteEnv defines the rclone remote remote on the server at url.
func remoteEnv(remote, url, key, secret string) []string {
	up := strings.ToUpper(remote)
	return []string{
		"RCLONE_CONFIG_" + up + "_TYPE=s3",
		"RCLONE_CONFIG_" + up + "_PROVIDER=Other",
		"RCLONE_CONFIG_" + up + "_ENDPOINT=" + url,
		"RCLONE_CONFIG_" + up + "_ACCESS_KEY_ID=" + key,
		"RCLONE_CONFIG_" + up + "_SECRET_ACCESS_KEY=" + secret,
		"RCLONE_CONFIG_" + up + "_REGION=us-east-1",
		"RCLONE_CONFIG_" + up + "_FORCE_PATH_STYLE=true",
		// The server speaks plain HTTP: a CA bundle of the machine's
		// environment would only make the S3 client refuse to start.
		"AWS_CA_BUNDLE=",
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
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

// Rclone returns the rclone S3 server's binary, building it under the
// repository's .cache on first use (several test packages may ask at
// once: one builds, the others wait on the lock).
func Rclone(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone's S3 server): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: skipping the cloud test, which builds rclone's S3 server")
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

// Install builds rclone RcloneVersion's S3 server (the rcloneserver
// module under root) into root/.cache/rclone-server-VERSION once, under a
// file lock, and returns the binary.
func Install(root string, logf func(string, ...any)) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go is not on PATH: it builds rclone's S3 server")
	}
	dir := filepath.Join(root, ".cache", "rclone-server-"+RcloneVersion)
	bin := filepath.Join(dir, "rclone")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	logf("building rclone %s's S3 server into %s (once)", RcloneVersion, dir)
	tmp := bin + ".tmp"
	cmd := exec.Command(goBin, "build", "-trimpath", "-o", tmp, ".")
	cmd.Dir = filepath.Join(root, "internal", "cloud", "s3test", "rcloneserver")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building rclone %s's S3 server failed (the Go module proxy must be reachable): %v\n%s", RcloneVersion, err, out)
	}
	return bin, os.Rename(tmp, bin)
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
	bin, err := InstallMoto(root, t.Logf)
	if err != nil {
		t.Skipf("skipping the cloud test: %v", err)
	}
	return bin
}

// InstallMoto installs moto[server] MotoVersion into root/.cache/moto-venv
// once (under a file lock) and returns the venv's bin folder.
func InstallMoto(root string, logf func(string, ...any)) (string, error) {
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
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
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
