//go:build unix

// Package pgtest starts a real PostgreSQL server for tests: the Debian
// postgresql package's initdb and postgres (found under
// /usr/lib/postgresql/*/bin, or on PATH), a cluster in a temp folder,
// listening on a free port of 127.0.0.1 only, trust authentication for
// the user dit, locale C. Run as root, the server runs as the postgres
// user (PostgreSQL refuses root). The server is a child of the test
// process and goes with it (Stop, or the parent's death on Linux).
//
// Without the package, [Start] returns an error wrapping
// [ErrUnavailable] that says what to install; [ForTest] and [Shared]'s
// callers skip with that message, so a PostgreSQL test never passes
// silently without a server. Under go test -short (the quick loop) they
// skip too, starting nothing.
package pgtest

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/tether"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// ErrUnavailable: there is no PostgreSQL server to start here.
var ErrUnavailable = errors.New("PostgreSQL is not available")

// Server is a running PostgreSQL server.
type Server struct {
	Port int
	bin  string
	cred *syscall.Credential
	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
	log  *logBuf
	mu   sync.Mutex
	n    int
}

// bindir finds the folder of initdb and postgres.
func bindir() (string, error) {
	ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(ms, func(i, j int) bool { return version(ms[i]) > version(ms[j]) })
	if len(ms) > 0 {
		return filepath.Dir(ms[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("%w: no initdb under /usr/lib/postgresql/*/bin nor on PATH: install the Debian package postgresql (apt-get install postgresql)", ErrUnavailable)
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start initialises a cluster in a new temp folder and starts a server
// on it.
func Start() (*Server, error) {
	bin, err := bindir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "dit-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, exit: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	cred, err := runAs(dir)
	if err != nil {
		return nil, err
	}
	s.cred = cred
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "dit", "-A", "trust", "--locale=C", "-E", "UTF8", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: initdb in %s: %v\n%s", ErrUnavailable, data, err, out)
	}
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		err = s.run(bin, data, port, cred)
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "could not bind") {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// run starts postgres on port and waits until it says it is ready.
func (s *Server) run(bin, data string, port int, cred *syscall.Credential) error {
	s.exit = make(chan struct{})
	s.log = &logBuf{}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1",
		"-k", s.dir, "-c", "fsync=off", "-c", "max_connections=200", "-c", "log_min_messages=warning")
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	// Stopped (SIGQUIT: postgres's immediate shutdown) by the kernel when
	// the test process dies (internal/tether: forked from a thread that
	// never ends, or another test's ended thread would take it).
	if err := tether.Start(cmd, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("%w: starting postgres: %v", ErrUnavailable, err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			s.log.add(sc.Text())
			if !once && strings.Contains(sc.Text(), "ready to accept connections") {
				once = true
				close(ready)
			}
		}
	}()
	go func() {
		cmd.Wait()
		pw.Close()
		close(s.exit)
	}()
	select {
	case <-ready:
	case <-s.exit:
		return fmt.Errorf("%w: postgres stopped at start: %s", ErrUnavailable, s.log)
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		return fmt.Errorf("%w: postgres not ready after 2 minutes: %s", ErrUnavailable, s.log)
	}
	s.cmd, s.Port = cmd, port
	return nil
}

// runAs prepares dir for the server's user: as root, the postgres user
// (or nobody), which then owns dir.
func runAs(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: running as root and there is no postgres user to run the server as (PostgreSQL refuses root): %v", ErrUnavailable, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection URL of database db on the server.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User("dit"), Host: fmt.Sprintf("127.0.0.1:%d", s.Port), Path: "/" + db, RawQuery: "sslmode=disable&connect_timeout=10"}
	return u.String()
}

// NewDatabase creates an empty database (named after prefix, made
// unique) and returns its URL.
func (s *Server) NewDatabase(prefix string) (string, error) {
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("%s_%d", prefix, s.n)
	s.mu.Unlock()
	return s.CreateDatabase(name)
}

// CreateDatabase creates the database name (any characters) and returns
// its URL.
func (s *Server) CreateDatabase(name string) (string, error) {
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
		return "", fmt.Errorf("creating database %q on 127.0.0.1:%d: %w", name, s.Port, err)
	}
	return s.URL(name), nil
}

// Stop stops the server (fast shutdown) and removes its folder.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	if s.cmd != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exit:
		case <-time.After(time.Minute):
			s.cmd.Process.Kill()
			<-s.exit
		}
	}
	os.RemoveAll(s.dir)
}

// Kill stops the server at once, as a dropped network would look to a
// client (connections refused from then on). The folder stays until Stop.
func (s *Server) Kill() {
	s.cmd.Process.Signal(syscall.SIGQUIT)
	<-s.exit
}

// Restart starts the server again after Kill, on the same port and
// data: the network is back.
func (s *Server) Restart() error {
	return s.run(s.bin, filepath.Join(s.dir, "data"), s.Port, s.cred)
}

// ForTest starts a server for one test, stopped when it ends; the test
// skips, saying why, when PostgreSQL is not installed.
func ForTest(t testing.TB) *Server {
	t.Helper()
	skipShort(t)
	s, err := Start()
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("PostgreSQL test skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared is one server for the whole test binary, started on first use;
// the test package's TestMain calls StopShared at the end.
func Shared(t testing.TB) *Server {
	t.Helper()
	skipShort(t)
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if errors.Is(sharedErr, ErrUnavailable) {
		t.Skipf("PostgreSQL test skipped: %v", sharedErr)
	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// skipShort skips t under go test -short: the quick loop starts no
// server (make test runs the PostgreSQL tests).
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs a PostgreSQL server): not under -short; make test runs it")
	}
}

// StopShared stops the server Shared started, if any.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// logBuf keeps the server's last lines for error messages.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > 50 {
		l.lines = l.lines[1:]
	}
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
