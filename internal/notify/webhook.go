package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

type webhook struct {
	cfg    Webhook
	client *http.Client
}

func (h *webhook) name() string  { return h.cfg.Redacted() }
func (h *webhook) kinds() []Kind { return h.cfg.Kinds }
func (h *webhook) tries() int    { return max(h.cfg.Tries, 1) }

// Payload is the JSON a webhook receives (format: json): the message, and
// its subject as "title".
type Payload struct {
	Message
	Title string `json:"title"`
}

// SlackText is the text of a Slack-compatible payload.
func SlackText(m Message) string {
	var b strings.Builder
	b.WriteString("*" + m.Subject() + "*")
	if m.Text != "" {
		b.WriteString("\n" + m.Text)
	}
	return b.String()
}

func (h *webhook) body(m Message) ([]byte, error) {
	if h.cfg.Slack {
		return json.Marshal(map[string]string{"text": SlackText(m)})
	}
	return json.Marshal(Payload{Message: m, Title: m.Subject()})
}

func (h *webhook) send(ctx context.Context, m Message) error {
	body, err := h.body(m)
	if err != nil {
		return permanent{err}
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return permanent{errors.New("bad URL")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "dit")
	if h.cfg.Token.IsSet() {
		req.Header.Set("Authorization", "Bearer "+h.cfg.Token.Value())
	}
	resp, err := h.client.Do(req)
	if err != nil {
		// A *url.Error names the whole URL (a Slack URL carries its key):
		// only the cause is told.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %s", h.cfg.Timeout)
		}
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	err = fmt.Errorf("the server answered %s", resp.Status)
	if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return permanent{err}
	}
	return err
}
