package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/reports/jobreport"
)

// loadNotifyConfig reads the notify: section of file (notify.LoadFile:
// "" the user's config file, "none" nothing).
func loadNotifyConfig(file string) (notify.Config, error) { return notify.LoadFile(file) }

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

// jobNotify turns a job's events into notifications (notify.Tracker).
type jobNotify struct {
	n    *notify.Notifier
	t    *notify.Tracker
	opts *offload.Options

	mu     sync.Mutex
	report *notify.Attachment // the job's PDF report
}

// notifyJob wraps opts.OnEvent (and opts.AfterJob, to find the job's PDF
// report) so that the job's notifications go out through a Notifier of
// cfg:
//   - EvCardFree: card_free;
//   - the card's end (EvCardDone) with the verdict safe_to_format:
//     safe_to_format (a cascade's card only after its second run);
//   - the card's end with the verdict failed: one failure per card, with
//     each destination's counts and reason and its failed files;
//   - Finish: job_done with the summary's verdicts and the PDF report.
//
// Call Finish once the job ended. nil when cfg sends nothing.
func notifyJob(cfg notify.Config, opts *offload.Options) *jobNotify {
	n := notify.New(cfg)
	if n == nil {
		return nil
	}
	j := &jobNotify{n: n, t: notify.NewTracker(opts.Name, len(opts.Then) > 0), opts: opts}
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

func (j *jobNotify) event(e offload.Event) {
	if e.Type == offload.EvJobStarted {
		// A resumed cascade has no opts.Then: its destinations say.
		if cat := j.opts.Catalog; cat != nil && len(j.opts.Then) == 0 {
			if ds, err := cat.Dests(e.JobID); err == nil {
				for _, d := range ds {
					if d.Hop == 2 {
						j.t.SetCascade(true)
					}
				}
			}
		}
	}
	for _, m := range j.t.Messages(e) {
		j.n.Notify(m)
	}
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
	switch {
	case runErr != nil:
		j.n.Notify(j.t.Stopped(runErr))
	case sum != nil:
		m := j.t.Done(sum)
		j.mu.Lock()
		if j.report != nil {
			m.Attachments = []notify.Attachment{*j.report}
		}
		j.mu.Unlock()
		j.n.Notify(m)
	}
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
