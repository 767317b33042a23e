package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/jobreport"
)

// loadNotifyConfig reads the notify: section of file; "" is the user's
// config file (os.UserConfigDir()/dit/config.yaml), which may be absent;
// "none" sends nothing.
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

// offloadNotify loads the notification config (--notify-config file) and
// wires it into opts (see notifyJob). The returned jobNotify is nil when
// nothing is configured; its methods then do nothing.
func offloadNotify(file string, opts *offload.Options) (*jobNotify, error) {
	cfg, err := loadNotifyConfig(file)
	if err != nil {
		return nil, fmt.Errorf("--notify-config: %w", err)
	}
	return notifyJob(cfg, opts), nil
}

// jobNotify turns a job's events into notifications.
type jobNotify struct {
	n    *notify.Notifier
	opts *offload.Options
	host string

	mu      sync.Mutex
	cascade bool
	jobID   int64
	jobName string
	failed  map[string][]string // failed files per card (run) label
	told    map[string]bool     // cards whose failure was sent
	report  *notify.Attachment  // the job's PDF report
}

// notifyJob wraps opts.OnEvent (and opts.AfterJob, to find the job's PDF
// report) so that the job's notifications go out through a Notifier of
// cfg:
//   - EvCardFree: card_free;
//   - a card verified on every destination: safe_to_format. In a cascade
//     that is the card's second run verified (an EvCardDone whose Card ends
//     with offload.SecondRunSuffix), never its first run (only "free");
//     without one, the card's EvCardDone verified;
//   - failed files and failed cards: one failure per card (run), when it
//     ends, naming its failed files;
//   - Finish: job_done with the summary's verdicts and the PDF report.
//
// Call Finish once the job ended. nil when cfg sends nothing.
func notifyJob(cfg notify.Config, opts *offload.Options) *jobNotify {
	n := notify.New(cfg)
	if n == nil {
		return nil
	}
	host, _ := os.Hostname()
	j := &jobNotify{n: n, opts: opts, host: host, cascade: len(opts.Then) > 0, jobName: opts.Name,
		failed: map[string][]string{}, told: map[string]bool{}}
	prev := opts.OnEvent
	opts.OnEvent = func(e offload.Event) {
		if prev != nil {
			prev(e)
		}
		j.event(e)
	}
	if after := opts.AfterJob; after != nil {
		opts.AfterJob = func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
			err := after(ctx, s, fsy)
			if a := findReport(s, fsy); a != nil {
				j.mu.Lock()
				j.report = a
				j.mu.Unlock()
			}
			return err
		}
	}
	return j
}

func (j *jobNotify) msg(kind notify.Kind, card, text string, t time.Time) notify.Message {
	return notify.Message{Kind: kind, JobID: j.jobID, Job: j.jobName, Card: card, Text: text, Time: t, Host: j.host}
}

func (j *jobNotify) event(e offload.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e.JobID != 0 {
		j.jobID = e.JobID
	}
	switch e.Type {
	case offload.EvJobStarted:
		j.jobName = e.Message
		// A resumed cascade has no opts.Then: its destinations say.
		if cat := j.opts.Catalog; cat != nil && !j.cascade {
			if ds, err := cat.Dests(e.JobID); err == nil {
				for _, d := range ds {
					j.cascade = j.cascade || d.Hop == 2
				}
			}
		}
	case offload.EvFile:
		if e.State == offload.StateFailed {
			why := e.Message
			if why == "" {
				for _, c := range e.Copies {
					if c.Error != "" {
						why = c.Error
						break
					}
				}
			}
			j.failed[e.Card] = append(j.failed[e.Card], e.Path+": "+why)
		}
	case offload.EvCardFree:
		j.n.Notify(j.msg(notify.CardFree, e.Card, e.Message, e.Time))
	case offload.EvWarning:
		// A second run that could not start: the card is not safe to
		// format, and no card_done follows.
		if e.Card != "" && strings.Contains(e.Message, "NOT safe to format") && !j.told[e.Card] {
			j.told[e.Card] = true
			j.n.Notify(j.msg(notify.Failure, e.Card, e.Message, e.Time))
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
			j.n.Notify(j.msg(notify.SafeToFormat, card, text, e.Time))
		case len(files) > 0 || e.State == offload.StateFailed || (e.State == "sealing" && e.Message != ""):
			if j.told[e.Card] {
				break
			}
			j.told[e.Card] = true
			j.n.Notify(j.msg(notify.Failure, e.Card, failureText(e, files), e.Time))
		}
	}
}

// failureText tells one card's failure: its failed files (the first few).
func failureText(e offload.Event, files []string) string {
	var b strings.Builder
	switch {
	case len(files) > 0:
		fmt.Fprintf(&b, "Card %s: %d file(s) FAILED: NOT safe to format.\n", e.Card, len(files))
	default:
		fmt.Fprintf(&b, "Card %s FAILED: NOT safe to format.\n", e.Card)
	}
	if e.Message != "" && !strings.HasSuffix(e.Message, "file(s) failed") {
		b.WriteString(e.Message + "\n")
	}
	const show = 10
	for i, f := range files {
		if i == show {
			fmt.Fprintf(&b, "... and %d more\n", len(files)-show)
			break
		}
		b.WriteString("  " + f + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// findReport reads the job's PDF report from the first destination's
// report folder that holds it (through the job's filesystem: an array's
// reports are read from the array).
func findReport(s *offload.Summary, fsy fsys.FS) *notify.Attachment {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	var labels []string
	for _, c := range s.Cards {
		labels = append(labels, c.Label)
	}
	rel := jobreport.Dir(s.Layout, s.Name, s.Started, labels)
	prefix := fmt.Sprintf("dit-report_job%d_", s.JobID)
	for _, d := range append(append([]string(nil), s.Destinations...), s.Then...) {
		dir := filepath.Join(d, filepath.FromSlash(rel))
		ents, err := fsy.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), prefix) || !strings.HasSuffix(e.Name(), ".pdf") {
				continue
			}
			f, err := fsy.Open(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			data, err := io.ReadAll(io.LimitReader(f, 64<<20))
			f.Close()
			if err != nil || !strings.HasPrefix(string(data), "%PDF") {
				continue
			}
			return &notify.Attachment{Name: e.Name(), ContentType: "application/pdf",
				Path: offload.DisplayPath(d, path.Join(rel, e.Name())), Data: data}
		}
	}
	return nil
}

// Finish sends job_done (sum; or a failure when the job stopped with
// runErr), waits a bounded time for what is pending (shorter when ctx was
// cancelled: Ctrl-C), and prints what did not go out as warnings on w.
// It never changes the job's outcome.
func (j *jobNotify) Finish(ctx context.Context, w io.Writer, sum *offload.Summary, runErr error) {
	if j == nil {
		return
	}
	j.mu.Lock()
	switch {
	case runErr != nil:
		j.n.Notify(j.msg(notify.Failure, "", "The job stopped: "+runErr.Error(), time.Now()))
	case sum != nil:
		m := j.msg(notify.JobDone, "", jobDoneText(sum), time.Now())
		m.JobID, m.Job = sum.JobID, sum.Name
		if sum.Host != "" {
			m.Host = sum.Host
		}
		code := sum.ExitCode
		m.ExitCode = &code
		for _, c := range sum.Cards {
			m.Cards = append(m.Cards, notify.CardStatus{Card: c.Label, SafeToFormat: c.SafeToFormat, Verdict: c.Verdict})
		}
		if j.report != nil {
			m.Attachments = []notify.Attachment{*j.report}
		}
		j.n.Notify(m)
	}
	j.mu.Unlock()
	wait := j.n.Wait()
	if ctx.Err() != nil {
		wait = min(wait, 5*time.Second)
	}
	cctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for _, s := range j.n.Close(cctx) {
		fmt.Fprintf(w, "dit: warning: notification %s\n", s)
	}
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
		state = fmt.Sprintf("interrupted: dit offload --resume %d goes on", s.JobID)
	case offload.ExitFatal:
		state = "failed"
	}
	fmt.Fprintf(&b, "Job %s (#%d) %s (exit %d).\n", s.Name, s.JobID, state, s.ExitCode)
	fmt.Fprintf(&b, "%d card(s), %d file(s), %s", len(s.Cards), s.Files, units.FormatBytes(s.Bytes))
	if s.Seconds > 0 {
		fmt.Fprintf(&b, " in %s", units.FormatDuration(time.Duration(s.Seconds*float64(time.Second))))
	}
	if s.TBPerHour > 0 {
		fmt.Fprintf(&b, ", %s", units.FormatTBPerHour(s.TBPerHour))
	}
	if s.Failed > 0 {
		fmt.Fprintf(&b, "; %d file(s) FAILED", s.Failed)
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
