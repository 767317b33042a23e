package notify

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hookServer records what a webhook receives.
type hookServer struct {
	*httptest.Server
	mu    sync.Mutex
	got   []map[string]any
	auth  []string
	calls atomic.Int32
	recv  chan struct{} // one per request received
}

func newHookServer(t *testing.T, handle func(n int32, w http.ResponseWriter, r *http.Request) bool) *hookServer {
	h := &hookServer{recv: make(chan struct{}, 100)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := h.calls.Add(1)
		h.recv <- struct{}{}
		if handle != nil && !handle(n, w, r) {
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		h.mu.Lock()
		h.got = append(h.got, m)
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) messages() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.got...)
}

func hookConfig(url string, mod func(*Webhook)) Config {
	w := Webhook{URL: url, Timeout: 5 * time.Second, Tries: 3}
	if mod != nil {
		mod(&w)
	}
	return Config{Webhooks: []Webhook{w}, Wait: 10 * time.Second, Queue: 16}
}

func msg(kind Kind, card string) Message {
	return Message{Kind: kind, JobID: 7, Job: "Day01", Card: card, Text: "text of " + string(kind), Time: time.Now()}
}

func TestNotifyWebhookDelivers(t *testing.T) {
	h := newHookServer(t, nil)
	cfg := hookConfig(h.URL+"/hook", func(w *Webhook) { w.Token = NewSecret("tok-abcdef", "$T") })
	n := New(cfg)
	n.Notify(msg(CardFree, "A001"))
	n.Notify(msg(SafeToFormat, "A001"))
	code := 0
	done := msg(JobDone, "")
	done.ExitCode = &code
	done.Cards = []CardStatus{{Card: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}}
	done.Attachments = []Attachment{{Name: "r.pdf", Path: "/raid/Day01/reports/r.pdf", Data: []byte("%PDF-1.4")}}
	n.Notify(done)
	require.Empty(t, n.Close(context.Background()))
	got := h.messages()
	require.Len(t, got, 3)
	require.Equal(t, "card_free", got[0]["kind"])
	require.Equal(t, "safe_to_format", got[1]["kind"])
	require.Equal(t, "job_done", got[2]["kind"])
	require.Equal(t, "A001", got[1]["card"])
	require.Equal(t, "Day01", got[1]["job"])
	require.EqualValues(t, 7, got[1]["job_id"])
	require.Contains(t, got[1]["title"], "card A001 verified: safe to format")
	require.EqualValues(t, 0, got[2]["exit_code"])
	att := got[2]["attachments"].([]any)[0].(map[string]any)
	require.Equal(t, "/raid/Day01/reports/r.pdf", att["path"])
	require.NotContains(t, att, "data")
	require.Equal(t, "Bearer tok-abcdef", h.auth[0])
}

func TestNotifyWebhookSlackAndKinds(t *testing.T) {
	h := newHookServer(t, nil)
	n := New(hookConfig(h.URL, func(w *Webhook) { w.Slack, w.Kinds = true, []Kind{SafeToFormat} }))
	n.Notify(msg(CardFree, "A001"))
	n.Notify(msg(SafeToFormat, "A001"))
	require.Empty(t, n.Close(context.Background()))
	got := h.messages()
	require.Len(t, got, 1)
	require.Len(t, got[0], 1, "a Slack payload is {\"text\": ...} only")
	require.Contains(t, got[0]["text"], "card A001 verified: safe to format")
	require.Contains(t, got[0]["text"], "text of safe_to_format")
}

// A server that answers 500 first: the retry delivers it.
func TestNotifyWebhookRetries500(t *testing.T) {
	h := newHookServer(t, func(n int32, w http.ResponseWriter, r *http.Request) bool {
		if n == 1 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return false
		}
		return true
	})
	n := New(hookConfig(h.URL, nil), WithBackoff(10*time.Millisecond))
	n.Notify(msg(SafeToFormat, "A001"))
	require.Empty(t, n.Close(context.Background()))
	require.EqualValues(t, 2, h.calls.Load())
	require.Len(t, h.messages(), 1)
}

// 500 on every try: a warning naming the host only, never the URL's path
// (a Slack key) nor the token.
func TestNotifyWebhookAlways500(t *testing.T) {
	h := newHookServer(t, func(n int32, w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "down", http.StatusBadGateway)
		return false
	})
	cfg := hookConfig(h.URL+"/services/SECRETKEY123", func(w *Webhook) { w.Token = NewSecret("tok-zyxwvu", "$T"); w.Name = "slack" })
	n := New(cfg, WithBackoff(time.Millisecond))
	n.Notify(msg(Failure, "A002"))
	warn := n.Close(context.Background())
	require.Len(t, warn, 1)
	require.Contains(t, warn[0], "failure A002 of job 7 by webhook \"slack\" (127.0.0.1:")
	require.Contains(t, warn[0], "502 Bad Gateway (3 tries)")
	require.NotContains(t, warn[0], "SECRETKEY123")
	require.NotContains(t, warn[0], "tok-zyxwvu")
	require.EqualValues(t, 3, h.calls.Load())
}

// A 4xx is not tried again.
func TestNotifyWebhook404NoRetry(t *testing.T) {
	h := newHookServer(t, func(n int32, w http.ResponseWriter, r *http.Request) bool {
		http.NotFound(w, r)
		return false
	})
	n := New(hookConfig(h.URL, nil), WithBackoff(time.Millisecond))
	n.Notify(msg(JobDone, ""))
	warn := n.Close(context.Background())
	require.Len(t, warn, 1)
	require.Contains(t, warn[0], "404 Not Found (1 try)")
	require.EqualValues(t, 1, h.calls.Load())
}

// A server that is down (a closed port): Notify does not wait for the
// delivery (it returns while the first connection is still being made),
// Close returns the failures as warnings, and once a message failed every
// try the next ones get one.
func TestNotifyWebhookDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	dialing, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	dial := func(ctx context.Context, network, a string) (net.Conn, error) {
		first.Do(func() { close(dialing); <-release }) // the first connection waits for the test
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}
	n := New(hookConfig("http://"+addr+"/hook", nil), WithBackoff(time.Millisecond),
		WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: dial}}))
	notified := make(chan struct{})
	go func() {
		for i := 0; i < 5; i++ {
			n.Notify(msg(SafeToFormat, "A00"+string(rune('1'+i))))
		}
		close(notified)
	}()
	<-dialing
	waitFor(t, notified, "Notify returned while the first delivery is held")
	close(release)
	warn := n.Close(context.Background())
	require.Len(t, warn, 5)
	require.Contains(t, warn[0], "safe_to_format A001 of job 7 by webhook "+addr+" not sent: ")
	require.Contains(t, warn[0], "refused")
	require.Contains(t, warn[0], "(3 tries)")
	require.Contains(t, warn[1], "(1 try)")
}

// waitFor waits for done to be closed; a guard fails the test if it never
// is (a Notify that waits for a delivery held until the test ends).
func waitFor(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("not so: %s", what)
	}
}

// A slow server (it never answers while the job runs): Notify returns at
// once, each try ends at the timeout, and Close gives up at its deadline
// while the server is still blocked.
func TestNotifyWebhookSlow(t *testing.T) {
	release := make(chan struct{})
	var held atomic.Int32
	h := newHookServer(t, func(n int32, w http.ResponseWriter, r *http.Request) bool {
		held.Add(1)
		defer held.Add(-1)
		<-release // it answers only once the test is over
		return false
	})
	defer close(release)
	n := New(hookConfig(h.URL, func(w *Webhook) { w.Timeout, w.Tries = time.Hour, 1 }))
	notified := make(chan struct{})
	go func() {
		for i := 0; i < 50; i++ {
			n.Notify(msg(CardFree, "A001"))
		}
		close(notified)
	}()
	<-h.recv // the first message is with the server, which holds it
	waitFor(t, notified, "Notify never waits for a channel: every call returned while the server holds the first message")
	require.EqualValues(t, 1, held.Load())
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the job's wait is over
	warn := n.Close(ctx)
	require.EqualValues(t, 1, held.Load(), "Close returned while the server still holds the first request")
	require.NotEmpty(t, warn)
	require.Contains(t, warn[0], "gave up waiting at the end of the job")
	require.Less(t, len(warn), 13, "warnings are bounded")
	require.Contains(t, strings.Join(warn, "\n"), "more messages not sent")
}

// Each try ends at the timeout; a queue that is full drops (counted).
func TestNotifyWebhookTimeoutAndQueue(t *testing.T) {
	release := make(chan struct{})
	h := newHookServer(t, func(n int32, w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return false
	})
	defer close(release)
	cfg := hookConfig(h.URL, func(w *Webhook) { w.Timeout, w.Tries = 50*time.Millisecond, 2 })
	cfg.Queue = 2
	n := New(cfg, WithBackoff(time.Millisecond))
	n.Notify(msg(CardFree, "A001"))
	<-h.recv
	for i := 0; i < 5; i++ {
		n.Notify(msg(CardFree, "A002"))
	}
	warn := n.Close(context.Background())
	all := strings.Join(warn, "\n")
	require.Contains(t, all, "card_free A001 of job 7 by webhook")
	require.Contains(t, all, "no answer within 50ms (2 tries)")
	require.Contains(t, all, "3 message(s) dropped")
}

func TestNotifyNilIsQuiet(t *testing.T) {
	var n *Notifier
	n.Notify(msg(JobDone, ""))
	require.Nil(t, n.Close(context.Background()))
	require.Zero(t, n.Wait())
}
