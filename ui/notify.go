package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
)

// loadNotifyConfig reads the notify: section of file (notify.LoadFile:
// "" the user's config file, "none" nothing).
func loadNotifyConfig(file string) (notify.Config, error) { return notify.LoadFile(file) }

// The job's notifications are made by internal/assembly, as dit
// offload's: the same messages go to the channels of the notify: config
// (webhooks, e-mail) and, through Hooks.OnNotify (notified), to the
// desktop (fyne.App.SendNotification); a failure also raises the banner.
//
//   - EvCardFree: card_free;
//   - the card's end (card_done) with the verdict safe_to_format:
//     safe_to_format (a cascade's card only after its second run);
//   - the card's end with the verdict failed: one failure per card,
//     naming its destinations' reasons and its failed files;
//   - the job's end: job_done with its verdicts (the PDF report attached),
//     or a failure when the job stopped.

// notifyConfig is the notification config of file (see loadNotifyConfig;
// "" is Config.NotifyConfig). A config that cannot be read raises the
// banner; the job goes on with desktop notifications only.
func (a *App) notifyConfig(file string) notify.Config {
	if file == "" {
		file = a.cfg.NotifyConfig
	}
	cfg, err := loadNotifyConfig(file)
	if err != nil {
		a.do(func() { a.banner.add("Notifications (webhook, e-mail) are off for this job: " + err.Error()) })
	}
	return cfg
}

// notified shows a job's notification on the desktop; a failure also
// raises the banner.
func (a *App) notified(m notify.Message) {
	a.desktopNotify(m.Subject(), m.Text)
	if m.Kind == notify.Failure {
		// A failure of a card (or of the job) replaces what the banner
		// said of it before; a later verdict that is not bad settles it
		// (onEvent, finishJob).
		a.do(func() { a.banner.addCard(m.JobID, m.Card, noticeFailed, bannerText(m)) })
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

// notifyEnd sends the job's end (sum; or a failure when the job stopped
// with runErr), waits a bounded time for what is pending (shorter when
// the app is closing) and raises the banner with what did not go out
// (call in a goroutine).
func (a *App) notifyEnd(run *jobRun, sum *offload.Summary, runErr error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.jobMu.Lock()
	if a.closing {
		cancel()
	}
	a.jobMu.Unlock()
	if warns := run.job.Finish(ctx, sum, runErr); len(warns) > 0 {
		a.do(func() {
			for _, w := range warns {
				a.banner.add("Notification failed: " + w)
			}
		})
	}
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
