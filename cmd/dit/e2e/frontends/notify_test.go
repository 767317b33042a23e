package frontends

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// notifySMTP is a real SMTP server on 127.0.0.1 (emersion/go-smtp) with
// PLAIN login, recording each mail.
type notifySMTP struct {
	port     int
	password string
	mu       sync.Mutex
	mails    [][]byte
}

type notifySession struct{ s *notifySMTP }

func (x notifySession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (x notifySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "dit@example.com" || pass != x.s.password {
			return fmt.Errorf("bad login")
		}
		return nil
	}), nil
}
func (x notifySession) Mail(string, *smtp.MailOptions) error { return nil }
func (x notifySession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (x notifySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	x.s.mu.Lock()
	x.s.mails = append(x.s.mails, b)
	x.s.mu.Unlock()
	return err
}
func (x notifySession) Reset()        {}
func (x notifySession) Logout() error { return nil }

func newNotifySMTP(t *testing.T, password string) *notifySMTP {
	s := &notifySMTP{password: password}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return notifySession{s}, nil }))
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	s.port = l.Addr().(*net.TCPAddr).Port
	return s
}

// closedPort is a port nobody listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return p
}

// A cascade job (-d A --then B) with the user's config file (found by
// XDG_CONFIG_HOME): the webhook hears card_free, then safe_to_format for
// each card, then job_done with every verdict and the PDF report's path;
// the mail of job_done carries the PDF; the SMTP password and the token
// are in no output and not in the catalog.
func TestNotifyCascadeWebhookAndMail(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--style", "mixed", "--seed", "31")
	require.Equal(t, 0, r.Code, r.Stderr)
	a, b := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	require.NoError(t, os.Mkdir(a, 0o755))
	require.NoError(t, os.Mkdir(b, 0o755))

	const password, token = "Sm7p-pa55word-never-shown", "hook-t0ken-never-shown"
	hook := e2e.NewNotifyHook(t)
	mailer := newNotifySMTP(t, password)
	xdg := filepath.Join(dir, "xdg")
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "dit"), 0o755))
	cfg := fmt.Sprintf(`notify:
  webhook:
    url: %s/hook
    token_env: DIT_TEST_HOOK_TOKEN
  email:
    host: 127.0.0.1
    port: %d
    user: dit@example.com
    password_env: DIT_SMTP_PASSWORD
    from: "DIT cart <dit@example.com>"
    to: dop@example.com
    events: [job_done]
`, hook.URL, mailer.port)
	require.NoError(t, os.WriteFile(filepath.Join(xdg, "dit", "config.yaml"), []byte(cfg), 0o600))
	env := append(os.Environ(), "DIT_DB="+db, "XDG_CONFIG_HOME="+xdg, "DIT_SMTP_PASSWORD="+password, "DIT_TEST_HOOK_TOKEN="+token)

	r = e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", a, "--then", b, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "warning: notification")
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Len(t, sum.Cards, 2)

	msgs := hook.Got()
	kinds := e2e.KindsOf(msgs)
	require.Len(t, msgs, 5, "%v", kinds)
	pos := map[string]int{}
	for i, k := range kinds {
		pos[k] = i
	}
	for _, c := range []string{"A001", "A002"} {
		free, ok1 := pos["card_free "+c]
		safe, ok2 := pos["safe_to_format "+c]
		require.True(t, ok1 && ok2, "%v", kinds)
		require.Less(t, free, safe, "card %s is free before it is safe to format: %v", c, kinds)
	}
	done := msgs[4]
	require.Equal(t, "job_done", done["kind"], "%v", kinds)
	require.EqualValues(t, sum.JobID, done["job_id"])
	require.Equal(t, "day01", done["job"])
	require.EqualValues(t, 0, done["exit_code"])
	require.Len(t, done["cards"], 2)
	for _, c := range done["cards"].([]any) {
		require.Equal(t, true, c.(map[string]any)["safe_to_format"], "%v", c)
	}
	att := done["attachments"].([]any)[0].(map[string]any)
	require.True(t, strings.HasSuffix(att["path"].(string), ".pdf"), "%v", att)
	require.FileExists(t, att["path"].(string))
	for _, h := range hook.Auth {
		require.Equal(t, "Bearer "+token, h)
	}

	mailer.mu.Lock()
	mails := append([][]byte(nil), mailer.mails...)
	mailer.mu.Unlock()
	require.Len(t, mails, 1, "the mail is for job_done only")
	pm, err := mail.ReadMessage(bytes.NewReader(mails[0]))
	require.NoError(t, err)
	subj, _ := new(mime.WordDecoder).DecodeHeader(pm.Header.Get("Subject"))
	station, _ := msgs[0]["station"].(string)
	require.NotEmpty(t, station, "every message names the station")
	require.Equal(t, fmt.Sprintf("dit: %s: job day01 (#%d) done: 2 of 2 card(s) safe to format", station, sum.JobID), subj)
	_, params, err := mime.ParseMediaType(pm.Header.Get("Content-Type"))
	require.NoError(t, err)
	mr := multipart.NewReader(pm.Body, params["boundary"])
	var pdf []byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if strings.HasSuffix(p.FileName(), ".pdf") {
			raw, _ := io.ReadAll(p)
			pdf, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(raw)))
			require.NoError(t, err)
		}
	}
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF")), "the PDF report is attached")
	onDisk, err := os.ReadFile(att["path"].(string))
	require.NoError(t, err)
	require.Equal(t, onDisk, pdf)

	for _, out := range []string{r.Stdout, r.Stderr, string(mails[0])} {
		require.NotContains(t, out, password)
		require.NotContains(t, out, token)
	}
	// Nor in the catalog.
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "catalog.db") {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.False(t, bytes.Contains(b, []byte(password)), p)
		require.False(t, bytes.Contains(b, []byte(token)), p)
		return nil
	}))
}

// Webhooks that fail never fail the job: one that is down and one that
// never answers leave warnings after the summary, and dit exits 0 while
// the slow one still holds its request; one that answers 500 first gets
// every message on the retry.
func TestNotifyFailingWebhooksWarn(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--seed", "32")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))

	release := make(chan struct{})
	var held atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Add(1)
		defer held.Add(-1)
		<-release // it answers only once the test is over
	}))
	defer slow.Close()
	defer close(release)
	var flakyCalls atomic.Int32
	flaky := e2e.NewNotifyHook(t)
	flakyFront := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if flakyCalls.Add(1) == 1 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		flaky.Config.Handler.ServeHTTP(w, r)
	}))
	defer flakyFront.Close()

	cfgFile := filepath.Join(dir, "notify.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte(fmt.Sprintf(`notify:
  wait: 2s
  webhooks:
    - name: down
      url: http://127.0.0.1:%d/services/SECRETPATH
      tries: 2
    - name: slow
      url: %s/
      timeout: 1h
      tries: 1
    - name: flaky
      url: %s/
`, closedPort(t), slow.URL, flakyFront.URL)), 0o600))

	r = e2e.Dit(t, db, "offload", "--name", "day02", "--notify-config", cfgFile, "-d", d1, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, "a failing notifier never changes the exit code:\n%s%s", r.Stdout, r.Stderr)
	require.GreaterOrEqual(t, held.Load(), int32(1), "dit ended while the slow webhook still held a request")
	require.Contains(t, r.Stdout, "safe to format")
	require.Contains(t, r.Stderr, `dit: warning: notification safe_to_format A001 of job 1 by webhook "down" (127.0.0.1:`)
	require.Contains(t, r.Stderr, "refused")
	require.Contains(t, r.Stderr, `by webhook "slow" (127.0.0.1:`)
	require.Contains(t, r.Stderr, "gave up waiting at the end of the job")
	require.NotContains(t, r.Stderr, "SECRETPATH")
	require.NotContains(t, r.Stderr, `webhook "flaky"`)
	kinds := e2e.KindsOf(flaky.Got())
	sort.Strings(kinds)
	require.Equal(t, []string{"job_done", "safe_to_format A001", "safe_to_format A002"}, kinds)
	require.EqualValues(t, 4, flakyCalls.Load(), "the first try answered 500, its retry went through")
}

// Failures come one per card, naming its failed files; a card that
// failed is never "safe to format"; the exit code is the job's.
func TestNotifyFailurePerCard(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--seed", "33")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "raid")
	// Two different files already where A001's would go: they fail
	// (--on-conflict fail).
	var victims []string
	require.NoError(t, filepath.WalkDir(filepath.Join(cards, "A001"), func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(filepath.Join(cards, "A001"), p)
		rel = filepath.ToSlash(rel)
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(rel, ".") && !strings.Contains(rel, "/.") && len(victims) < 2 {
			victims = append(victims, rel)
		}
		return err
	}))
	require.Len(t, victims, 2)
	for _, v := range victims {
		p := filepath.Join(d1, "day03", "A001", filepath.FromSlash(v))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("something else"), 0o644))
	}
	hook := e2e.NewNotifyHook(t)
	cfgFile := filepath.Join(dir, "notify.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte("notify:\n  webhook:\n    url: "+hook.URL+"\n"), 0o600))

	r = e2e.Dit(t, db, "offload", "--name", "day03", "--notify-config", cfgFile, "-d", d1, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stderr, "warning: notification")
	msgs := hook.Got()
	kinds := e2e.KindsOf(msgs)
	sort.Strings(kinds)
	require.Equal(t, []string{"failure A001", "job_done", "safe_to_format A002"}, kinds)
	for _, m := range msgs {
		switch m["kind"] {
		case "failure":
			for _, v := range victims {
				require.Contains(t, m["text"], v)
			}
			require.Contains(t, m["text"], "2 files FAILED")
		case "job_done":
			require.EqualValues(t, 3, m["exit_code"])
			require.Contains(t, m["title"], "FAILED: 1 of 2 card(s) safe to format: needs attention")
		}
	}
}

// A config that cannot be used stops the job before it starts (exit 2),
// naming file, line and key, never the secret.
func TestNotifyConfigRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--seed", "34")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))
	cfgFile := filepath.Join(dir, "notify.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte("notify:\n  email:\n    host: h\n    from: a@b\n    to: c@d\n    user: u\n    password: inline-hunter2\n"), 0o600))
	r = e2e.Dit(t, db, "offload", "--notify-config", cfgFile, "-d", d1, filepath.Join(cards, "A001"))
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, cfgFile+":7: notify.email.password: a secret is never written in the file: use password_env")
	require.NotContains(t, r.Stdout+r.Stderr, "inline-hunter2")
	entries, err := os.ReadDir(d1)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing was copied")
}
