package cloud

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dit-org/dit/internal/tether"
)

// Prefix begins every cloud destination: rclone:REMOTE:PATH.
const Prefix = "rclone:"

// UploadCutoff is the size up to which an S3 object is written in one
// part (S3's limit for one PUT), so that its ETag is the MD5 of its bytes.
const UploadCutoff = "5G"

// Dest is a cloud destination: a remote of the rclone configuration and a
// folder on it.
type Dest struct {
	Remote string // the remote's name, without its colon
	// Path is the folder on it, slash-separated, as rclone reads it: a
	// leading slash kept ("/srv/rushes": an absolute path on a local,
	// SFTP or SMB remote), none when it has none ("bucket/show": from
	// the remote's root; on a local-type remote that is the working
	// folder, which Check refuses). "" is the remote's root.
	Path string
}

// IsDest reports whether s names a cloud destination (rclone:...).
func IsDest(s string) bool { return strings.HasPrefix(s, Prefix) }

// Parse reads a destination written rclone:REMOTE:PATH. PATH is cleaned
// (no "." or ".." elements, no trailing slash; a backslash is a slash)
// and keeps a leading slash: rclone:loc:/srv/x is the folder /srv/x,
// rclone:loc:srv/x is srv/x under the remote's root. An empty PATH
// parses (a job recorded with one can still be read); Check refuses it.
func Parse(s string) (Dest, error) {
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return Dest{}, fmt.Errorf("%q is not a cloud destination: write it rclone:REMOTE:PATH (REMOTE a remote of your rclone configuration)", s)
	}
	remote, p, ok := strings.Cut(rest, ":")
	if !ok || remote == "" || strings.ContainsAny(remote, "/\\ ") {
		return Dest{}, fmt.Errorf("cloud destination %q: write it rclone:REMOTE:PATH, e.g. rclone:s3backup:bucket/shows (REMOTE a remote of your rclone configuration, see rclone listremotes)", s)
	}
	p = strings.ReplaceAll(p, "\\", "/")
	abs := strings.HasPrefix(p, "/")
	p = path.Clean("/" + p)
	if !abs {
		p = strings.TrimPrefix(p, "/")
	}
	return Dest{Remote: remote, Path: p}, nil
}

// String is the destination as dit records it: rclone:REMOTE:PATH.
func (d Dest) String() string { return Prefix + d.Remote + ":" + d.Path }

// At is the rclone path of rel (slash-separated) under the destination:
// REMOTE:PATH/rel, PATH's leading slash kept.
func (d Dest) At(rel string) string {
	p := path.Join(d.Path, rel)
	if !strings.HasPrefix(d.Path, "/") {
		p = strings.TrimPrefix(p, "/")
	}
	return d.Remote + ":" + p
}

// Rclone runs the rclone binary. The zero value uses "rclone" on PATH
// with the user's own configuration.
type Rclone struct {
	// Bin is the rclone binary ("" rclone on PATH).
	Bin string
	// Config is rclone's --config ("" rclone's own choice: RCLONE_CONFIG
	// or its default file; remotes defined by RCLONE_CONFIG_<NAME>_*
	// variables work either way).
	Config string
	// BwLimit is rclone's --bwlimit ("" none), e.g. "20M" (bytes/s).
	BwLimit string
	// Transfers are the files sent at once (0: rclone's default, 4).
	Transfers int
	// Tries of a failed rclone run before it is an error (0: 3), waiting
	// Backoff (0: 2 s) before the second, twice that before the third...
	Tries   int
	Backoff time.Duration
	// Env is added to the environment rclone runs with.
	Env []string
}

// ErrNoRclone: the rclone binary is not there.
var ErrNoRclone = errors.New("rclone is not installed: install it (Debian: apt-get install rclone) to use rclone: destinations")

func (r *Rclone) bin() (string, error) {
	b := r.Bin
	if b == "" {
		b = "rclone"
	}
	p, err := exec.LookPath(b)
	if err != nil {
		if r.Bin == "" {
			return "", ErrNoRclone // not on PATH
		}
		return "", fmt.Errorf("%w (the rclone given, %s, is not there)", ErrNoRclone, b)
	}
	return p, nil
}

// command is rclone with args, the configuration and the environment.
func (r *Rclone) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	b, err := r.bin()
	if err != nil {
		return nil, err
	}
	if r.Config != "" {
		// Absolute: a command may run in another folder (Check).
		cfg, err := filepath.Abs(r.Config)
		if err != nil {
			return nil, err
		}
		args = append([]string{"--config", cfg}, args...)
	}
	cmd := exec.CommandContext(ctx, b, args...)
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// run runs rclone once and returns its standard output; an error carries
// the last lines it printed on standard error.
func (r *Rclone) run(ctx context.Context, args ...string) ([]byte, error) {
	out, _, err := r.run2(ctx, args...)
	return out, err
}

// run2 is run, and returns its standard error too.
func (r *Rclone) run2(ctx context.Context, args ...string) ([]byte, []byte, error) {
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return nil, nil, err
	}
	return output2(ctx, cmd, args[0])
}

// output runs cmd (rclone what) and returns its standard output; an
// error carries the last lines it printed on standard error.
func output(ctx context.Context, cmd *exec.Cmd, what string) ([]byte, error) {
	out, _, err := output2(ctx, cmd, what)
	return out, err
}

// output2 is output, and returns its standard error too.
func output2(ctx context.Context, cmd *exec.Cmd, what string) ([]byte, []byte, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := tether.Run(cmd, syscall.SIGKILL); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("rclone %s: %v: %s", what, err, lastLines(errorLines(errb.String()), 3))
	}
	return out.Bytes(), errb.Bytes(), nil
}

// errorLines are the lines of rclone's log that are not debug output.
func errorLines(s string) string {
	var ls []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "Failed") || strings.Contains(l, "CRITICAL") {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return s
	}
	return strings.Join(ls, "\n")
}

// logTime is the date and time rclone's log lines begin with.
var logTime = regexp.MustCompile(`^\s*\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? `)

// lastLines are the last n non-empty lines of s, joined by " / ".
func lastLines(s string, n int) string {
	var ls []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(logTime.ReplaceAllString(l, "")); l != "" {
			ls = append(ls, l)
		}
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}

// retry runs f up to Tries times, waiting Backoff, then twice as long...
// between tries; it stops early when ctx ends.
// tries is how many times a failed rclone run is tried.
func (r *Rclone) tries() int {
	if r.Tries <= 0 {
		return 3
	}
	return r.Tries
}

// ShortError is the cause at the end of an rclone error message, as a
// person reads it in a status line: "connection refused" of "Failed to
// copy: RequestError: send request failed caused by: Put ...: dial tcp
// 127.0.0.1:9000: connect: connection refused".
func ShortError(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if i := strings.LastIndex(msg, "\n"); i >= 0 {
		msg = strings.TrimSpace(msg[i+1:])
	}
	parts := strings.Split(msg, ": ")
	out := strings.TrimSpace(parts[len(parts)-1])
	if len(parts) > 1 && len(out) < 12 {
		out = strings.TrimSpace(parts[len(parts)-2]) + ": " + out
	}
	if r := []rune(out); len(r) > 100 {
		out = string(r[:99]) + "…"
	}
	return out
}

func (r *Rclone) retry(ctx context.Context, what string, f func() error) error {
	tries, wait := r.tries(), r.Backoff
	if wait <= 0 {
		wait = 2 * time.Second
	}
	var err error
	for i := 0; i < tries; i++ {
		if err = f(); err == nil || ctx.Err() != nil || errors.Is(err, ErrNoRclone) {
			return err
		}
		if i+1 < tries {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			wait *= 2
		}
	}
	return fmt.Errorf("%s: %d tries: %w", what, tries, err)
}

// Progress is what an upload has sent so far, and its trouble.
type Progress struct {
	Bytes int64 // sent in this upload, every try included
	// Try is the try the upload is at (1: the first) of Tries; Err the
	// last error rclone said (a failed try, or one it retries itself),
	// short: "connection refused".
	Try, Tries int
	Err        string
}

// Upload copies the files rels (slash-separated, relative to src) of the
// local folder src to the folder dir under d, keeping their relative
// paths. An object already there of a file's name is never written over
// (--ignore-existing): the caller verifies what is there. onProgress (may be nil) is called about twice a second.
func (r *Rclone) Upload(ctx context.Context, src string, rels []string, d Dest, dir string, onProgress func(Progress)) error {
	if len(rels) == 0 {
		return nil
	}
	list, err := CreateTemp("dit-upload-", ".txt")
	if err != nil {
		return err
	}
	defer os.Remove(list.Name())
	_, err = list.WriteString(strings.Join(rels, "\n") + "\n")
	if cerr := list.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return r.UploadList(ctx, src, list.Name(), d, dir, onProgress)
}

// UploadList is Upload of the files named in the file list, one a line
// (rclone's --files-from-raw; the caller writes it and removes it after):
// a list of a card's files need never be held whole.
func (r *Rclone) UploadList(ctx context.Context, src, list string, d Dest, dir string, onProgress func(Progress)) error {
	var base int64
	try, tries := 0, r.tries()
	var lastErr string
	return r.retry(ctx, "upload to "+d.String(), func() error {
		try++
		if try > 1 && onProgress != nil {
			onProgress(Progress{Bytes: base, Try: try, Tries: tries, Err: lastErr})
		}
		// stats is a transfer's progress (either path); ended counts
		// what it sent and keeps its error for the next try's line.
		stats := func(b int64, e string) {
			if e != "" {
				lastErr = ShortError(e)
			}
			if onProgress != nil {
				onProgress(Progress{Bytes: base + b, Try: try, Tries: tries, Err: ShortError(e)})
			}
		}
		ended := func(last int64, err error) error {
			base += last
			if err != nil {
				lastErr = ShortError(err.Error())
			}
			return err
		}
		if dm, release := r.daemon(ctx); dm != nil {
			defer release()
			return ended(dm.copyFiles(ctx, src, list, d.At(dir), r.Transfers, stats))
		}
		args := []string{"copy", src, d.At(dir), "--files-from-raw", list, "--no-traverse", "--ignore-existing",
			"--s3-upload-cutoff", UploadCutoff, "--retries", "1", "--stats", "500ms", "--use-json-log", "-v"}
		if r.BwLimit != "" {
			args = append(args, "--bwlimit", r.BwLimit)
		}
		if r.Transfers > 0 {
			args = append(args, "--transfers", fmt.Sprint(r.Transfers))
		}
		return ended(r.runStats(ctx, args, stats))
	})
}

// runStats runs rclone with JSON logs and reports the bytes its stats
// say were sent; it returns the last figure.
func (r *Rclone) runStats(ctx context.Context, args []string, on func(int64, string)) (int64, error) {
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return 0, err
	}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return 0, err
	}
	if err := tether.Start(cmd, syscall.SIGKILL); err != nil {
		return 0, err
	}
	var last int64
	var errs []string
	var mu sync.Mutex
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var l struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
			Stats *struct {
				Bytes int64 `json:"bytes"`
			} `json:"stats"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if l.Stats != nil {
			mu.Lock()
			last = l.Stats.Bytes
			mu.Unlock()
			on(l.Stats.Bytes, "")
		} else if l.Level == "error" || l.Level == "critical" {
			errs = append(errs, strings.TrimSpace(l.Msg))
			mu.Lock()
			b := last
			mu.Unlock()
			on(b, strings.TrimSpace(l.Msg))
		}
	}
	err = cmd.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return last, ctx.Err()
		}
		return last, fmt.Errorf("rclone copy: %v: %s", err, lastLines(strings.Join(errs, "\n"), 3))
	}
	return last, nil
}

// Rcat writes the object rel of d from body, size bytes long (rclone rcat
// --size: one S3 part up to 5 GiB, so its ETag is the MD5 of the bytes
// the storage received). The caller reads the source once and hashes
// what it sends. It is not tried again: body cannot be read twice.
func (r *Rclone) Rcat(ctx context.Context, d Dest, rel string, size int64, body io.Reader) error {
	return r.RcatWatch(ctx, d, rel, size, body, nil)
}

// RcatWatch is Rcat telling onErr (may be nil) each error or notice
// rclone says while it works (its low-level retries: a server gone),
// short (ShortError).
func (r *Rclone) RcatWatch(ctx context.Context, d Dest, rel string, size int64, body io.Reader, onErr func(string)) error {
	if dm, release := r.daemon(ctx); dm != nil {
		defer release()
		return dm.copyURL(ctx, d, rel, size, body, onErr, nil)
	}
	args := []string{"rcat", "--size", fmt.Sprint(size), "--s3-upload-cutoff", UploadCutoff, "--retries", "1"}
	if r.BwLimit != "" {
		args = append(args, "--bwlimit", r.BwLimit)
	}
	cmd, err := r.command(ctx, append(args, d.At(rel))...)
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stderr = body, &errb
	if onErr != nil {
		cmd.Stderr = &lineWatch{w: &errb, on: onErr}
	}
	if err := tether.Run(cmd, syscall.SIGKILL); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		e := fmt.Errorf("rclone rcat %s: %v: %s", d.At(rel), err, lastLines(errorLines(errb.String()), 3))
		var ee *exec.ExitError
		if errors.As(err, &ee) && (ee.ExitCode() == exitFatal || ee.ExitCode() == exitMaxTransfer) {
			return Fatal{e}
		}
		return e
	}
	return nil
}

// rclone's exit codes of an error it says more tries will not mend.
const (
	exitFatal       = 7 // "fatal error (one that more retries won't fix)"
	exitMaxTransfer = 8 // its --max-transfer limit reached
)

// maxTransferWords are rclone's words of its --max-transfer limit
// reached (an rc call's answer says it in words only).
const maxTransferWords = "max transfer limit reached"

// Fatal is an rclone error that rclone itself says trying again will not
// mend: its exit code 7 (fatal) or 8 (the --max-transfer limit reached),
// or an rc call's answer of that limit. Its Fatal method tells it, the
// way rclone's fserrors.Fataler does: a caller that tries transfers
// again (a streamed file's upload) does not try it again.
type Fatal struct{ Err error }

func (e Fatal) Error() string { return e.Err.Error() }
func (e Fatal) Unwrap() error { return e.Err }

// Fatal is true: trying again will not mend it.
func (Fatal) Fatal() bool { return true }

// Open reads the object rel of d back from the remote, which must be size
// bytes long. Close reports an error if rclone did not read it whole, or
// it was not size bytes (rclone cat of a name that is not there reads
// nothing, and says nothing).
func (r *Rclone) Open(ctx context.Context, d Dest, rel string, size int64) (io.ReadCloser, error) {
	if dm, release := r.daemon(ctx); dm != nil {
		body, ok, err := dm.open(ctx, d, rel)
		if ok {
			if err != nil {
				release()
				return nil, err
			}
			return &servedReader{rc: body, release: release, what: d.At(rel), size: size}, nil
		}
		release()
	}
	cmd, err := r.command(ctx, "cat", d.At(rel))
	if err != nil {
		return nil, err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := tether.Start(cmd, syscall.SIGKILL); err != nil {
		return nil, err
	}
	return &catReader{rc: out, cmd: cmd, errb: &errb, what: d.At(rel), size: size}, nil
}

type catReader struct {
	rc   io.ReadCloser
	cmd  *exec.Cmd
	errb *bytes.Buffer
	what string
	size int64
	n    int64
}

func (c *catReader) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.n += int64(n)
	return n, err
}

func (c *catReader) Close() error {
	rest, _ := io.Copy(io.Discard, c.rc)
	c.n += rest
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("rclone cat %s: %v: %s", c.what, err, lastLines(c.errb.String(), 3))
	}
	if c.n != c.size {
		return fmt.Errorf("rclone cat %s read %d bytes, not %d: is the object there?", c.what, c.n, c.size)
	}
	return nil
}

// servedReader is an object read back through a daemon.
type servedReader struct {
	rc      io.ReadCloser
	release func()
	what    string
	size, n int64
}

func (c *servedReader) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.n += int64(n)
	return n, err
}

func (c *servedReader) Close() error {
	defer c.release()
	rest, err := io.Copy(io.Discard, c.rc)
	c.n += rest
	c.rc.Close()
	if err != nil {
		return fmt.Errorf("rclone cat %s: %v", c.what, err)
	}
	if c.n != c.size {
		return fmt.Errorf("rclone cat %s read %d bytes, not %d: is the object there?", c.what, c.n, c.size)
	}
	return nil
}

// lineWatch copies what rclone writes to w and tells on of each error
// or notice line as it comes.
type lineWatch struct {
	w    io.Writer
	on   func(string)
	part []byte
}

func (l *lineWatch) Write(b []byte) (int, error) {
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		line := string(l.part[:i])
		l.part = l.part[i+1:]
		if strings.Contains(line, "ERROR") || strings.Contains(line, "NOTICE") {
			l.on(ShortError(line))
		}
	}
	return l.w.Write(b)
}
