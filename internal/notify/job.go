package notify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// LoadFile reads the notify: section of file: "" is the user's config
// file (DefaultPath; when there is none, nothing is sent), "none" sends
// nothing.
func LoadFile(file string) (Config, error) {
	switch file {
	case "none":
		return Config{}, nil
	case "":
		p, err := DefaultPath()
		if err != nil {
			return Config{}, nil
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return Config{}, nil
		}
		file = p
	}
	return Load(file)
}

// Tracker turns one job's engine events into the messages people get, the
// same for dit offload, dit watch and dit-gui:
//   - offload.EvCardFree: card_free;
//   - offload.EvCardDone, the card's end, carries its verdict (package
//     verdict, the read model every front end shows): safe_to_format
//     gives safe_to_format (a cascade's card only after its second run);
//     failed gives one failure per card (again after a retry), with each
//     destination's counts and a short reason (ShortReason) and its
//     failed files; a cascade's card whose first run ended verified but
//     whose second run could not start (a warning in place of its
//     card_free) too;
//   - a later verdict replaces an earlier failure: a card that failed (or
//     an earlier run of the job left failed or interrupted: Earlier) and
//     is then free or safe to format is said so, the message naming the
//     verdict it replaces (Message.Replaces);
//   - offload.EvStalled: stalled, naming the card (and its run), where
//     and the stall in the engine's words; offload.EvMoving after it:
//     moving, the stall is over;
//   - every message carries the host and the station (the cart), the
//     job, and for a card its state, files, bytes and destinations;
//   - Done: job_done with the summary's verdicts; Stopped: the job ended
//     with an error.
type Tracker struct {
	mu      sync.Mutex
	host    string
	cascade bool
	jobID   int64
	jobName string
	failed  map[run]*failedFiles // failed files per run
	// reasons: per run and destination, why its files failed, in a few
	// words.
	reasons map[run]map[string]string
	told    map[string]bool // cards whose failure was sent (since their last retry)
	// bad: per card, the bad verdict a notice said last (or an earlier
	// run of the job ended in): the next notice that it is free or safe
	// replaces it.
	bad map[string]verdict.State
	// awaitFree: a cascade's cards whose first run ended verified and
	// whose card_free has not come: the engine sends a warning in its
	// place when the second run cannot start.
	awaitFree map[string]bool
	stalls    map[run]stall // the runs stalled, as their notice said
	// Station is the cart's name in the catalog, carried by every
	// message.
	Station string
	// Resume says how this front end resumes job N ("dit offload --resume
	// N"), for the job_done of an interrupted job.
	Resume func(jobID int64) string
}

// run is one run of a card: its label and hop (2: a cascade's second
// run, from the first copy).
type run struct {
	card string
	hop  int
}

func runOf(e offload.Event) run { return run{e.Card, max(e.Hop, 1)} }

// NewTracker tracks job name (cascade: it has a second run).
func NewTracker(name string, cascade bool) *Tracker {
	host, _ := os.Hostname()
	return &Tracker{host: host, cascade: cascade, jobName: name, failed: map[run]*failedFiles{}, told: map[string]bool{},
		reasons: map[run]map[string]string{}, bad: map[string]verdict.State{}, awaitFree: map[string]bool{}, stalls: map[run]stall{},
		Resume: func(id int64) string { return fmt.Sprintf("dit offload --resume %d", id) }}
}

// SetCascade says whether the job is a cascade (a resumed one's
// destinations tell).
func (t *Tracker) SetCascade(c bool) {
	t.mu.Lock()
	t.cascade = c
	t.mu.Unlock()
}

// Earlier tells the tracker card's verdict when an earlier run of the job
// ended (a resume: the summary's): a bad one (failed, interrupted) is
// replaced by the notice that the card is free or safe to format.
func (t *Tracker) Earlier(card string, s verdict.State) {
	if !s.Bad() {
		return
	}
	t.mu.Lock()
	t.bad[card] = s
	t.mu.Unlock()
}

func (t *Tracker) msg(kind Kind, card, text string, at time.Time) Message {
	if at.IsZero() {
		at = time.Now()
	}
	return Message{Kind: kind, JobID: t.jobID, Job: t.jobName, Card: card, Text: text, Time: at, Host: t.host, Station: t.Station}
}

// Messages are the notifications engine event e makes (often none).
func (t *Tracker) Messages(e offload.Event) []Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.JobID != 0 {
		t.jobID = e.JobID
	}
	switch e.Type {
	case offload.EvJobStarted:
		if e.Message != "" {
			t.jobName = e.Message
		}
	case offload.EvFile:
		if e.State == verdict.Failed {
			t.fileFailed(e)
		}
	case offload.EvCardRetried:
		// The card runs again: a failure of it is said again.
		r := runOf(e)
		delete(t.told, e.Card)
		delete(t.failed, r)
		delete(t.reasons, r)
		delete(t.stalls, r)
	case offload.EvRunDone:
		delete(t.stalls, runOf(e))
		if t.cascade && runOf(e).hop == 1 && e.State == verdict.Verified {
			t.awaitFree[e.Card] = true
		}
	case offload.EvCardFree:
		delete(t.awaitFree, e.Card)
		text := fmt.Sprintf("Card %s is verified on the first-run destinations: it may leave the reader. Do NOT format it until its second run is verified.", e.Card)
		return []Message{t.better(t.msg(CardFree, e.Card, text, e.Time))}
	case offload.EvWarning:
		// In a cascade, a warning in place of a verified card's
		// card_free: its second run could not start, the engine recorded
		// it failed (no card_done follows).
		if t.awaitFree[e.Card] && runOf(e).hop == 1 {
			delete(t.awaitFree, e.Card)
			if !t.told[e.Card] {
				t.told[e.Card], t.bad[e.Card] = true, verdict.Failed
				return []Message{t.msg(Failure, e.Card, e.Message, e.Time)}
			}
		}
	case offload.EvStalled:
		return t.stalled(e)
	case offload.EvMoving:
		return t.moving(e)
	case offload.EvCardDone:
		delete(t.stalls, run{e.Card, 1})
		delete(t.stalls, run{e.Card, 2})
		return t.cardDone(e)
	}
	return nil
}

// fileFailed records failed file event e: its path and why, per
// destination.
func (t *Tracker) fileFailed(e offload.Event) {
	r := runOf(e)
	ff := t.failed[r]
	if ff == nil {
		ff = &failedFiles{}
		t.failed[r] = ff
	}
	ff.n++
	if len(ff.first) < failedShown {
		ff.first = append(ff.first, e.Path)
	}
	if t.reasons[r] == nil {
		t.reasons[r] = map[string]string{}
	}
	for _, cp := range e.Copies {
		if cp.State == offload.CopyFailed && cp.Error != "" && t.reasons[r][cp.Dest] == "" {
			t.reasons[r][cp.Dest] = ShortReason(cp.Error)
		}
	}
	if len(e.Copies) == 0 && t.reasons[r][cardSide] == "" {
		t.reasons[r][cardSide] = ShortReason(FileFailure(e))
	}
}

// failedShown is how many failed files a card's failure notice names
// (the first ones, in the order they failed: a card is copied in the
// order of its paths).
const failedShown = 10

// failedFiles are a run's failed files: their count and the first
// failedShown paths, all a notice says: a card of a million frames whose
// destination went away holds ten paths here, not a million.
type failedFiles struct {
	n     int
	first []string
}

// cardSide is where a file failed on the card's side (no copy of it).
const cardSide = "(card)"

// cardDone is the notice of the card's end (card_done e): its verdict,
// the event's (the read model's).
func (t *Tracker) cardDone(e offload.Event) []Message {
	switch e.State {
	case verdict.Safe:
		text := fmt.Sprintf("Card %s is verified on every destination and its hash lists are written: safe to format.", e.Card)
		if t.cascade {
			text = fmt.Sprintf("Card %s: the second run is verified too: the card is verified on every destination: safe to format.", e.Card)
		}
		at := e.Time
		if e.Summary != nil && !e.Summary.SafeAt.IsZero() {
			at = e.Summary.SafeAt
		}
		return []Message{t.better(t.cardMsg(SafeToFormat, e, text, at))}
	case verdict.Failed:
		if t.told[e.Card] {
			return nil
		}
		t.told[e.Card], t.bad[e.Card] = true, e.State
		var files []string
		n := 0
		for _, ff := range []*failedFiles{t.failed[run{e.Card, 1}], t.failed[run{e.Card, 2}]} {
			if ff != nil {
				files, n = append(files, ff.first...), n+ff.n
			}
		}
		return []Message{t.cardMsg(Failure, e, t.failureText(e, files[:min(len(files), failedShown)], n), e.Time)}
	}
	return nil
}

// better is m (card_free, safe_to_format) replacing the card's earlier
// bad verdict, if a notice said one: it names it.
func (t *Tracker) better(m Message) Message {
	was, ok := t.bad[m.Card]
	if !ok {
		return m
	}
	delete(t.bad, m.Card)
	m.Replaces = was
	m.Text += fmt.Sprintf("\nThis replaces the earlier notice: card %s was %s; it is now %s.", m.Card, was.Label(), m.Kind.now())
	return m
}

// Stopped is the failure of a job that ended with err.
func (t *Tracker) Stopped(err error) Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.msg(Failure, "", "The job stopped: "+err.Error(), time.Now())
}

// Done is the job's end: its verdicts (attach the PDF report to it).
func (t *Tracker) Done(s *offload.Summary) Message {
	t.mu.Lock()
	m := t.msg(JobDone, "", t.doneText(s), time.Now())
	t.mu.Unlock()
	m.JobID, m.Job = s.JobID, s.Name
	if s.Host != "" {
		m.Host = s.Host
	}
	code := s.ExitCode
	m.ExitCode = &code
	m.State, m.Files, m.Bytes = s.Status, s.Files, s.Bytes
	for _, c := range s.Cards {
		m.Cards = append(m.Cards, CardStatus{Card: c.Label, State: c.Status, SafeToFormat: c.SafeToFormat, CardFree: c.CardFree,
			Files: c.Files, Bytes: c.Bytes, Verdict: c.Verdict, Destinations: t.dests(c.Label, c), Summary: &c})
	}
	return m
}

// doneText is the job's summary in a few lines.
func (t *Tracker) doneText(s *offload.Summary) string {
	var b strings.Builder
	state := s.State
	switch s.ExitCode {
	case offload.ExitOK:
		state = "done: every card verified"
	case offload.ExitSomeFailed:
		state = "ended: some files failed or a card is not safe to format"
	case offload.ExitInterrupted:
		state = "interrupted: " + t.Resume(s.JobID) + " goes on"
	case offload.ExitFatal:
		state = "failed"
	}
	fmt.Fprintf(&b, "Job %s (#%d) %s (exit %d).\n", s.Name, s.JobID, state, s.ExitCode)
	fmt.Fprintf(&b, "%s, %s, %s", plural(len(s.Cards), "card"), plural(s.Files, "file"), units.FormatBytes(s.Bytes))
	if s.Seconds > 0 {
		fmt.Fprintf(&b, " in %s", units.FormatDuration(time.Duration(s.Seconds*float64(time.Second))))
	}
	if s.TBPerHour > 0 {
		fmt.Fprintf(&b, ", %s", units.FormatTBPerHour(s.TBPerHour))
	}
	if s.Failed > 0 {
		fmt.Fprintf(&b, "; %s FAILED", plural(s.Failed, "file"))
	}
	b.WriteString(".\n")
	for _, c := range s.Cards {
		fmt.Fprintf(&b, "%s: %s\n", c.Label, c.Verdict)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	return strings.TrimRight(b.String(), "\n")
}

// cardMsg is a message about the card of card_done event e: its state,
// counts and destinations (both runs), each with why its files failed.
func (t *Tracker) cardMsg(kind Kind, e offload.Event, text string, at time.Time) Message {
	m := t.msg(kind, e.Card, text, at)
	m.State = e.State
	if s := e.Summary; s != nil {
		m.Files, m.Bytes = s.Files, s.Bytes
		m.Destinations = t.dests(e.Card, *s)
		m.Summary = s
	}
	return m
}

// dests are card c's destinations (both runs), each with its counts and
// the reason its files failed ("" when none did).
func (t *Tracker) dests(label string, c offload.CardSummary) []DestStatus {
	reason := func(r run, path string) string {
		for d, why := range t.reasons[r] {
			if d == path || strings.HasPrefix(path, d+"/") || strings.HasPrefix(d, path) {
				return why
			}
		}
		return ""
	}
	var out []DestStatus
	for _, d := range c.Destinations {
		ds := DestStatus{Path: d.Path, Verified: d.Verified, Failed: d.Failed}
		if d.Failed > 0 {
			ds.Reason = reason(run{label, 1}, d.Path)
		}
		out = append(out, ds)
	}
	if c.Then != nil {
		for _, d := range c.Then.Destinations {
			ds := DestStatus{Path: d.Path, Verified: d.Verified, Failed: d.Failed}
			if d.Failed > 0 {
				ds.Reason = reason(run{label, 2}, d.Path)
			}
			out = append(out, ds)
		}
	}
	return out
}

// ShortReason is an error in a few words for a person off the cart: "no
// space left on device" rather than the temp file's path.
func ShortReason(err string) string {
	err = firstLine(err)
	low := strings.ToLower(err)
	switch {
	case strings.Contains(low, "no space left"):
		return "destination full (no space left on device)"
	case strings.Contains(low, "input/output error"):
		return "I/O error on the destination"
	case strings.Contains(low, "read-only file system"):
		return "destination is read-only"
	case strings.Contains(low, "permission denied"):
		return "permission denied"
	case strings.Contains(low, "mismatch") || strings.Contains(low, "differs"):
		return "a copy read back different from the card"
	}
	if i := strings.LastIndex(err, ": "); i >= 0 && len(err)-i > 8 {
		err = err[i+2:]
	}
	if r := []rune(err); len(r) > 100 {
		err = string(r[:100]) + "..."
	}
	return err
}

// failureText tells one card's failure: why, per destination, then its
// failed files (n; the first ten named in files, by their path on the
// card).
func (t *Tracker) failureText(e offload.Event, files []string, n int) string {
	var b strings.Builder
	if n > 0 {
		fmt.Fprintf(&b, "Card %s: %s FAILED: NOT safe to format.\n", e.Card, plural(n, "file"))
	} else {
		fmt.Fprintf(&b, "Card %s FAILED: NOT safe to format.\n", e.Card)
	}
	if e.Summary != nil {
		for _, d := range t.dests(e.Card, *e.Summary) {
			if d.Failed > 0 {
				r := d.Reason
				if r == "" {
					r = "failed"
				}
				fmt.Fprintf(&b, "%s: %s (%s)\n", d.Path, r, plural(d.Failed, "file"))
			}
		}
	}
	if e.Message != "" && !strings.HasSuffix(e.Message, "file(s) failed") {
		b.WriteString(e.Message + "\n")
	}
	for _, f := range files {
		b.WriteString("  " + f + "\n")
	}
	if n > len(files) {
		fmt.Fprintf(&b, "... and %d more\n", n-len(files))
	}
	return strings.TrimRight(b.String(), "\n")
}

// FileFailure is why a file failed (an EvFile failed event): its copies' errors, else the event's.
func FileFailure(e offload.Event) string {
	var parts []string
	for _, cp := range e.Copies {
		if cp.State == offload.CopyFailed && cp.Error != "" {
			parts = append(parts, "on "+cp.Dest+": "+cp.Error)
		}
	}
	if len(parts) == 0 {
		if e.Message != "" {
			return e.Message
		}
		return "failed"
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
