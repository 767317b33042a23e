package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// loadNotifyConfig reads the notify: section of file: "" is the user's
// config file (notify.DefaultPath, which may be absent: nothing is sent
// then), "none" sends nothing.
func loadNotifyConfig(file string) (notify.Config, error) {
	switch file {
	case "none":
		return notify.Config{}, nil
	case "":
		p, err := notify.DefaultPath()
		if err != nil {
			return notify.Config{}, nil
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return notify.Config{}, nil
		}
		file = p
	}
	return notify.Load(file)
}

// jobNotify tells people what a job does, as dit offload does
// (cmd/dit/notify.go): the same messages go to the channels of the
// notify: config (webhooks, e-mail) and to the desktop
// (fyne.App.SendNotification); a failure also raises the banner.
//
//   - EvCardFree: card_free;
//   - a card verified on every destination: safe_to_format (in a cascade
//     its second run verified; without one, its card_done verified);
//   - failed files or a failed card: one failure per card (run), when it
//     ends, naming its failed files;
//   - the job's end: job_done with its verdicts (the PDF report attached),
//     or a failure when the job stopped.
//
// A nil *jobNotify does nothing.
type jobNotify struct {
	a    *App
	n    *notify.Notifier // the config's channels (nil: none)
	host string

	mu      sync.Mutex
	cascade bool
	jobID   int64
	jobName string
	failed  map[string][]string // failed files per card (run) label
	told    map[string]bool     // cards whose failure was sent
	reports func() []string     // the job's report files, once written
}

// notifyJob wires the job's notifications into opts.OnEvent: the config
// of file (see loadNotifyConfig; "" is Config.NotifyConfig) and the
// desktop. A config that cannot be read raises the banner; the job goes
// on with desktop notifications only.
func (a *App) notifyJob(file string, cascade bool, opts *offload.Options) *jobNotify {
	if file == "" {
		file = a.cfg.NotifyConfig
	}
	cfg, err := loadNotifyConfig(file)
	if err != nil {
		a.do(func() { a.banner.add("Notifications (webhook, e-mail) are off for this job: " + err.Error()) })
	}
	j := newJobNotify(a, notify.New(cfg), cascade, opts.Name)
	prev := opts.OnEvent
	opts.OnEvent = func(e offload.Event) {
		if prev != nil {
			prev(e)
		}
		j.event(e)
	}
	return j
}

func newJobNotify(a *App, n *notify.Notifier, cascade bool, name string) *jobNotify {
	host, _ := os.Hostname()
	return &jobNotify{a: a, n: n, host: host, cascade: cascade, jobName: name,
		failed: map[string][]string{}, told: map[string]bool{}}
}

// setCascade says whether the job is a cascade (read from the catalog: a
// resumed one too).
func (j *jobNotify) setCascade(c bool) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.cascade = c
	j.mu.Unlock()
}

func (j *jobNotify) msg(kind notify.Kind, card, text string, t time.Time) notify.Message {
	if t.IsZero() {
		t = time.Now()
	}
	return notify.Message{Kind: kind, JobID: j.jobID, Job: j.jobName, Card: card, Text: text, Time: t, Host: j.host}
}

// event sends what an engine event tells.
func (j *jobNotify) event(e offload.Event) {
	for _, m := range j.messages(e) {
		j.send(m)
	}
}

// messages are the notifications an engine event makes.
func (j *jobNotify) messages(e offload.Event) []notify.Message {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e.JobID != 0 {
		j.jobID = e.JobID
	}
	switch e.Type {
	case offload.EvJobStarted:
		if e.Message != "" {
			j.jobName = e.Message
		}
	case offload.EvFile:
		if e.State == offload.StateFailed {
			j.failed[e.Card] = append(j.failed[e.Card], e.Path+": "+firstLine(fileFailure(e)))
		}
	case offload.EvCardFree:
		text := fmt.Sprintf("Card %s is verified on the first-run destinations: it may leave the reader. Do NOT format it until its second run is verified.", e.Card)
		return []notify.Message{j.msg(notify.CardFree, e.Card, text, e.Time)}
	case offload.EvWarning:
		// A second run that could not start: the card is not safe to
		// format, and no card_done follows.
		if e.Card != "" && strings.Contains(e.Message, "NOT safe to format") && !j.told[e.Card] {
			j.told[e.Card] = true
			return []notify.Message{j.msg(notify.Failure, e.Card, e.Message, e.Time)}
		}
	case offload.EvCardDone:
		second := strings.HasSuffix(e.Card, offload.SecondRunSuffix)
		card := strings.TrimSuffix(e.Card, offload.SecondRunSuffix)
		files := j.failed[e.Card]
		switch {
		case e.State == offload.StateVerified && len(files) == 0 && (second || !j.cascade):
			text := fmt.Sprintf("Card %s is verified on every destination and its hash lists are written: safe to format.", card)
			if second {
				text = fmt.Sprintf("Card %s: the second run is verified too: the card is verified on every destination: safe to format.", card)
			}
			return []notify.Message{j.msg(notify.SafeToFormat, card, text, e.Time)}
		case len(files) > 0 || e.State == offload.StateFailed || (e.State == "sealing" && e.Message != ""):
			if j.told[e.Card] {
				break
			}
			j.told[e.Card] = true
			return []notify.Message{j.msg(notify.Failure, e.Card, cardFailureText(e, files), e.Time)}
		}
	}
	return nil
}

// cardFailureText tells one card's failure: its failed files (the first
// ten).
func cardFailureText(e offload.Event, files []string) string {
	var b strings.Builder
	if len(files) > 0 {
		fmt.Fprintf(&b, "Card %s: %s FAILED: NOT safe to format.\n", e.Card, plural(len(files), "file"))
	} else {
		fmt.Fprintf(&b, "Card %s FAILED: NOT safe to format.\n", e.Card)
	}
	if e.Message != "" && !strings.HasSuffix(e.Message, "file(s) failed") {
		b.WriteString(e.Message + "\n")
	}
	for i, f := range files {
		if i == 10 {
			fmt.Fprintf(&b, "... and %d more\n", len(files)-10)
			break
		}
		b.WriteString("  " + f + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// send hands m to the config's channels and the desktop; a failure also
// raises the banner.
func (j *jobNotify) send(m notify.Message) {
	if j.n != nil {
		j.n.Notify(m)
	}
	j.a.desktopNotify(m.Subject(), m.Text)
	if m.Kind == notify.Failure {
		j.a.do(func() { j.a.banner.add(bannerSubject(m.Subject()) + ": " + firstLine(m.Text)) })
	}
}

// bannerSubject drops the "dit: " of a subject.
func bannerSubject(s string) string { return strings.TrimPrefix(s, "dit: ") }

// close sends the job's end (sum; or a failure when the job stopped with
// runErr; neither: the job never started), waits a bounded time for what
// is pending, and raises the banner with what did not go out (call in a
// goroutine).
func (j *jobNotify) close(sum *offload.Summary, runErr error) {
	if j == nil {
		return
	}
	switch {
	case runErr != nil:
		j.mu.Lock()
		m := j.msg(notify.Failure, "", "The job stopped: "+runErr.Error(), time.Now())
		j.mu.Unlock()
		j.send(m)
	case sum != nil:
		j.send(j.jobDone(sum))
	}
	if j.n == nil {
		return
	}
	wait := j.n.Wait()
	j.a.jobMu.Lock()
	if j.a.closing {
		wait = min(wait, 5*time.Second)
	}
	j.a.jobMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if warns := j.n.Close(ctx); len(warns) > 0 {
		j.a.do(func() {
			for _, w := range warns {
				j.a.banner.add("Notification failed: " + w)
			}
		})
	}
}

// jobDone is the job's end: its verdicts, its PDF report attached.
func (j *jobNotify) jobDone(s *offload.Summary) notify.Message {
	j.mu.Lock()
	m := j.msg(notify.JobDone, "", jobDoneText(s), time.Now())
	j.mu.Unlock()
	m.JobID, m.Job = s.JobID, s.Name
	if s.Host != "" {
		m.Host = s.Host
	}
	code := s.ExitCode
	m.ExitCode = &code
	for _, c := range s.Cards {
		m.Cards = append(m.Cards, notify.CardStatus{Card: c.Label, SafeToFormat: c.SafeToFormat, Verdict: c.Verdict})
	}
	if j.reports != nil {
		for _, p := range j.reports() {
			if !strings.HasSuffix(p, ".pdf") {
				continue
			}
			if data, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(data), "%PDF") {
				m.Attachments = []notify.Attachment{{Name: p[strings.LastIndex(p, string(os.PathSeparator))+1:],
					ContentType: "application/pdf", Path: p, Data: data}}
				break
			}
		}
	}
	return m
}

// jobDoneText is the job's summary in a few lines.
func jobDoneText(s *offload.Summary) string {
	var b strings.Builder
	state := s.State
	switch s.ExitCode {
	case offload.ExitOK:
		state = "done: every card verified"
	case offload.ExitSomeFailed:
		state = "ended: some files failed or a card is not safe to format"
	case offload.ExitInterrupted:
		state = fmt.Sprintf("interrupted: resume job %d from History", s.JobID)
	case offload.ExitFatal:
		state = "failed"
	}
	fmt.Fprintf(&b, "Job %s (#%d) %s.\n", s.Name, s.JobID, state)
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
	return strings.TrimRight(b.String(), "\n")
}

// desktopNotify shows a desktop notification (fyne.App.SendNotification,
// or Config.SendNotification).
func (a *App) desktopNotify(title, text string) {
	n := fyne.NewNotification(title, text)
	a.do(func() {
		if a.cfg.SendNotification != nil {
			a.cfg.SendNotification(n)
			return
		}
		a.fa.SendNotification(n)
	})
}
