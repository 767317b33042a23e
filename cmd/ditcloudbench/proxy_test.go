package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The proxy passes requests on with their Host as it came (what an S3
// signature covers), and notes a PUT's first body byte when it arrives:
// not when the headers did, nor when the body ends.
func TestProxyTimesTheFirstBodyByte(t *testing.T) {
	type seen struct {
		host string
		body []byte
	}
	got := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Host, b}
	}))
	defer srv.Close()
	p, err := startProxy(srv.URL)
	require.NoError(t, err)
	defer p.stop()

	t0 := time.Now()
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPut, p.URL+"/shots/dit/job/A001/C001.mov", pr)
	require.NoError(t, err)
	req.ContentLength = 6
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	// The headers arrive; the body has not begun.
	for len(p.since(t0)) == 0 {
		time.Sleep(time.Millisecond)
	}
	_, ok := p.firstUpload("/shots/dit/job/", t0)
	require.False(t, ok, "no body byte yet: no upload")
	sent := time.Now()
	_, err = pw.Write([]byte("abc"))
	require.NoError(t, err)
	var first request
	for !ok {
		first, ok = p.firstUpload("/shots/dit/job/", t0)
		time.Sleep(time.Millisecond)
	}
	require.False(t, first.first.Before(sent), "the first byte is noted once it is sent")
	require.False(t, first.first.Before(first.at))
	_, err = pw.Write([]byte("def"))
	require.NoError(t, err)
	pw.Close()
	require.NoError(t, <-done)
	s := <-got
	require.Equal(t, "abcdef", string(s.body))
	require.Equal(t, p.URL[len("http://"):], s.host, "the Host the client signed")
	again, _ := p.firstUpload("/shots/dit/job/", t0)
	require.Equal(t, first.first, again.first)
	require.Equal(t, int64(6), p.uploaded("/shots/dit/job/", t0))
	require.Zero(t, p.uploaded("/shots/dit/other/", t0))
	// Its answer is noted once passed on: after the body's last byte.
	var answered request
	for answered.done.IsZero() {
		answered = p.since(t0)[0]
		time.Sleep(time.Millisecond)
	}
	require.False(t, answered.done.Before(answered.first))
	all := func(request) bool { return true }
	require.Equal(t, answered.done.Sub(answered.at), p.answering(t0, time.Now(), all))
	require.Zero(t, p.answering(t0, answered.at, all), "arrived at end: not before it")
	require.Zero(t, p.answering(t0, time.Now(), func(r request) bool { return r.method == http.MethodGet }))
}

// Footage is a PUT under the job's folder that carried bytes: dit's write
// check, a GET and a request before the mark are not.
func TestUploadIsFootageOnly(t *testing.T) {
	at := time.Now()
	body := request{at: at, first: at, method: http.MethodPut, path: "/shots/dit/job/A001/C001.mov", body: 1}
	require.True(t, body.upload("/shots/dit/job/"))
	for _, r := range []request{
		{at: at, first: at, method: http.MethodPut, path: "/shots/dit/job/.dit-write-check-12-ab", body: 1},
		{at: at, method: http.MethodPut, path: "/shots/dit/job/A001/C001.mov"}, // a server-side copy: no body
		{at: at, first: at, method: http.MethodPost, path: "/shots/dit/job/A001/C001.mov", body: 1},
		{at: at, first: at, method: http.MethodPut, path: "/shots/dit/other/A001/C001.mov", body: 1},
	} {
		require.False(t, r.upload("/shots/dit/job/"), "%+v", r)
	}
}

// countingRclone's log: a subcommand and its start, to the nanosecond.
func TestProcessStarts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "runs.log")
	require.NoError(t, os.WriteFile(f, []byte("rcd 1796300000.250000000\nlsjson 1796300001.5\n\nbroken\n"), 0o644))
	ps := processStarts(f)
	require.Len(t, ps, 2)
	require.Equal(t, "rcd", ps[0].sub)
	require.Equal(t, "lsjson", ps[1].sub)
	require.InDelta(t, 1.25, ps[1].at.Sub(ps[0].at).Seconds(), 1e-6)
	require.Equal(t, "2 (1 lsjson, 1 rcd)", processCounts(f))
}

func TestOnEndpoint(t *testing.T) {
	env := []string{"PATH=/bin", "RCLONE_CONFIG_BENCH_ENDPOINT=http://127.0.0.1:1", "X=http://127.0.0.1:1"}
	require.Equal(t, []string{"PATH=/bin", "RCLONE_CONFIG_BENCH_ENDPOINT=http://127.0.0.1:2", "X=http://127.0.0.1:1"},
		onEndpoint(env, "http://127.0.0.1:1", "http://127.0.0.1:2"))
}
