package cloud

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An error rclone logs over two lines (the request's failure, then on a
// line of its own what caused it) reaches the transfer's watcher with its
// cause: what a DIT reads while an upload is retried is "connection
// refused", not "send request failed".
func TestDaemonLogTellsAnErrorsCause(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	l := newLogWatch(r)
	told := make(chan string, 10)
	stop := l.watch("A001/C001.mov", func(m string) { told <- m })
	defer stop()
	other := make(chan string, 10)
	defer l.watch("A001/C002.mov", func(m string) { other <- m })()
	done := make(chan struct{})
	go func() { l.scan(make(chan string, 1)); close(done) }()
	for _, line := range []string{
		"2026/12/04 04:58:44 NOTICE: Serving remote control on http://127.0.0.1:5599/",
		"2026/12/04 04:58:47 ERROR : A001/C001.mov: Post request put error: RequestError: send request failed",
		`caused by: Put "http://127.0.0.1:9/bucket": dial tcp 127.0.0.1:9: connect: connection refused`,
		"2026/12/04 04:58:48 INFO  : A001/C003.mov: Copied (new)",
		`a line that goes on no error: told to nobody`,
	} {
		_, err := w.WriteString(line + "\n")
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	<-done
	close(told)
	var got []string
	for m := range told {
		got = append(got, m)
	}
	require.Equal(t, []string{"send request failed", "connection refused"}, got)
	require.Empty(t, other, "a line naming another object is not told to its watcher")
}

// A listing takes the S3 listing responses the daemon logged between its
// two marks, and no other: a page logged before its start or after its
// end, one cut short by another log entry, or on a line too long to read
// whole, gives no ETag; keys outside its folder are not its. A line too
// long is skipped, and the log read on after it. The debug lines are kept
// from every message (they carry the remote's keys).
func TestDaemonLogCapturesTheListingBetweenItsMarks(t *testing.T) {
	old := maxLogLine
	maxLogLine = 1 << 10
	defer func() { maxLogLine = old }()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	l := newLogWatch(r)
	c, stop := l.capture("show/")
	told := make(chan string, 10)
	defer l.watch("A001/C001.mov", func(m string) { told <- m })()
	ended, _ := l.expect(c.end)
	go l.scan(make(chan string, 1))
	page := func(key, etag string) string {
		return `<ListBucketResult><Contents><Key>` + key + `</Key><ETag>&#34;` + etag + `&#34;</ETag></Contents></ListBucketResult>`
	}
	const (
		a = "0123456789abcdef0123456789abcdef"
		b = "fedcba9876543210fedcba9876543210"
		x = "ffffffffffffffffffffffffffffffff"
	)
	for _, line := range []string{
		"2026/12/04 04:58:44 NOTICE: Serving remote control on http://127.0.0.1:5599/",
		"2026/12/04 04:58:45 DEBUG : HTTP RESPONSE (req 0xc0001)",
		page("show/early.mov", x),
		`2026/12/04 04:58:45 DEBUG : rc: "rc/noop": with parameters map[dit_log_mark:` + c.start + `]`,
		"2026/12/04 04:58:45 DEBUG : HTTP RESPONSE (req 0xc0002)",
		"Content-Type: application/xml",
		"",
		`<?xml version="1.0" encoding="UTF-8"?>`,
		`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
		`  <Contents>`,
		`    <Key>show/a.mov</Key>`,
		`    <ETag>&#34;` + a + `&#34;</ETag>`,
		`  </Contents>`,
		`  <Contents><Key>other/a.mov</Key><ETag>"` + x + `"</ETag></Contents>`,
		`</ListBucketResult>`,
		"2026/12/04 04:58:45 DEBUG : HTTP RESPONSE (req 0xc0003)",
		`<ListBucketResult><Contents><Key>show/cut.mov</Key>`,
		"2026/12/04 04:58:45 DEBUG : Setting secret_access_key=\"s3cr3t\" for \"ditcloud\" from environment variable",
		`<ETag>"` + x + `"</ETag></Contents></ListBucketResult>`,
		"2026/12/04 04:58:45 DEBUG : HTTP RESPONSE (req 0xc0004)",
		page("show/long.mov", x) + strings.Repeat(" ", 2<<10),
		`2026/12/04 04:58:46 DEBUG : HTTP RESPONSE (req 0xc0005)`,
		`<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>show/sub/c%20d.mov</Key><ETag>"` + b + `"</ETag></Contents></ListBucketResult>`,
		"2026/12/04 04:58:47 ERROR : A001/C001.mov: Failed to copy: connection refused",
		`2026/12/04 04:58:48 DEBUG : rc: "rc/noop": with parameters map[dit_log_mark:` + c.end + `]`,
		"2026/12/04 04:58:48 DEBUG : HTTP RESPONSE (req 0xc0006)",
		page("show/late.mov", x),
	} {
		_, err := w.WriteString(line + "\n")
		require.NoError(t, err)
	}
	<-ended
	require.NoError(t, w.Close())
	<-l.ended
	require.Equal(t, map[string]string{"a.mov": a, "sub/c d.mov": b}, stop())
	require.Equal(t, "connection refused", <-told, "the log is read on after a line too long")
	require.Equal(t, "NOTICE: Serving remote control on http://127.0.0.1:5599/ / ERROR : A001/C001.mov: Failed to copy: connection refused", l.last(5))
}
