package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type mailer struct {
	cfg Email
	// tlsConfig overrides the TLS settings (tests: a private CA).
	tlsConfig *tls.Config
}

func (e *mailer) name() string  { return e.cfg.Redacted() }
func (e *mailer) kinds() []Kind { return e.cfg.Kinds }
func (e *mailer) tries() int    { return max(e.cfg.Tries, 1) }

func (e *mailer) tlsConf() *tls.Config {
	if e.tlsConfig != nil {
		c := e.tlsConfig.Clone()
		if c.ServerName == "" {
			c.ServerName = e.cfg.Host
		}
		return c
	}
	return &tls.Config{ServerName: e.cfg.Host, MinVersion: tls.VersionTLS12}
}

func (e *mailer) send(ctx context.Context, m Message) error {
	msg, err := e.compose(m)
	if err != nil {
		return permanent{err}
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	addr := net.JoinHostPort(e.cfg.Host, strconv.Itoa(e.cfg.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return e.cause(ctx, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// Cut the conversation when ctx ends (Close giving up).
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if e.cfg.TLS == "tls" {
		tc := tls.Client(conn, e.tlsConf())
		if err := tc.HandshakeContext(ctx); err != nil {
			return e.cause(ctx, err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, e.cfg.Host)
	if err != nil {
		return e.cause(ctx, err)
	}
	defer c.Close()
	if err := c.Hello(helloName()); err != nil {
		return e.cause(ctx, err)
	}
	if e.cfg.TLS == "auto" || e.cfg.TLS == "starttls" {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(e.tlsConf()); err != nil {
				return e.cause(ctx, fmt.Errorf("STARTTLS: %w", err))
			}
		} else if e.cfg.TLS == "starttls" {
			return permanent{errors.New("the server does not offer STARTTLS (tls: starttls)")}
		}
	}
	if e.cfg.User != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return permanent{errors.New("the server offers no AUTH, and a user is configured")}
		}
		if err := c.Auth(smtp.PlainAuth("", e.cfg.User, e.cfg.Password.Value(), e.cfg.Host)); err != nil {
			return e.cause(ctx, fmt.Errorf("login as %s: %w", e.cfg.User, err))
		}
	}
	if err := c.Mail(addrOnly(e.cfg.From)); err != nil {
		return e.cause(ctx, fmt.Errorf("MAIL FROM: %w", err))
	}
	for _, to := range e.cfg.To {
		if err := c.Rcpt(addrOnly(to)); err != nil {
			return e.cause(ctx, fmt.Errorf("RCPT TO %s: %w", addrOnly(to), err))
		}
	}
	w, err := c.Data()
	if err != nil {
		return e.cause(ctx, err)
	}
	if _, err := w.Write(msg); err != nil {
		return e.cause(ctx, err)
	}
	if err := w.Close(); err != nil {
		return e.cause(ctx, err)
	}
	c.Quit()
	return nil
}

// cause tells a timeout as one; a 5xx answer is permanent.
func (e *mailer) cause(ctx context.Context, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("no answer within %s (%v)", e.cfg.Timeout, err)
	}
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return permanent{err}
	}
	return err
}

func helloName() string {
	h, err := os.Hostname()
	if err != nil || h == "" || strings.ContainsAny(h, " \t\r\n") {
		return "localhost"
	}
	return h
}

// addrOnly is the address of "Name <addr>".
func addrOnly(s string) string {
	if i, j := strings.LastIndex(s, "<"), strings.LastIndex(s, ">"); i >= 0 && j > i {
		return s[i+1 : j]
	}
	return strings.TrimSpace(s)
}

// compose writes the mail: text/plain alone, or multipart/mixed with the
// attachments in base64.
func (e *mailer) compose(m Message) ([]byte, error) {
	var b bytes.Buffer
	hdr := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	hdr("From", e.cfg.From)
	hdr("To", strings.Join(e.cfg.To, ", "))
	hdr("Subject", mime.QEncoding.Encode("utf-8", m.Subject()))
	hdr("Date", m.Time.Format(time.RFC1123Z))
	var id [12]byte
	rand.Read(id[:])
	hdr("Message-ID", fmt.Sprintf("<%s.job%d@dit>", hex.EncodeToString(id[:]), m.JobID))
	hdr("MIME-Version", "1.0")
	hdr("X-Dit-Kind", string(m.Kind))

	text := m.Text
	var atts []Attachment
	var total int64
	if e.cfg.Attach {
		for _, a := range m.Attachments {
			data := a.Data
			if data == nil && a.Path != "" {
				var err error
				if data, err = os.ReadFile(a.Path); err != nil {
					text += fmt.Sprintf("\n(%s not attached: %v)", a.Name, err)
					continue
				}
			}
			if e.cfg.MaxAttachment > 0 && total+int64(len(data)) > e.cfg.MaxAttachment {
				text += fmt.Sprintf("\n(%s not attached: too large; it is at %s)", a.Name, a.Path)
				continue
			}
			total += int64(len(data))
			a.Data = data
			atts = append(atts, a)
		}
	}
	for _, a := range m.Attachments {
		if a.Path != "" {
			text += fmt.Sprintf("\nReport: %s", a.Path)
		}
	}
	text += "\n\n-- \ndit, " + m.Time.Local().Format("2006-01-02 15:04:05")
	if m.Host != "" {
		text += " on " + m.Host
	}
	text += "\n"

	writeText := func(w *bytes.Buffer) {
		q := quotedprintable.NewWriter(w)
		q.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
		q.Close()
	}
	if len(atts) == 0 {
		hdr("Content-Type", "text/plain; charset=utf-8")
		hdr("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		writeText(&b)
		return b.Bytes(), nil
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	hdr("Content-Type", "multipart/mixed; boundary=\""+mw.Boundary()+"\"")
	b.WriteString("\r\n")
	pw, err := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"text/plain; charset=utf-8"},
		"Content-Transfer-Encoding": {"quoted-printable"},
	})
	if err != nil {
		return nil, err
	}
	var tb bytes.Buffer
	writeText(&tb)
	pw.Write(tb.Bytes())
	for _, a := range atts {
		ct := a.ContentType
		if ct == "" {
			if ct = mime.TypeByExtension(filepath.Ext(a.Name)); ct == "" {
				ct = "application/octet-stream"
			}
		}
		name := mime.QEncoding.Encode("utf-8", a.Name)
		pw, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {fmt.Sprintf("%s; name=\"%s\"", ct, name)},
			"Content-Transfer-Encoding": {"base64"},
			"Content-Disposition":       {fmt.Sprintf("attachment; filename=\"%s\"", name)},
		})
		if err != nil {
			return nil, err
		}
		enc := base64.StdEncoding.EncodeToString(a.Data)
		for len(enc) > 76 {
			pw.Write([]byte(enc[:76] + "\r\n"))
			enc = enc[76:]
		}
		pw.Write([]byte(enc + "\r\n"))
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	b.Write(body.Bytes())
	return b.Bytes(), nil
}
