//go:build linux

package cloud_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// loggingRclone is an rclone that logs each run's arguments to a file
// and runs the real one (exec: the same process): its path, and a func
// that reads the runs' subcommands so far.
func loggingRclone(t *testing.T) (string, func() []string) {
	t.Helper()
	real, err := exec.LookPath("rclone")
	require.NoError(t, err)
	dir := t.TempDir()
	logf := filepath.Join(dir, "runs.log")
	bin := filepath.Join(dir, "rclone")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nsub=$1\n[ \"$1\" = --config ] && sub=$3\necho \"$sub\" >> '"+logf+"'\nexec '"+real+"' \"$@\"\n"), 0o755))
	return bin, func() []string {
		b, _ := os.ReadFile(logf)
		return strings.Fields(string(b))
	}
}

// waitGone waits until the process pid is gone (its parent reaped it).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("rclone rcd (pid %d) is still running", pid)
		}
	}
}

// Every transfer of a job goes through one rclone rcd: an upload of
// files, a streamed file (12 MiB, past rclone's streaming and chunk
// sizes: on moto a multipart object's ETag is no MD5, so the storage's
// MD5 says it went up in one part), a read-back, a single file copied,
// the checks before the job and the free space, the remotes and the
// listings with the storage's ETags: rclone rcd is the one rclone process
// started. Once idle the daemon is stopped.
func TestDaemonCarriesTheTransfers(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	s := s3test.StartAWS(t, "ditcloud", "shots")
	cloud.SetDaemonIdle(t, 200*time.Millisecond)
	bin, runs := loggingRclone(t)
	r := &cloud.Rclone{Bin: bin, Env: s.Env, Config: os.DevNull}
	ctx := context.Background()
	d := cloud.Dest{Remote: "ditcloud", Path: "shots/show"}
	// Held meanwhile (a job's calls follow each other closer than the
	// tests' idle time): released, it is stopped.
	held, release := cloud.HoldDaemon(r)
	require.NotZero(t, held)
	require.NoError(t, r.Check(ctx, d))

	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "CLIPS"), 0o755))
	a, b := []byte(strings.Repeat("clip a ", 50000)), []byte("clip b")
	require.NoError(t, os.WriteFile(filepath.Join(src, "CLIPS", "a.mov"), a, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "CLIPS", "b.wav"), b, 0o644))
	var last cloud.Progress
	require.NoError(t, r.Upload(ctx, src, []string{"CLIPS/a.mov", "CLIPS/b.wav"}, d, "day01", func(p cloud.Progress) { last = p }))
	require.Equal(t, int64(len(a)+len(b)), last.Bytes)
	pid, _, _, _ := cloud.DaemonOf(r)
	require.Equal(t, held, pid, "the upload went through the daemon")

	big := make([]byte, 12<<20)
	for i := range big {
		big[i] = byte(i * 13)
	}
	require.NoError(t, r.Rcat(ctx, d, "day01/CLIPS/big.mov", int64(len(big)), strings.NewReader(string(big))))
	require.NoError(t, r.CopyFile(ctx, filepath.Join(src, "CLIPS", "b.wav"), d, "proxies/b.wav"))
	objs, err := r.List(ctx, d, "")
	require.NoError(t, err)
	for rel, want := range map[string][]byte{"day01/CLIPS/a.mov": a, "day01/CLIPS/b.wav": b, "day01/CLIPS/big.mov": big, "proxies/b.wav": b} {
		require.Equal(t, md5hex(want), objs[rel].ServerMD5(), "%s: one part, the storage's MD5", rel)
	}
	rc, err := r.Open(ctx, d, "day01/CLIPS/big.mov", int64(len(big)))
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, md5hex(big), md5hex(got))
	space, err := r.About(ctx, d)
	require.NoError(t, err)
	require.False(t, space.Known)

	samePID, _, _, _ := cloud.DaemonOf(r)
	require.Equal(t, pid, samePID, "one daemon for all of it")
	all := runs()
	require.Equal(t, []string{"rcd"}, all, "one rclone process: the daemon")

	release()
	waitGone(t, pid)
	gone, _, _, _ := cloud.DaemonOf(r)
	require.Zero(t, gone, "stopped once idle")
	// The next transfer starts another.
	require.NoError(t, r.Rcat(ctx, d, "day01/c.txt", 1, strings.NewReader("c")))
	again, _, _, _ := cloud.DaemonOf(r)
	require.NotZero(t, again)
	require.NotEqual(t, pid, again)
}

// The daemon is private: it listens on 127.0.0.1 and answers nothing
// without the credentials dit made for it.
func TestDaemonIsPrivate(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	needRclone(t)
	r := &cloud.Rclone{Config: os.DevNull}
	_, release := cloud.HoldDaemon(r)
	defer release()
	pid, url, user, pass := cloud.DaemonOf(r)
	require.NotZero(t, pid)
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	for _, c := range []struct {
		user, pass string
		code       int
	}{{"", "", http.StatusUnauthorized}, {user, "wrong", http.StatusUnauthorized}, {user, pass, http.StatusOK}} {
		req, err := http.NewRequest(http.MethodPost, url+"core/version", strings.NewReader("{}"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, c.code, resp.StatusCode, "%+v", c)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	require.NoError(t, err)
	require.NotContains(t, string(cmdline), pass, "the password is not on rclone's command line")
}

// Streams go up at once through the one daemon: each body gives its
// first bytes only once the other's upload has asked for its own (both
// are read at the same time, or neither would end).
func TestDaemonStreamsAtOnce(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	s := s3test.StartAWS(t, "ditcloud", "shots")
	r := &cloud.Rclone{Env: s.Env, Config: os.DevNull}
	d := cloud.Dest{Remote: "ditcloud", Path: "shots/at-once"}
	asked := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			body := &meetReader{me: asked[i], other: asked[1-i], r: strings.NewReader(fmt.Sprintf("stream %d", i))}
			errs[i] = r.Rcat(context.Background(), d, fmt.Sprintf("s%d.txt", i), 8, body)
		})
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	objs, err := r.List(context.Background(), d, "")
	require.NoError(t, err)
	require.Equal(t, md5hex([]byte("stream 1")), objs["s1.txt"].ServerMD5())
}

// meetReader reads r once other has been closed (its stream asked for
// bytes too), closing me at its first Read; it gives up after a minute.
type meetReader struct {
	me, other chan struct{}
	once      sync.Once
	r         io.Reader
}

func (m *meetReader) Read(b []byte) (int, error) {
	m.once.Do(func() { close(m.me) })
	select {
	case <-m.other:
	case <-time.After(time.Minute):
		return 0, errors.New("the other stream was not read at the same time")
	}
	return m.r.Read(b)
}

// A stream that ends early or with an error (the card went away) leaves
// no object; rclone's words on a failed write reach the watcher, named
// by the object.
func TestDaemonStreamCutShort(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	s := s3test.StartAWS(t, "ditcloud", "shots")
	r := &cloud.Rclone{Env: s.Env, Config: os.DevNull}
	d := cloud.Dest{Remote: "ditcloud", Path: "shots/cut"}
	pr, pw := io.Pipe()
	go func() {
		pw.Write(make([]byte, 300<<10))
		pw.CloseWithError(errors.New("the card went away"))
	}()
	require.Error(t, r.Rcat(context.Background(), d, "a.mov", 1<<20, pr))
	require.Error(t, r.Rcat(context.Background(), d, "b.mov", 10, strings.NewReader("short")))
	objs, err := r.List(context.Background(), d, "")
	require.NoError(t, err)
	require.Empty(t, objs, "nothing partial carries a name")

	ro := s3test.StartReadOnly(t, "ditro", "shots")
	r = &cloud.Rclone{Env: append(ro.Env, "RCLONE_LOW_LEVEL_RETRIES=1"), Config: os.DevNull}
	var said []string
	var mu sync.Mutex
	err = r.RcatWatch(context.Background(), cloud.Dest{Remote: "ditro", Path: "shots"}, "show/x.mov", 5, strings.NewReader("x.mov"), func(e string) {
		mu.Lock()
		said = append(said, e)
		mu.Unlock()
	})
	require.Error(t, err)
	require.Contains(t, err.Error(), "InternalError")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, said, "the watcher is told")
	require.Contains(t, strings.Join(said, "\n"), "Internal Error")
}

// The daemon goes with dit: a process holding one, killed (kill -9),
// leaves no rclone behind (the kernel's parent-death signal).
func TestDaemonDiesWithItsProcess(t *testing.T) {
	if os.Getenv("DIT_TEST_DAEMON_HOLDER") == "1" {
		pid, _ := cloud.HoldDaemon(&cloud.Rclone{Config: os.DevNull})
		fmt.Println("rcd", pid)
		select {} // until killed
	}
	needRclone(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDaemonDiesWithItsProcess$")
	cmd.Env = append(os.Environ(), "DIT_TEST_DAEMON_HOLDER=1", "DIT_RCLONE_DAEMON=")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	pid := 0
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "rcd "); ok {
			pid, err = strconv.Atoi(n)
			require.NoError(t, err)
			break
		}
	}
	require.NotZero(t, pid, "the holder started a daemon")
	require.NoError(t, syscall.Kill(pid, 0), "running")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	waitGone(t, pid)
}

// An upload past rclone's --max-transfer limit ends with an error that
// says trying again will not mend it (cloud.Fatal: rclone's exit code 8,
// or the rc call's answer), through the daemon and as a process; a
// stream cut short is not one (a caller may send it again).
func TestMaxTransferIsFatal(t *testing.T) {
	s := s3test.StartAWS(t, "ditcloud", "shots")
	for _, daemon := range []string{"", "0"} {
		t.Run("DIT_RCLONE_DAEMON="+daemon, func(t *testing.T) {
			t.Setenv("DIT_RCLONE_DAEMON", daemon)
			d := cloud.Dest{Remote: "ditcloud", Path: "shots/fatal" + daemon}
			r := &cloud.Rclone{Env: append(append([]string(nil), s.Env...), "RCLONE_MAX_TRANSFER=1M"), Config: os.DevNull}
			big := strings.Repeat("x", 3<<20)
			err := r.Rcat(context.Background(), d, "big.mov", int64(len(big)), strings.NewReader(big))
			require.Error(t, err)
			var f interface{ Fatal() bool }
			require.True(t, errors.As(err, &f) && f.Fatal(), "%v", err)
			require.Contains(t, err.Error(), "max transfer limit reached")

			pr, pw := io.Pipe()
			go func() {
				pw.Write(make([]byte, 300<<10))
				pw.CloseWithError(errors.New("the card went away"))
			}()
			err = (&cloud.Rclone{Env: s.Env, Config: os.DevNull}).Rcat(context.Background(), d, "cut.mov", 1<<20, pr)
			require.Error(t, err)
			require.False(t, errors.As(err, &f), "%v", err)
		})
	}
}
