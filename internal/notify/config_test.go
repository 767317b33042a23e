package notify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const fullConfig = `
preset:          # another part of dit's file: left alone
  dests: [a, b]
notify:
  wait: 45s
  queue: 10
  webhook:
    - name: slack
      url_env: DIT_TEST_SLACK_URL
      format: slack
      events: [safe_to_format, job_done, failure]
    - url: https://dit.example.com/hook
      token_env: DIT_TEST_TOKEN
      timeout: 2
      tries: 5
  email:
    host: smtp.example.com
    user: dit@example.com
    password_file: secret.txt
    from: "DIT cart <dit@example.com>"
    to: [dop@example.com, post@example.com]
    events: all
`

func TestNotifyConfigParse(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s3cr3t-pass\n"), 0o600))
	t.Setenv("DIT_TEST_SLACK_URL", "https://hooks.slack.com/services/T000/B000/XXXXSECRETKEY")
	t.Setenv("DIT_TEST_TOKEN", "tok-123456")
	file := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fullConfig), 0o644))
	cfg, err := Load(file)
	require.NoError(t, err)
	require.Equal(t, 45*time.Second, cfg.Wait)
	require.Equal(t, 10, cfg.Queue)
	require.Len(t, cfg.Webhooks, 2)
	s := cfg.Webhooks[0]
	require.True(t, s.Slack)
	require.Equal(t, []Kind{SafeToFormat, JobDone, Failure}, s.Kinds)
	require.Equal(t, "https://hooks.slack.com/services/T000/B000/XXXXSECRETKEY", s.URL)
	require.Equal(t, `webhook "slack" (hooks.slack.com)`, s.Redacted())
	h := cfg.Webhooks[1]
	require.Equal(t, "tok-123456", h.Token.Value())
	require.Equal(t, 2*time.Second, h.Timeout)
	require.Equal(t, 5, h.Tries)
	require.Nil(t, h.Kinds)
	require.Len(t, cfg.Emails, 1)
	e := cfg.Emails[0]
	require.Equal(t, "s3cr3t-pass", e.Password.Value())
	require.Equal(t, 587, e.Port)
	require.Equal(t, "auto", e.TLS)
	require.True(t, e.Attach)
	require.Nil(t, e.Kinds)
	require.Equal(t, []string{"dop@example.com", "post@example.com"}, e.To)

	// No secret prints, whatever formats the config.
	for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), mustJSON(t, cfg)} {
		require.NotContains(t, out, "s3cr3t-pass")
		require.NotContains(t, out, "tok-123456")
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestNotifyConfigNoSection(t *testing.T) {
	cfg, err := Parse([]byte("preset:\n  x: 1\n"), "c.yaml")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
	require.Nil(t, New(cfg))
	cfg, err = Parse(nil, "c.yaml")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
}

func TestNotifyConfigErrors(t *testing.T) {
	t.Setenv("DIT_TEST_EMPTY", "")
	for _, tc := range []struct{ yaml, want string }{
		{"notify:\n  webhook:\n    url: http://x\n    colour: red\n", "c.yaml:4: notify.webhook.colour: unknown key"},
		{"notify:\n  email:\n    host: h\n    from: a@b\n    to: c@d\n    user: u\n    password: hunter2hunter2\n", "c.yaml:7: notify.email.password: a secret is never written in the file: use password_env"},
		{"notify:\n  webhook:\n    - url: http://x\n    - url: http://y\n      token: abcdefgh-token\n", "c.yaml:5: notify.webhook[1].token: a secret is never written in the file: use token_env"},
		{"notify:\n  email:\n    host: h\n    from: a@b\n    to: c@d\n    user: u\n    password_env: DIT_TEST_UNSET_VAR\n", "c.yaml:7: notify.email.password_env: the environment variable DIT_TEST_UNSET_VAR is not set"},
		{"notify:\n  webhook:\n    url: http://x\n    token_env: DIT_TEST_EMPTY\n", "notify.webhook.token_env: the environment variable DIT_TEST_EMPTY is not set (or empty)"},
		{"notify:\n  webhook:\n    url: http://x\n    token_file: nope.txt\n", "c.yaml:4: notify.webhook.token_file: reading "},
		{"notify:\n  webhook:\n    url: ftp://secretpath\n", "c.yaml:3: notify.webhook.url: not an http:// or https:// URL"},
		{"notify:\n  webhook:\n    name: x\n", "c.yaml:3: notify.webhook: no url"},
		{"notify:\n  webhook:\n    url: http://x\n    events: [card_done]\n", `c.yaml:4: notify.webhook.events: "card_done": not a kind`},
		{"notify:\n  webhook:\n    url: http://x\n    timeout: soon\n", `c.yaml:4: notify.webhook.timeout: "soon": expected a duration`},
		{"notify:\n  email:\n    host: h\n    to: c@d\n", "c.yaml:3: notify.email: no from"},
		{"notify:\n  email:\n    host: h\n    from: a@b\n    to: c@d\n    tls: maybe\n", `notify.email.tls: "maybe": use auto`},
		{"notify:\n  wait: 1s\n  wait: 2s\n", "c.yaml:3: notify.wait: given twice"},
		{"notify: [1, 2]\n", "c.yaml:1: notify: expected a mapping"},
		{"notify:\n  webhook: {url: http://x\n", "c.yaml: "},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		require.Error(t, err, tc.yaml)
		require.Contains(t, err.Error(), tc.want)
		require.NotContains(t, err.Error(), "hunter2hunter2")
		require.NotContains(t, err.Error(), "abcdefgh-token")
		require.NotContains(t, err.Error(), "secretpath")
	}
}

func TestNotifySecretRedacted(t *testing.T) {
	s := NewSecret("hunter2", "$X")
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), mustJSON(t, map[string]Secret{"p": s})} {
		require.NotContains(t, out, "hunter2")
	}
	require.Equal(t, "hunter2", s.Value())
	require.Equal(t, "$X", s.From())
}
