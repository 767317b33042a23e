package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
)

// loadNotifyConfig reads the notify: section of file (notify.LoadFile:
// "" the user's config file, "none" nothing).
func loadNotifyConfig(file string) (notify.Config, error) { return notify.LoadFile(file) }

// jobNotify tells people what a job does, as dit offload does
// (cmd/dit/notify.go): the same messages go to the channels of the
// notify: config (webhooks, e-mail) and to the desktop
// (fyne.App.SendNotification); a failure also raises the banner.
//
//   - EvCardFree: card_free;
//   - the card's end (card_done) with the verdict safe_to_format:
//     safe_to_format (a cascade's card only after its second run);
//   - the card's end with the verdict failed: one failure per card,
//     naming its destinations' reasons and its failed files;
//   - the job's end: job_done with its verdicts (the PDF report attached),
//     or a failure when the job stopped.
//
// A nil *jobNotify does nothing.
type jobNotify struct {
	a       *App
	n       *notify.Notifier // the config's channels (nil: none)
	t       *notify.Tracker
	reports func() []string // the job's report files, once written
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
	if opts.Catalog != nil {
		j.t.Station = opts.Catalog.Station()
	}
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
	t := notify.NewTracker(name, cascade)
	t.Resume = func(id int64) string { return fmt.Sprintf("resume job %d from History", id) }
	return &jobNotify{a: a, n: n, t: t}
}

// setCascade says whether the job is a cascade (read from the catalog: a
// resumed one too).
func (j *jobNotify) setCascade(c bool) {
	if j == nil {
		return
	}
	j.t.SetCascade(c)
}

// event sends what an engine event tells.
func (j *jobNotify) event(e offload.Event) {
	for _, m := range j.messages(e) {
		j.send(m)
	}
}

// messages are the notifications an engine event makes.
func (j *jobNotify) messages(e offload.Event) []notify.Message { return j.t.Messages(e) }

// send hands m to the config's channels and the desktop; a failure also
// raises the banner.
func (j *jobNotify) send(m notify.Message) {
	if j.n != nil {
		j.n.Notify(m)
	}
	j.a.desktopNotify(m.Subject(), m.Text)
	if m.Kind == notify.Failure {
		j.a.do(func() { j.a.banner.add(bannerText(m)) })
	}
}

// bannerSubject drops the "dit: " of a subject.
func bannerSubject(s string) string { return strings.TrimPrefix(s, "dit: ") }

// bannerText is a failure in one line: the subject, then why (its
// destinations' reasons), not the subject said again in other words.
func bannerText(m notify.Message) string {
	out := bannerSubject(m.Subject())
	var why []string
	for _, d := range m.Destinations {
		if d.Failed > 0 && d.Reason != "" {
			why = append(why, fmt.Sprintf("%s: %s", d.Path, d.Reason))
		}
	}
	if len(why) == 0 {
		// No reason per destination (a card that stopped answering, a
		// second run that could not start): the text's own first line
		// after its heading, if it has one.
		if lines := strings.Split(m.Text, "\n"); len(lines) > 1 {
			why = append(why, strings.TrimSpace(lines[1]))
		} else if m.Card == "" {
			why = append(why, firstLine(m.Text))
		}
	}
	if len(why) > 0 {
		out += ": " + strings.Join(why, "; ")
	}
	return out
}

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
		j.send(j.t.Stopped(runErr))
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
	m := j.t.Done(s)
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
