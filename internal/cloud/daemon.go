package cloud

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dit-org/dit/internal/tether"
)

// The transfers of a job go through one long-lived rclone, its
// remote-control server (rclone rcd), instead of an rclone process per
// file: an upload of a folder's files is one sync/copy call, a streamed
// file one operations/copyurl call reading dit's own read of the card
// from a server of dit's on 127.0.0.1 (feeder.go: with its
// Content-Length, so that rclone puts it in one S3 part), a cascade's
// single file an operations/copyfile call, a read-back a GET of the
// object from the daemon (--rc-serve), a listing operations/list (with
// the S3 ETag proof read from the daemon's log: listing.go), the remotes
// config/listremotes, the checks rc calls (check.go): a job starts one
// rclone process.
//
// The daemon is private: it listens on 127.0.0.1 on a port the system
// picks, and asks every call for a user and password generated for it
// (given to rclone in its environment, not on its command line, which
// other users can read). It runs with dit's rclone, configuration,
// environment and bandwidth limit (--bwlimit: one limit for all its
// transfers); the calls of every Rclone of the same settings share it.
// It is started at the first transfer, stopped once no call has used it
// for daemonIdle, and killed by the kernel if dit dies (a parent-death
// signal: Linux only, so elsewhere each transfer is its own process, as
// it is when the daemon cannot be started).

// daemonLog are the daemon's log settings: -vv, as the listings' S3
// responses are debug lines (listing.go), and so are the marks dit reads
// in its log (logwatch.go); on its standard error, in rclone's own text
// format, whatever the environment sets (RCLONE_LOG_FILE,
// RCLONE_USE_JSON_LOG, RCLONE_LOG_FORMAT, RCLONE_SYSLOG: a user's
// settings for their own rclone runs).
var daemonLog = []string{"-vv", "--log-file=", "--use-json-log=false", "--log-format", "date,time", "--syslog=false"}

// daemonIdle is how long a daemon with no call under way is kept (a
// variable for the tests).
var daemonIdle = 5 * time.Second

// daemon is a running rclone rcd.
type daemon struct {
	url        string // http://127.0.0.1:PORT/
	user, pass string
	cmd        *exec.Cmd
	exited     chan struct{} // closed when rclone has exited
	client     *http.Client
	feed       *feeder
	logs       *logWatch
	env        []string // rclone's environment (its remotes' settings), but the daemon's credentials

	// list is held by a listing that reads the storage's responses in
	// the log (listing.go): one at a time, so that the responses logged
	// between its marks are its own.
	listMu sync.Mutex

	typesMu sync.Mutex
	types   map[string]string // the remotes' backends, by name (remoteType)

	mu    sync.Mutex
	users int
	idle  *time.Timer
}

// daemons are the running daemons, by the settings they run with
// (daemonKey); failed are settings whose daemon would not start, and
// why: their transfers are processes for the rest of the process.
var (
	daemonsMu sync.Mutex
	daemons   = map[string]*daemon{}
	failed    = map[string]error{}
)

// daemonKey is what a daemon runs with: the rclone, its configuration,
// environment and working folder (base), and the bandwidth limit.
func (r *Rclone) daemonKey() (key, base string) {
	wd, _ := os.Getwd()
	base = strings.Join(append([]string{r.Bin, r.Config, wd}, r.Env...), "\x00")
	return base + "\x01" + r.BwLimit, base
}

// useDaemon: transfers go through a daemon where the kernel kills it
// with dit (parentDeath) unless the process asks otherwise
// (DIT_RCLONE_DAEMON=0: every transfer its own rclone process).
func useDaemon() bool { return parentDeath && os.Getenv("DIT_RCLONE_DAEMON") != "0" }

// daemon is the running daemon of r's settings, started if there is
// none, and a release the caller calls when its call is done; nil when
// transfers are processes here (useDaemon) or its daemon would not
// start.
func (r *Rclone) daemon(ctx context.Context) (*daemon, func()) {
	if !useDaemon() {
		return nil, nil
	}
	key, _ := r.daemonKey()
	daemonsMu.Lock()
	defer daemonsMu.Unlock()
	if failed[key] != nil {
		return nil, nil
	}
	d := daemons[key]
	if d != nil && !d.alive() {
		d.feed.stop() // killed, or it died: another one
		d = nil
	}
	if d == nil {
		var err error
		if d, err = r.startDaemon(ctx); err != nil {
			if ctx.Err() == nil && !errors.Is(err, ErrNoRclone) {
				failed[key] = err
			}
			return nil, nil
		}
		daemons[key] = d
	}
	return d.use(key)
}

// anyDaemon is a running daemon of r's settings whatever its bandwidth
// limit, for a call that transfers nothing (About), and its release; nil
// when there is none: none is started for it.
func (r *Rclone) anyDaemon() (*daemon, func()) {
	if !useDaemon() {
		return nil, nil
	}
	_, base := r.daemonKey()
	daemonsMu.Lock()
	defer daemonsMu.Unlock()
	for key, d := range daemons {
		if strings.HasPrefix(key, base+"\x01") && d.alive() {
			return d.use(key)
		}
	}
	return nil, nil
}

// alive: rclone has not exited.
func (d *daemon) alive() bool {
	select {
	case <-d.exited:
		return false
	default:
		return true
	}
}

// use begins a call (the daemon is kept until its release).
func (d *daemon) use(key string) (*daemon, func()) {
	d.mu.Lock()
	d.users++
	if d.idle != nil {
		d.idle.Stop()
		d.idle = nil
	}
	d.mu.Unlock()
	return d, func() { d.release(key) }
}

// release ends a call; the last one starts the idle time, after which
// the daemon is stopped.
func (d *daemon) release(key string) {
	daemonsMu.Lock()
	idleFor := daemonIdle
	daemonsMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.users--
	if d.users > 0 {
		return
	}
	d.idle = time.AfterFunc(idleFor, func() {
		daemonsMu.Lock()
		d.mu.Lock()
		idle := d.users == 0
		if idle && daemons[key] == d {
			delete(daemons, key)
		}
		d.mu.Unlock()
		daemonsMu.Unlock()
		if idle {
			d.stop()
		}
	})
}

var servingRe = regexp.MustCompile(`Serving remote control on \[?(http://127\.0\.0\.1:[0-9]+/)`)

// startDaemon starts rclone rcd with r's settings and waits until it
// says where it listens.
func (r *Rclone) startDaemon(ctx context.Context) (*daemon, error) {
	b, err := r.bin()
	if err != nil {
		return nil, err
	}
	feed, err := startFeeder()
	if err != nil {
		return nil, err
	}
	d := &daemon{user: randomHex(16), pass: randomHex(16), exited: make(chan struct{}), feed: feed, types: map[string]string{}}
	args := []string{"rcd", "--rc-addr", "127.0.0.1:0", "--rc-serve", "--s3-upload-cutoff", UploadCutoff, "--s3-no-check-bucket", "--retries", "1"}
	args = append(args, daemonLog...)
	if r.BwLimit != "" {
		args = append(args, "--bwlimit", r.BwLimit)
	}
	if r.Config != "" {
		cfg, err := filepath.Abs(r.Config)
		if err != nil {
			feed.stop()
			return nil, err
		}
		args = append([]string{"--config", cfg}, args...)
	}
	cmd := exec.Command(b, args...)
	d.env = append(os.Environ(), r.Env...)
	cmd.Env = append(append([]string(nil), d.env...), "RCLONE_RC_USER="+d.user, "RCLONE_RC_PASS="+d.pass)
	stderr, w, err := os.Pipe()
	if err != nil {
		feed.stop()
		return nil, err
	}
	cmd.Stderr = w
	d.logs = newLogWatch(stderr)
	d.cmd = cmd
	// Killed by the kernel if dit dies (internal/tether: forked from a
	// thread that never ends).
	err = tether.Start(cmd, syscall.SIGKILL)
	if err == nil {
		go func() { cmd.Wait(); close(d.exited) }()
	}
	w.Close() // rclone's now
	if err != nil {
		stderr.Close()
		feed.stop()
		return nil, fmt.Errorf("rclone rcd: %v", err)
	}
	url := make(chan string, 1)
	go d.logs.scan(url)
	select {
	case u := <-url:
		d.url = u
	case <-d.exited:
		feed.stop()
		return nil, fmt.Errorf("rclone rcd exited: %s", d.logs.last(3))
	case <-ctx.Done():
		d.stop()
		return nil, ctx.Err()
	case <-time.After(30 * time.Second):
		d.stop()
		return nil, fmt.Errorf("rclone rcd said nothing of where it listens in 30 s: %s", d.logs.last(3))
	}
	d.client = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}
	return d, nil
}

// stop kills the daemon and its feeder.
func (d *daemon) stop() {
	d.cmd.Process.Kill()
	<-d.exited
	d.feed.stop()
}

// call runs the rc method path with in and reads its answer into out
// (nil: none).
func (d *daemon) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(d.user, d.pass)
	resp, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("rclone rc %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("rclone rc %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return &rcError{path: path, status: resp.StatusCode, msg: e.Error}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// rcError is an error an rc call answered.
type rcError struct {
	path   string
	status int
	msg    string
}

func (e *rcError) Error() string { return fmt.Sprintf("rclone rc %s: %s", e.path, e.msg) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
