package notify

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Kind is what a message tells.
type Kind string

// The kinds of message.
const (
	CardFree     Kind = "card_free"      // a cascade's card may leave the reader (NOT be formatted)
	SafeToFormat Kind = "safe_to_format" // a card is verified on every destination
	JobDone      Kind = "job_done"       // the job ended: its verdicts
	Failure      Kind = "failure"        // a card (or the job) failed
	Stalled      Kind = "stalled"        // a card (a run of it) has not moved for a while: where and why
	Moving       Kind = "moving"         // a stalled card moves again (sent where stalled is)
)

// Kinds are every kind a configuration names (moving goes with stalled),
// in the order a job sends them.
var Kinds = []Kind{Stalled, CardFree, SafeToFormat, JobDone, Failure}

// now is what a card is once a notice of kind k said it (card_free,
// safe_to_format), in words.
func (k Kind) now() string {
	if k == CardFree {
		return "free (it may leave the reader, NOT be formatted yet)"
	}
	return "verified on every destination: safe to format"
}

// Defaults.
const (
	DefaultWait           = 30 * time.Second
	DefaultQueue          = 256
	DefaultWebhookTimeout = 10 * time.Second
	DefaultEmailTimeout   = 30 * time.Second
	DefaultTries          = 3
)

// Config is the notify: section of a dit config or preset file. The zero
// Config sends nothing.
type Config struct {
	// Source is the file it was read from ("" when built in code).
	Source   string
	Webhooks []Webhook
	Emails   []Email
	// Wait bounds how long Close waits at the end of a job for the
	// messages not yet delivered.
	Wait time.Duration
	// Queue is how many messages each channel holds while it delivers;
	// more are dropped (and counted in Close's warnings).
	Queue int
}

// Empty reports whether the config sends nothing.
func (c Config) Empty() bool { return len(c.Webhooks) == 0 && len(c.Emails) == 0 }

// Webhook is one JSON POST channel.
type Webhook struct {
	Name string
	// URL may hold a secret itself (a Slack incoming webhook): it is never
	// printed whole (see Redacted).
	URL string
	// Slack: the body is {"text": "..."} (Slack, Mattermost, Rocket.Chat,
	// Teams workflows) instead of dit's JSON message.
	Slack   bool
	Token   Secret // Authorization: Bearer, when set
	Timeout time.Duration
	Tries   int
	Kinds   []Kind // nil: every kind
	url     Secret // the URL as a secret, for redaction
}

// Redacted is the webhook as warnings name it: its name and its host,
// never its path or query (a Slack URL carries its key there).
func (w Webhook) Redacted() string {
	host := "?"
	if u, err := url.Parse(w.URL); err == nil && u.Host != "" {
		host = u.Host
	}
	if w.Name != "" {
		return fmt.Sprintf("webhook %q (%s)", w.Name, host)
	}
	return "webhook " + host
}

// Email is one SMTP channel.
type Email struct {
	Name     string
	Host     string
	Port     int
	User     string
	Password Secret
	From     string
	To       []string
	// TLS: "auto" (STARTTLS when the server offers it), "starttls"
	// (refuse a server that does not), "tls" (implicit TLS, port 465) or
	// "none".
	TLS     string
	Timeout time.Duration
	Tries   int
	Kinds   []Kind
	// Attach: the job's PDF report goes with job_done (default true).
	Attach bool
	// MaxAttachment bounds the attachments of one mail; a larger report
	// is named by its path only.
	MaxAttachment int64
}

// Redacted is the channel as warnings name it.
func (e Email) Redacted() string {
	if e.Name != "" {
		return fmt.Sprintf("e-mail %q (%s:%d)", e.Name, e.Host, e.Port)
	}
	return fmt.Sprintf("e-mail %s:%d", e.Host, e.Port)
}

// Wants reports whether kinds (nil: all) holds k; who wants to hear of a
// stall hears when it is over.
func wants(kinds []Kind, k Kind) bool {
	if k == Moving {
		k = Stalled
	}
	return kinds == nil || slices.Contains(kinds, k)
}

// Secret is a password or token read from the environment or a file. It
// prints as [redacted] whatever verb formats it.
type Secret struct {
	v    string
	from string // "$DIT_SMTP_PASSWORD" or the file
}

// NewSecret wraps a value (for code that builds a Config).
func NewSecret(v, from string) Secret { return Secret{v: v, from: from} }

// Value is the secret itself: for the wire only.
func (s Secret) Value() string { return s.v }

// IsSet reports whether there is a secret.
func (s Secret) IsSet() bool { return s.v != "" }

// From says where it came from, never what it is.
func (s Secret) From() string { return s.from }

func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from printing it.
func (s Secret) GoString() string { return s.String() }

// MarshalText keeps encoders from writing it.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Load reads the notify: section of the YAML file path. A file without one
// gives the zero Config.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("notification config: %w", err)
	}
	return Parse(b, path)
}

// DefaultPath is the user's config file: os.UserConfigDir()/dit/config.yaml.
func DefaultPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "dit", "config.yaml"), nil
}

// Parse reads the notify: section of a YAML document; name is the file it
// came from (in errors, and for password_file paths relative to it). Other
// top-level keys are left to their owners. Secrets are read from the
// environment or their files now, so a missing one is an error before any
// job starts.
func Parse(data []byte, name string) (Config, error) {
	cfg := Config{Source: name, Wait: DefaultWait, Queue: DefaultQueue}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return cfg, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return cfg, fmt.Errorf("%s:%d: the file is not a mapping of keys (such as notify:)", name, root.Line)
	}
	p := &parser{file: name, dir: filepath.Dir(name)}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "notify" {
			if err := p.notify(root.Content[i+1], &cfg); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

type parser struct {
	file, dir string
}

func (p *parser) errf(n *yaml.Node, key, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", p.file, n.Line, key, fmt.Sprintf(format, a...))
}

// fields walks a mapping, calling f for each key; unknown keys are errors
// naming the known ones.
func (p *parser) fields(n *yaml.Node, key string, known []string, f func(k string, v *yaml.Node, path string) error) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, key, "expected a mapping of keys (%s)", strings.Join(known, ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := key + "." + k.Value
		if seen[k.Value] {
			return p.errf(k, path, "given twice")
		}
		seen[k.Value] = true
		if secretKeys[k.Value] {
			// Never echo the value: it is a secret written where it must not be.
			return p.errf(k, path, "a secret is never written in the file: use %s_env (the name of an environment variable holding it) or %s_file (a file holding it)", k.Value, k.Value)
		}
		if !slices.Contains(known, k.Value) {
			return p.errf(k, path, "unknown key (known: %s)", strings.Join(known, ", "))
		}
		if err := f(k.Value, v, path); err != nil {
			return err
		}
	}
	return nil
}

// secretKeys may only come from the environment or a file.
var secretKeys = map[string]bool{"password": true, "token": true, "secret": true}

// list calls f for each element of a sequence, or once for a mapping.
func (p *parser) list(n *yaml.Node, key string, f func(v *yaml.Node, path string) error) error {
	switch n.Kind {
	case yaml.SequenceNode:
		for i, v := range n.Content {
			if err := f(v, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
		}
		return nil
	case yaml.MappingNode:
		return f(n, key)
	}
	if n.Tag == "!!null" {
		return nil
	}
	return p.errf(n, key, "expected a mapping or a list of them")
}

func (p *parser) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errf(n, key, "expected a single value")
	}
	return n.Value, nil
}

func (p *parser) strs(n *yaml.Node, key string) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		var out []string
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.errf(n, key, "expected a list")
	}
	var out []string
	for _, v := range n.Content {
		s, err := p.str(v, key)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) int(n *yaml.Node, key string, min int) (int, error) {
	s, err := p.str(n, key)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		return 0, p.errf(n, key, "%q: expected a whole number of at least %d", s, min)
	}
	return v, nil
}

func (p *parser) bool(n *yaml.Node, key string) (bool, error) {
	s, err := p.str(n, key)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, p.errf(n, key, "%q: expected true or false", s)
}

func (p *parser) duration(n *yaml.Node, key string) (time.Duration, error) {
	s, err := p.str(n, key)
	if err != nil {
		return 0, err
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, p.errf(n, key, "%q: expected a duration such as 10s or 2m", s)
	}
	return d, nil
}

func (p *parser) kinds(n *yaml.Node, key string) ([]Kind, error) {
	ss, err := p.strs(n, key)
	if err != nil {
		return nil, err
	}
	out := []Kind{}
	for _, s := range ss {
		if s == "all" {
			return nil, nil
		}
		if !slices.Contains(Kinds, Kind(s)) {
			return nil, p.errf(n, key, "%q: not a kind of notification (card_free, safe_to_format, job_done, failure, stalled or all)", s)
		}
		out = append(out, Kind(s))
	}
	return out, nil
}

// secret reads NAME_env or NAME_file.
func (p *parser) secret(n *yaml.Node, key, how string) (Secret, error) {
	s, err := p.str(n, key)
	if err != nil {
		return Secret{}, err
	}
	switch how {
	case "env":
		v, ok := os.LookupEnv(s)
		if !ok || v == "" {
			return Secret{}, p.errf(n, key, "the environment variable %s is not set (or empty)", s)
		}
		return Secret{v: v, from: "$" + s}, nil
	default:
		f := s
		if strings.HasPrefix(f, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				f = filepath.Join(h, f[2:])
			}
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(p.dir, f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return Secret{}, p.errf(n, key, "reading %s: %v", f, err)
		}
		v := strings.TrimRight(string(b), "\r\n")
		if v == "" {
			return Secret{}, p.errf(n, key, "%s is empty", f)
		}
		return Secret{v: v, from: f}, nil
	}
}

func (p *parser) notify(n *yaml.Node, cfg *Config) error {
	known := []string{"webhook", "webhooks", "email", "emails", "wait", "queue"}
	return p.fields(n, "notify", known, func(k string, v *yaml.Node, path string) error {
		var err error
		switch k {
		case "wait":
			cfg.Wait, err = p.duration(v, path)
		case "queue":
			cfg.Queue, err = p.int(v, path, 1)
		case "webhook", "webhooks":
			err = p.list(v, path, func(v *yaml.Node, path string) error {
				w, err := p.webhook(v, path)
				cfg.Webhooks = append(cfg.Webhooks, w)
				return err
			})
		case "email", "emails":
			err = p.list(v, path, func(v *yaml.Node, path string) error {
				e, err := p.email(v, path)
				cfg.Emails = append(cfg.Emails, e)
				return err
			})
		}
		return err
	})
}

func (p *parser) webhook(n *yaml.Node, key string) (Webhook, error) {
	w := Webhook{Timeout: DefaultWebhookTimeout, Tries: DefaultTries}
	known := []string{"name", "url", "url_env", "url_file", "format", "token_env", "token_file", "timeout", "tries", "events"}
	err := p.fields(n, key, known, func(k string, v *yaml.Node, path string) error {
		var err error
		switch k {
		case "name":
			w.Name, err = p.str(v, path)
		case "url":
			w.URL, err = p.str(v, path)
		case "url_env", "url_file":
			w.url, err = p.secret(v, path, strings.TrimPrefix(k, "url_"))
			w.URL = w.url.v
		case "format":
			var f string
			if f, err = p.str(v, path); err == nil {
				switch f {
				case "json", "dit":
				case "slack":
					w.Slack = true
				default:
					err = p.errf(v, path, "%q: use json (dit's message) or slack ({\"text\": ...})", f)
				}
			}
		case "token_env", "token_file":
			w.Token, err = p.secret(v, path, strings.TrimPrefix(k, "token_"))
		case "timeout":
			w.Timeout, err = p.duration(v, path)
		case "tries":
			w.Tries, err = p.int(v, path, 1)
		case "events":
			w.Kinds, err = p.kinds(v, path)
		}
		return err
	})
	if err != nil {
		return w, err
	}
	if w.URL == "" {
		return w, p.errf(n, key, "no url (give url, url_env or url_file)")
	}
	u, perr := url.Parse(w.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL may carry a key: never echo it.
		return w, p.errf(n, key+".url", "not an http:// or https:// URL")
	}
	if !w.url.IsSet() {
		w.url = Secret{v: w.URL, from: "url"}
	}
	return w, nil
}

func (p *parser) email(n *yaml.Node, key string) (Email, error) {
	e := Email{TLS: "auto", Timeout: DefaultEmailTimeout, Tries: DefaultTries, Attach: true, MaxAttachment: 20 << 20}
	known := []string{"name", "host", "port", "user", "username", "password_env", "password_file", "from", "to", "tls",
		"timeout", "tries", "events", "attach_report", "max_attachment_mb"}
	err := p.fields(n, key, known, func(k string, v *yaml.Node, path string) error {
		var err error
		switch k {
		case "name":
			e.Name, err = p.str(v, path)
		case "host":
			e.Host, err = p.str(v, path)
		case "port":
			e.Port, err = p.int(v, path, 1)
		case "user", "username":
			e.User, err = p.str(v, path)
		case "password_env", "password_file":
			e.Password, err = p.secret(v, path, strings.TrimPrefix(k, "password_"))
		case "from":
			e.From, err = p.str(v, path)
		case "to":
			e.To, err = p.strs(v, path)
		case "tls":
			if e.TLS, err = p.str(v, path); err == nil && !slices.Contains([]string{"auto", "starttls", "tls", "none"}, e.TLS) {
				err = p.errf(v, path, "%q: use auto (STARTTLS when offered), starttls (required), tls (implicit, port 465) or none", e.TLS)
			}
		case "timeout":
			e.Timeout, err = p.duration(v, path)
		case "tries":
			e.Tries, err = p.int(v, path, 1)
		case "events":
			e.Kinds, err = p.kinds(v, path)
		case "attach_report":
			e.Attach, err = p.bool(v, path)
		case "max_attachment_mb":
			var mb int
			mb, err = p.int(v, path, 0)
			e.MaxAttachment = int64(mb) << 20
		}
		return err
	})
	if err != nil {
		return e, err
	}
	switch {
	case e.Host == "":
		return e, p.errf(n, key, "no host (the SMTP server)")
	case e.From == "":
		return e, p.errf(n, key, "no from (the sender's address)")
	case len(e.To) == 0:
		return e, p.errf(n, key, "no to (one address or a list)")
	case e.Password.IsSet() && e.User == "":
		return e, p.errf(n, key, "a password without a user")
	}
	if e.Port == 0 {
		e.Port = 587
		switch e.TLS {
		case "tls":
			e.Port = 465
		case "none":
			e.Port = 25
		}
	}
	return e, nil
}
