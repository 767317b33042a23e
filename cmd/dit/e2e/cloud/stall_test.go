//go:build unix

package cloud

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// gate is a TCP relay in front of the S3 server that the test can shut:
// while it is shut its port refuses connections and the ones open are
// cut, as a server that stopped; opened again, it listens on the same
// port.
type gate struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        map[net.Conn]bool
}

func newGate(t *testing.T, target string) *gate {
	g := &gate{target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	g.addr = ln.Addr().String()
	g.serve(ln)
	t.Cleanup(g.shut)
	return g
}

func (g *gate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", g.target)
			if err != nil {
				c.Close()
				continue
			}
			g.mu.Lock()
			g.conns[c], g.conns[s] = true, true
			g.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

// shut closes the port and cuts every connection through it.
func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for c := range g.conns {
		c.Close()
	}
	clear(g.conns)
}

// open listens on the gate's port again.
func (g *gate) open(t *testing.T) {
	ln, err := net.Listen("tcp", g.addr)
	require.NoError(t, err, "the gate's port taken again")
	g.serve(ln)
}

// An upload whose S3 server stops answering mid-card is said to be
// stalled by the real binary, where and why: a stalled event naming the
// remote and the cause dit saw, the progress snapshot's stall on the
// card with its estimates unknown (eta_s and the job's safe_s null)
// while it lasts, and no progress figure above 100 %. The server is
// stopped once the storage has taken part of the card, and started again
// (on the same port) once dit said the stall and that it is trying the
// upload again (the snapshot's stall: retry N of 10; events, not time).
// dit sends the files again by itself: the job ends with every file
// verified (exit 0, the card safe, no resume), its retries and the bytes
// sent again in the progress, and the objects are the card's files by
// the test's own hashing.
func TestUploadStallIsSaidWithItsCause(t *testing.T) {
	t.Parallel()
	s, bk, env, _, card := setup(t, "40MB", "clips")
	g := newGate(t, strings.TrimPrefix(s.URL, "http://"))
	env = append(env, "RCLONE_CONFIG_"+strings.ToUpper(s.Remote)+"_ENDPOINT=http://"+g.addr)
	dest := "rclone:" + s.Remote + ":" + bk + "/stall"
	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--cloud-bwlimit", "4MB/s", "-d", dest, card)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	type stall struct {
		Where   string `json:"where"`
		Cause   string `json:"cause"`
		Retry   int    `json:"retry"`
		Retries int    `json:"retries"`
	}
	type event struct {
		Type     string `json:"type"`
		Path     string `json:"path"`
		Message  string `json:"message"`
		Progress *struct {
			Job struct {
				ETA struct {
					Safe *float64 `json:"safe_s"`
				} `json:"eta"`
				Stalled int `json:"cards_stalled"`
			} `json:"job"`
			Cards []struct {
				Bytes       int64    `json:"bytes"`
				BytesCopied int64    `json:"bytes_copied"`
				BytesResent int64    `json:"bytes_resent"`
				Retries     int      `json:"retries"`
				ETA         *float64 `json:"eta_s"`
				Stall       *stall   `json:"stall"`
				Dests       []struct {
					BytesWritten int64 `json:"bytes_written"`
					BytesResent  int64 `json:"bytes_resent"`
					Bytes        int64 `json:"bytes"`
					Retries      int   `json:"retries"`
				} `json:"dests"`
			} `json:"cards"`
		} `json:"progress"`
		Cards []struct {
			SafeToFormat bool `json:"safe_to_format"`
		} `json:"cards"`
	}
	const (
		uploading = iota
		shut      // the server stopped: waiting for dit to say so
		saidOnce  // the stalled event came: waiting for a snapshot of it with a retry
		reopened  // the server back
	)
	phase := uploading
	var said string
	var snap *stall
	var retries, destRetries int
	var resent int64
	var last event
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		last = ev
		if p := ev.Progress; p != nil && len(p.Cards) == 1 {
			c := p.Cards[0]
			require.LessOrEqual(t, c.BytesCopied, c.Bytes, "progress above 100 %%")
			for _, d := range c.Dests {
				require.LessOrEqual(t, d.BytesWritten, d.Bytes, "progress above 100 %%")
				destRetries, resent = max(destRetries, d.Retries), max(resent, d.BytesResent)
			}
			retries = max(retries, c.Retries)
			if phase == uploading && len(c.Dests) == 1 && c.Dests[0].BytesWritten >= 8_000_000 {
				g.shut()
				phase = shut
			}
			if phase == saidOnce && c.Stall != nil && c.Stall.Retry > 0 {
				require.Nil(t, c.ETA, "no estimate while stalled")
				require.Nil(t, p.Job.ETA.Safe, "no job estimate while stalled")
				require.Equal(t, 1, p.Job.Stalled)
				snap = c.Stall
				g.open(t)
				phase = reopened
			}
		}
		if ev.Type == "stalled" && phase == shut {
			said = ev.Message
			require.Equal(t, dest, ev.Path, "the stall names the remote")
			phase = saidOnce
		}
	}
	err = cmd.Wait()
	t.Logf("said: %q; snapshot: %+v; retries %d (there %d), bytes sent again %d; dit: %v", said, snap, retries, destRetries, resent, err)
	require.Equal(t, reopened, phase, "the stall said, and in the snapshot with its retry (phase %d)\n%s", phase, stderr.String())
	// The cause dit saw, from the remote it saw it at, and for how long.
	require.Regexp(t, `^`+s.Remote+`: \S.*, since \d+s$`, said)
	require.Equal(t, dest, snap.Where)
	require.True(t, strings.HasPrefix(snap.Cause, s.Remote+": ") && len(snap.Cause) > len(s.Remote)+2, snap.Cause)
	require.Equal(t, 10, snap.Retries, "retry N of 10")
	require.Positive(t, snap.Retry)

	// dit sent the files again by itself: every file verified, no resume.
	require.NoError(t, err, stderr.String())
	require.Equal(t, "summary", last.Type)
	require.Len(t, last.Cards, 1)
	require.True(t, last.Cards[0].SafeToFormat)
	require.Positive(t, retries, "the card's retries in the progress")
	require.Positive(t, destRetries, "the destination's retries in the progress")
	// The objects are the card's files (the test's own hashing).
	dl := filepath.Join(t.TempDir(), "download")
	s.Rclone(t, "copy", s.Remote+":"+bk+"/stall/day01/A001", dl)
	got, want := e2e.Tree(t, dl), e2e.Tree(t, card)
	n := 0
	for rel, h := range got {
		if strings.HasPrefix(rel, "ascmhl/") {
			continue
		}
		n++
		require.Equal(t, want[rel], h, "%s in the bucket is the card's", rel)
	}
	require.Equal(t, 17, n, "every file of the card is in the bucket")
	require.NoError(t, os.RemoveAll(dl))
}

// An upload cut mid-file (every connection to the S3 server dropped,
// the server there again at once) is tried again: bytes sent again are
// counted apart (bytes_resent), never against the card's size, so no
// progress figure passes 100 %; the card ends safe with the objects the
// card's files (the test's own hashing). A cascade's second run uploads
// the first copy's files (rclone's copy of a folder, tried again as a
// whole).
func TestRetriedUploadCountsResentBytesApart(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, card := setup(t, "40MB", "clips")
	g := newGate(t, strings.TrimPrefix(s.URL, "http://"))
	env = append(env, "RCLONE_CONFIG_"+strings.ToUpper(s.Remote)+"_ENDPOINT=http://"+g.addr)
	dest := "rclone:" + s.Remote + ":" + bk + "/retry"
	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--cloud-bwlimit", "4MB/s",
		"-d", filepath.Join(dir, "raid"), "--then", dest, card)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	type event struct {
		Type     string `json:"type"`
		Progress *struct {
			Cards []struct {
				Hop         int   `json:"hop"`
				Bytes       int64 `json:"bytes"`
				BytesCopied int64 `json:"bytes_copied"`
				BytesResent int64 `json:"bytes_resent"`
				Retries     int   `json:"retries"`
				Dests       []struct {
					BytesWritten int64 `json:"bytes_written"`
					BytesResent  int64 `json:"bytes_resent"`
					Bytes        int64 `json:"bytes"`
				} `json:"dests"`
			} `json:"cards"`
		} `json:"progress"`
		Cards []struct {
			SafeToFormat bool `json:"safe_to_format"`
		} `json:"cards"`
	}
	cut := false
	var resent int64
	var retries int
	var last event
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		last = ev
		if ev.Progress == nil {
			continue
		}
		for _, c := range ev.Progress.Cards {
			require.LessOrEqual(t, c.BytesCopied, c.Bytes, "progress above 100 %%")
			for _, d := range c.Dests {
				require.LessOrEqual(t, d.BytesWritten, d.Bytes, "progress above 100 %%")
			}
			if c.Hop != 2 || len(c.Dests) != 1 {
				continue
			}
			resent, retries = max(resent, c.BytesResent), max(retries, c.Retries)
			if !cut && c.Dests[0].BytesWritten >= 8_000_000 {
				g.shut()
				g.open(t)
				cut = true
			}
		}
	}
	require.NoError(t, cmd.Wait(), stderr.String())
	t.Logf("cut: %v; the second run's bytes sent again: %d, retries %d", cut, resent, retries)
	require.True(t, cut, "the upload was cut")
	require.Len(t, last.Cards, 1)
	require.True(t, last.Cards[0].SafeToFormat)
	require.Positive(t, resent, "bytes sent again are counted apart")

	dl := filepath.Join(t.TempDir(), "download")
	s.Rclone(t, "copy", s.Remote+":"+bk+"/retry/day01/A001", dl)
	got, want := e2e.Tree(t, dl), e2e.Tree(t, card)
	n := 0
	for rel, h := range got {
		if strings.HasPrefix(rel, "ascmhl/") {
			continue
		}
		n++
		require.Equal(t, want[rel], h, "%s in the bucket is the card's", rel)
	}
	require.Equal(t, 17, n, "every file of the card is in the bucket")
}
