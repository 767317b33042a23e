package notify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// Message is one notification.
type Message struct {
	Kind  Kind      `json:"kind"`
	JobID int64     `json:"job_id"`
	Job   string    `json:"job"`
	Card  string    `json:"card,omitempty"`
	Text  string    `json:"text"`
	Time  time.Time `json:"time"`
	// Host is the machine running the job; Station the cart (the
	// catalog's station name), so two carts in one channel differ.
	Host    string `json:"host,omitempty"`
	Station string `json:"station,omitempty"`
	// State is the card's state (card messages) or the job's (job_done)
	// as the verdict model decides it (package verdict).
	State verdict.State `json:"state,omitempty"`
	// Replaces is the card's earlier bad verdict (failed, interrupted) a
	// notice said, which this one (card_free, safe_to_format) replaces: a
	// failure resolved by a retry or a resume.
	Replaces verdict.State `json:"replaces,omitempty"`
	// Hop is 2 when the message is about a cascade's second run (stalled,
	// moving); Where is where a stall is: a destination's root, or the
	// card's side.
	Hop   int    `json:"hop,omitempty"`
	Where string `json:"where,omitempty"`
	// Files and Bytes count the card's files (card messages) or the job's.
	Files int   `json:"files,omitempty"`
	Bytes int64 `json:"bytes,omitempty"`
	// Destinations are the card's destinations (both runs of a cascade)
	// with their counts and, for a failure, a short reason each.
	Destinations []DestStatus `json:"destinations,omitempty"`
	// Summary is the card (safe_to_format, failure) in the one card
	// shape dit jobs --json, dit day --json, dit job show --json, dit
	// serve's /api/status and the events' card_done give: the engine's
	// offload.CardSummary, as it is.
	Summary *offload.CardSummary `json:"summary,omitempty"`
	// Cards are the job's verdicts (job_done).
	Cards []CardStatus `json:"cards,omitempty"`
	// ExitCode is dit's exit code for the job (job_done).
	ExitCode *int `json:"exit_code,omitempty"`
	// Attachments go with the mail; a webhook carries their names and
	// paths only.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// CardStatus is one card's verdict in a job_done message.
type CardStatus struct {
	Card         string        `json:"card"`
	State        verdict.State `json:"state"`
	SafeToFormat bool          `json:"safe_to_format"`
	CardFree     bool          `json:"card_free,omitempty"`
	Files        int           `json:"files"`
	Bytes        int64         `json:"bytes"`
	Verdict      string        `json:"verdict"`
	Destinations []DestStatus  `json:"destinations,omitempty"`
	// Summary is the card in the one card shape (see Message.Summary).
	Summary *offload.CardSummary `json:"summary,omitempty"`
}

// DestStatus is one card's files on one destination: how many are
// verified and failed, and why they failed, in a few words.
type DestStatus struct {
	Path     string `json:"path"`
	Verified int    `json:"verified"`
	Failed   int    `json:"failed"`
	Reason   string `json:"reason,omitempty"`
}

// Attachment is a file sent with a message: Data, or else the file at Path
// read when it is sent.
type Attachment struct {
	Name        string `json:"name"`
	Path        string `json:"path,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Data        []byte `json:"-"`
}

// Subject is the message in one line: job, card and state, plainly.
func (m Message) Subject() string {
	job := fmt.Sprintf("job %s (#%d)", m.Job, m.JobID)
	if m.Station != "" {
		job = m.Station + ": " + job
	}
	switch m.Kind {
	case CardFree:
		if m.Replaces != "" {
			return fmt.Sprintf("dit: %s: card %s now free (was %s): it may leave the reader, NOT be formatted yet", job, m.Card, m.Replaces.Label())
		}
		return fmt.Sprintf("dit: %s: card %s free: it may leave the reader, NOT be formatted yet", job, m.Card)
	case SafeToFormat:
		if m.Replaces != "" {
			return fmt.Sprintf("dit: %s: card %s now verified: safe to format (was %s)", job, m.Card, m.Replaces.Label())
		}
		return fmt.Sprintf("dit: %s: card %s verified: safe to format", job, m.Card)
	case Stalled:
		return fmt.Sprintf("dit: %s: card %s%s stalled at %s", job, m.Card, secondRun(m.Hop), m.Where)
	case Moving:
		return fmt.Sprintf("dit: %s: card %s%s moving again", job, m.Card, secondRun(m.Hop))
	case Failure:
		if m.Card != "" {
			return fmt.Sprintf("dit: %s: card %s FAILED: NOT safe to format", job, m.Card)
		}
		return fmt.Sprintf("dit: %s FAILED", job)
	case JobDone:
		safe, n := 0, len(m.Cards)
		for _, c := range m.Cards {
			if c.SafeToFormat {
				safe++
			}
		}
		switch {
		case m.ExitCode != nil && *m.ExitCode == 0:
			return fmt.Sprintf("dit: %s done: %d of %d card(s) safe to format", job, safe, n)
		case m.State == verdict.Failed || m.State == verdict.Interrupted:
			return fmt.Sprintf("dit: %s %s: %d of %d card(s) safe to format: needs attention", job, strings.ToUpper(string(m.State)), safe, n)
		default:
			return fmt.Sprintf("dit: %s ended: %d of %d card(s) safe to format: needs attention", job, safe, n)
		}
	}
	return fmt.Sprintf("dit: %s: %s", job, m.Kind)
}

// secondRun names a cascade's second run (hop 2) after a card's label.
func secondRun(hop int) string {
	if hop == 2 {
		return " (second run)"
	}
	return ""
}

// sink is one channel.
type sink interface {
	name() string
	kinds() []Kind
	tries() int
	send(ctx context.Context, m Message) error
}

// permanent marks an error no retry will fix.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Notifier delivers messages to the configured channels in the background.
// Notify never blocks; Close waits a bounded time for what is pending. A
// Notifier never fails its caller: what did not go out is in Close's
// warnings.
type Notifier struct {
	cfg     Config
	workers []*worker
	ctx     context.Context // cancelled when Close gives up
	cancel  context.CancelFunc
	mu      sync.RWMutex
	closed  bool
	// Backoff is the wait before the second try, doubled for each next
	// one (0: 500ms).
	backoff time.Duration
	secrets []string
}

type worker struct {
	n       *Notifier
	s       sink
	q       chan Message
	done    chan struct{}
	mu      sync.Mutex
	dropped int
	fails   []string
	down    bool // the last message failed every try: next ones get one
}

// Option tunes a Notifier (tests).
type Option func(*Notifier)

// WithBackoff sets the wait before the second try (doubled each next one).
func WithBackoff(d time.Duration) Option { return func(n *Notifier) { n.backoff = d } }

// WithHTTPClient sets the webhooks' client.
func WithHTTPClient(c *http.Client) Option {
	return func(n *Notifier) {
		for _, w := range n.workers {
			if h, ok := w.s.(*webhook); ok {
				h.client = c
			}
		}
	}
}

// New starts a Notifier for cfg (nil when cfg sends nothing: every method
// of a nil Notifier does nothing).
func New(cfg Config, opts ...Option) *Notifier {
	if cfg.Empty() {
		return nil
	}
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	n := &Notifier{cfg: cfg, backoff: 500 * time.Millisecond}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, w := range cfg.Webhooks {
		n.add(&webhook{cfg: w, client: &http.Client{}})
		n.secrets = append(n.secrets, w.Token.v, w.url.v)
	}
	for _, e := range cfg.Emails {
		n.add(&mailer{cfg: e})
		n.secrets = append(n.secrets, e.Password.v)
	}
	for _, o := range opts {
		o(n)
	}
	for _, w := range n.workers {
		go w.run()
	}
	return n
}

func (n *Notifier) add(s sink) {
	n.workers = append(n.workers, &worker{n: n, s: s, q: make(chan Message, n.cfg.Queue), done: make(chan struct{})})
}

// Wait is how long Close should be given at the end of a job.
func (n *Notifier) Wait() time.Duration {
	if n == nil {
		return 0
	}
	return n.cfg.Wait
}

// Notify queues m for every channel that wants its kind. It never blocks:
// a channel whose queue is full drops it (a warning at Close).
func (n *Notifier) Notify(m Message) {
	if n == nil {
		return
	}
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return
	}
	for _, w := range n.workers {
		if !wants(w.s.kinds(), m.Kind) {
			continue
		}
		select {
		case w.q <- m:
		default:
			w.mu.Lock()
			w.dropped++
			w.mu.Unlock()
		}
	}
}

// Close stops taking messages and waits for the pending ones until ctx
// ends (give it Wait()); then it abandons the rest. It returns what did
// not go out, one line each, secrets redacted.
func (n *Notifier) Close(ctx context.Context) []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, w := range n.workers {
			close(w.q)
		}
	}
	n.mu.Unlock()
	all := make(chan struct{})
	go func() {
		for _, w := range n.workers {
			<-w.done
		}
		close(all)
	}()
	select {
	case <-all:
	case <-ctx.Done():
		// Abandon: in-flight deliveries are cut, queued ones counted.
		n.cancel()
		select {
		case <-all:
		case <-time.After(2 * time.Second):
		}
	}
	n.cancel()
	var out []string
	for _, w := range n.workers {
		w.mu.Lock()
		out = append(out, w.fails...)
		if w.dropped > 0 {
			out = append(out, fmt.Sprintf("by %s: %d message(s) dropped: too many waiting while it was slow", w.s.name(), w.dropped))
		}
		w.mu.Unlock()
	}
	for i := range out {
		out[i] = n.redact(out[i])
	}
	return out
}

// redact replaces every secret in s.
func (n *Notifier) redact(s string) string {
	for _, v := range n.secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}

func (w *worker) run() {
	defer close(w.done)
	for m := range w.q {
		if w.n.ctx.Err() != nil {
			w.fail(m, "not sent: gave up waiting at the end of the job")
			continue
		}
		tries := w.s.tries()
		if w.down {
			tries = 1
		}
		var err error
		n := 0
		for n < tries {
			if n > 0 && !sleep(w.n.ctx, w.n.backoff<<(n-1)) {
				break
			}
			n++
			if err = w.s.send(w.n.ctx, m); err == nil {
				break
			}
			var p permanent
			if errors.As(err, &p) {
				break
			}
		}
		w.down = err != nil
		switch {
		case err == nil:
		case w.n.ctx.Err() != nil:
			w.fail(m, fmt.Sprintf("not sent: gave up waiting at the end of the job (%v)", err))
		default:
			w.fail(m, fmt.Sprintf("not sent: %v (%d tr%s)", err, n, map[bool]string{true: "y", false: "ies"}[n == 1]))
		}
	}
}

const maxFails = 10

func (w *worker) fail(m Message, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case len(w.fails) < maxFails:
		what := string(m.Kind)
		if m.Card != "" {
			what += " " + m.Card
		}
		w.fails = append(w.fails, fmt.Sprintf("%s of job %d by %s %s", what, m.JobID, w.s.name(), why))
	case len(w.fails) == maxFails:
		w.fails = append(w.fails, fmt.Sprintf("by %s: more messages not sent", w.s.name()))
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
