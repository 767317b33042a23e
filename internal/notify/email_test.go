package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http/httptest"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// smtpServer is a real SMTP server on 127.0.0.1 (github.com/emersion/go-smtp)
// that records what it is sent.
type smtpServer struct {
	addr     string
	port     int
	user     string
	password string
	mu       sync.Mutex
	mails    []sentMail
	logins   []string // users who logged in
}

type sentMail struct {
	from string
	to   []string
	data []byte
	tls  bool
}

func (s *smtpServer) sent() []sentMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sentMail(nil), s.mails...)
}

type smtpSession struct {
	s    *smtpServer
	c    *smtp.Conn
	from string
	to   []string
}

func (x *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (x *smtpSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != x.s.user || pass != x.s.password {
			return errors.New("invalid credentials")
		}
		x.s.mu.Lock()
		x.s.logins = append(x.s.logins, user)
		x.s.mu.Unlock()
		return nil
	}), nil
}
func (x *smtpSession) Mail(from string, _ *smtp.MailOptions) error { x.from = from; return nil }
func (x *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}
func (x *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := x.c.TLSConnectionState()
	x.s.mu.Lock()
	x.s.mails = append(x.s.mails, sentMail{from: x.from, to: x.to, data: b, tls: isTLS})
	x.s.mu.Unlock()
	return nil
}
func (x *smtpSession) Reset()        { x.from, x.to = "", nil }
func (x *smtpSession) Logout() error { return nil }

func startSMTP(t *testing.T, tlsConf *tls.Config) *smtpServer {
	s := &smtpServer{user: "dit@example.com", password: "pa55-w0rd-xyz"}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &smtpSession{s: s, c: c}, nil
	}))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.TLSConfig = tlsConf
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	s.addr = l.Addr().String()
	_, p, _ := net.SplitHostPort(s.addr)
	s.port, _ = strconv.Atoi(p)
	return s
}

func (s *smtpServer) config(mod func(*Email)) Config {
	e := Email{Host: "127.0.0.1", Port: s.port, User: s.user, Password: NewSecret(s.password, "$DIT_SMTP_PASSWORD"),
		From: "DIT cart <dit@example.com>", To: []string{"dop@example.com", "Post <post@example.com>"}, TLS: "auto",
		Timeout: 5 * time.Second, Tries: 3, Attach: true, MaxAttachment: 20 << 20}
	if mod != nil {
		mod(&e)
	}
	return Config{Emails: []Email{e}, Wait: 10 * time.Second, Queue: 16}
}

var fakePDF = []byte("%PDF-1.4\n% dit report\n" + strings.Repeat("binary \x00\x01\x02\xff stream ", 40) + "\n%%EOF\n")

// The job's end by mail: subject plain, the PDF report attached
// (multipart/mixed, base64), the password on no line of any output.
func TestNotifyEmailWithReport(t *testing.T) {
	s := startSMTP(t, nil)
	n := New(s.config(nil))
	code := 0
	m := msg(JobDone, "")
	m.ExitCode = &code
	m.Text = "Job Day01 (#7) done: every card verified.\nA001: Verified: safe to format"
	m.Cards = []CardStatus{{Card: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}}
	m.Attachments = []Attachment{{Name: "dit-report_job7_Day01.pdf", Path: "/raid/Day01/reports/dit-report_job7_Day01.pdf", ContentType: "application/pdf", Data: fakePDF}}
	n.Notify(m)
	n.Notify(msg(SafeToFormat, "A002"))
	warn := n.Close(context.Background())
	require.Empty(t, warn)
	got := s.sent()
	require.Len(t, got, 2)
	require.Equal(t, "dit@example.com", got[0].from)
	require.Equal(t, []string{"dop@example.com", "post@example.com"}, got[0].to)
	require.Equal(t, []string{s.user, s.user}, s.logins)

	pm, err := mail.ReadMessage(bytes.NewReader(got[0].data))
	require.NoError(t, err)
	subj, err := new(mime.WordDecoder).DecodeHeader(pm.Header.Get("Subject"))
	require.NoError(t, err)
	require.Equal(t, "dit: job Day01 (#7) done: 1 of 1 card(s) safe to format", subj)
	mt, params, err := mime.ParseMediaType(pm.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/mixed", mt)
	mr := multipart.NewReader(pm.Body, params["boundary"])
	text, err := mr.NextPart() // quoted-printable is decoded by the reader
	require.NoError(t, err)
	tb, _ := io.ReadAll(text)
	require.Contains(t, string(tb), "A001: Verified: safe to format")
	require.Contains(t, string(tb), "Report: /raid/Day01/reports/dit-report_job7_Day01.pdf")
	att, err := mr.NextPart()
	require.NoError(t, err)
	require.Equal(t, "dit-report_job7_Day01.pdf", att.FileName())
	require.Equal(t, "base64", att.Header.Get("Content-Transfer-Encoding"))
	raw, _ := io.ReadAll(att)
	pdf, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(raw)))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF")))
	require.Equal(t, fakePDF, pdf)

	pm2, err := mail.ReadMessage(bytes.NewReader(got[1].data))
	require.NoError(t, err)
	subj2, _ := new(mime.WordDecoder).DecodeHeader(pm2.Header.Get("Subject"))
	require.Equal(t, "dit: job Day01 (#7): card A002 verified: safe to format", subj2)
	for _, sm := range got {
		require.NotContains(t, string(sm.data), s.password)
	}
}

// A wrong password: a warning, which names neither password.
func TestNotifyEmailBadLogin(t *testing.T) {
	s := startSMTP(t, nil)
	cfg := s.config(func(e *Email) { e.Password = NewSecret("wr0ng-secret-pw", "$P") })
	n := New(cfg, WithBackoff(time.Millisecond))
	n.Notify(msg(Failure, "A001"))
	warn := n.Close(context.Background())
	require.Len(t, warn, 1)
	require.Contains(t, warn[0], "failure A001 of job 7 by e-mail 127.0.0.1:")
	require.Contains(t, warn[0], "login as dit@example.com")
	require.NotContains(t, warn[0], "wr0ng-secret-pw")
	require.NotContains(t, warn[0], s.password)
	require.Empty(t, s.sent())
}

// STARTTLS when the server offers it; the login goes over TLS.
func TestNotifyEmailStartTLS(t *testing.T) {
	ts := httptest.NewTLSServer(nil) // its certificate is for 127.0.0.1
	defer ts.Close()
	s := startSMTP(t, &tls.Config{Certificates: ts.TLS.Certificates})
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	n := New(s.config(func(e *Email) { e.TLS = "starttls" }))
	n.workers[0].s.(*mailer).tlsConfig = &tls.Config{RootCAs: pool}
	n.Notify(msg(SafeToFormat, "A001"))
	require.Empty(t, n.Close(context.Background()))
	got := s.sent()
	require.Len(t, got, 1)
	require.True(t, got[0].tls)

	// Required but not offered: refused, not retried.
	plain := startSMTP(t, nil)
	n = New(plain.config(func(e *Email) { e.TLS = "starttls" }))
	n.Notify(msg(SafeToFormat, "A001"))
	warn := n.Close(context.Background())
	require.Len(t, warn, 1)
	require.Contains(t, warn[0], "does not offer STARTTLS (tls: starttls) (1 try)")
}

// An SMTP server that is down.
func TestNotifyEmailDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &smtpServer{port: port, user: "u", password: "pw-never-shown"}
	n := New(s.config(nil), WithBackoff(time.Millisecond))
	n.Notify(msg(JobDone, ""))
	warn := n.Close(context.Background())
	require.Len(t, warn, 1)
	require.Contains(t, warn[0], "job_done of job 7 by e-mail 127.0.0.1:"+strconv.Itoa(port)+" not sent")
	require.Contains(t, warn[0], "refused")
	require.NotContains(t, warn[0], "pw-never-shown")
}
