package cloud

import (
	"os"
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
