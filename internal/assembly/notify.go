package assembly

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/reports/jobreport"
)

// notifier turns a job's events into notifications (notify.Tracker):
//   - EvCardFree: card_free;
//   - the card's end (EvCardDone) with the verdict safe_to_format:
//     safe_to_format (a cascade's card only after its second run);
//   - the card's end with the verdict failed: one failure per card (again
//     after a retry), with each destination's counts and reason and its
//     failed files;
//   - a card free or safe to format after a failure (a retry; a resume:
//     the job's earlier verdicts, read when the notifier is made): the
//     message says it replaces the failure;
//   - EvStalled, EvMoving: stalled (the card, where, the stall's words),
//     then moving when it moves again;
//   - finish: job_done with the summary's verdicts and the PDF report, or
//     a failure when the job stopped.
//
// Each message goes to the config's channels and to Hooks.OnNotify. A nil
// *notifier does nothing.
type notifier struct {
	n      *notify.Notifier // the config's channels (nil: none)
	t      *notify.Tracker
	onMsg  func(notify.Message)
	cat    *catalog.Catalog
	thenOK bool // the settings say whether it is a cascade

	mu     sync.Mutex
	report *notify.Attachment // the job's PDF report
}

// newNotifier is nil when neither the config nor the front end wants the
// job's notifications.
func newNotifier(s *Settings, name string) *notifier {
	n := notify.New(s.Notify)
	if n == nil && s.Hooks.OnNotify == nil {
		return nil
	}
	j := &notifier{n: n, t: notify.NewTracker(name, len(s.Then) > 0), onMsg: s.Hooks.OnNotify, cat: s.Catalog, thenOK: len(s.Then) > 0}
	if s.Hooks.ResumeHint != nil {
		j.t.Resume = s.Hooks.ResumeHint
	}
	if s.Catalog != nil {
		j.t.Station = s.Catalog.Station()
	}
	if s.Resume != 0 && s.Catalog != nil {
		// What the job's earlier runs ended in: a card they left failed
		// or interrupted that this resume makes free or safe is said to
		// be so, replacing the earlier notice.
		if sum, err := offload.LoadSummary(s.Catalog, s.Resume); err == nil {
			for _, c := range sum.Cards {
				j.t.Earlier(c.Label, c.Status)
			}
		}
	}
	return j
}

func (j *notifier) send(m notify.Message) {
	if j.n != nil {
		j.n.Notify(m)
	}
	if j.onMsg != nil {
		j.onMsg(m)
	}
}

func (j *notifier) event(e offload.Event) {
	if j == nil {
		return
	}
	if e.Type == offload.EvJobStarted && !j.thenOK && j.cat != nil {
		// A resumed cascade has no Then: its destinations say.
		if ds, err := j.cat.Dests(e.JobID); err == nil {
			for _, d := range ds {
				if d.Hop == 2 {
					j.t.SetCascade(true)
				}
			}
		}
	}
	for _, m := range j.t.Messages(e) {
		j.send(m)
	}
}

// afterJob finds the job's PDF report once the reports are written.
func (j *notifier) afterJob(s *offload.Summary, fsy fsys.FS) {
	if j == nil {
		return
	}
	if a := findReport(s, fsy); a != nil {
		j.mu.Lock()
		j.report = a
		j.mu.Unlock()
	}
}

// finish sends job_done (sum; or a failure when the job stopped with
// runErr; neither: the job never started), waits a bounded time for what
// is pending (shorter when ctx was cancelled: Ctrl-C, the app closing)
// and returns what did not go out. It never changes the job's outcome.
func (j *notifier) finish(ctx context.Context, sum *offload.Summary, runErr error) []string {
	if j == nil {
		return nil
	}
	switch {
	case runErr != nil:
		j.send(j.t.Stopped(runErr))
	case sum != nil:
		m := j.t.Done(sum)
		j.mu.Lock()
		if j.report != nil {
			m.Attachments = []notify.Attachment{*j.report}
		}
		j.mu.Unlock()
		j.send(m)
	}
	if j.n == nil {
		return nil
	}
	wait := j.n.Wait()
	if ctx.Err() != nil {
		wait = min(wait, 5*time.Second)
	}
	cctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return j.n.Close(cctx)
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
