package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// NotifyHook is a webhook receiver: the messages in the order received.
type NotifyHook struct {
	*httptest.Server
	Mu   sync.Mutex
	Msgs []map[string]any
	Auth []string
}

// NewNotifyHook starts a webhook receiver, closed when the test ends.
func NewNotifyHook(t *testing.T) *NotifyHook {
	h := &NotifyHook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		h.Mu.Lock()
		h.Msgs = append(h.Msgs, m)
		h.Auth = append(h.Auth, r.Header.Get("Authorization"))
		h.Mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// Got is a copy of the messages received so far.
func (h *NotifyHook) Got() []map[string]any {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return append([]map[string]any(nil), h.Msgs...)
}

// KindsOf lists "kind card" of each message.
func KindsOf(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		s := fmt.Sprint(m["kind"])
		if c, ok := m["card"].(string); ok {
			s += " " + c
		}
		out = append(out, s)
	}
	return out
}
