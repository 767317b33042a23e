package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/dit-org/dit/cmd/dit/internal/termview"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid/mountplace"
)

// printer renders a running job. Event is called from engine goroutines.
type printer interface {
	Event(offload.Event)
	Start(termview.Source)
	Stop()
	// Decided is the job's summary the moment every card has its verdict
	// (offload.EvDecided), before its reports, thumbnails and proxies.
	Decided(*offload.Summary, string)
	// Summary is the job's summary at its end.
	Summary(*offload.Summary, string)
}

// ttyPrinter is the live display of package termview, then the summary.
type ttyPrinter struct {
	*termview.Live
	w io.Writer
	g *GlobalOptions
	after
}

func (t *ttyPrinter) Decided(s *offload.Summary, db string) {
	t.Live.Stop()
	t.decided(t.w, s, db, t.g)
}

func (t *ttyPrinter) Summary(s *offload.Summary, db string) { t.summary(t.w, s, db, t.g) }

// after prints the summary once: when the job is decided, then at its
// end only what came after (the reports' warnings).
type after struct {
	mu  sync.Mutex
	was *offload.Summary // printed when decided
}

func (a *after) decided(w io.Writer, s *offload.Summary, db string, g *GlobalOptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.was = s
	writeSummary(w, s, db, "", g)
	fmt.Fprintln(w, "\nThe verdicts above are final. Writing the job's reports (and its clip thumbnails and proxies, if any): nothing there can change a verdict.")
}

// isDecided: the summary of the decided job is printed.
func (a *after) isDecided() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.was != nil
}

func (a *after) summary(w io.Writer, s *offload.Summary, db string, g *GlobalOptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.was == nil {
		writeSummary(w, s, db, "", g)
		return
	}
	var added []string
	for _, m := range s.Warnings {
		if !slices.Contains(a.was.Warnings, m) {
			added = append(added, m)
		}
	}
	if len(added) > 0 {
		fmt.Fprintf(w, "\nWarnings (after the verdicts):\n")
		for _, m := range added {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	if s.Status != a.was.Status || s.State != a.was.State {
		// The job ended other than its cards decided (interrupted while
		// its reports were written): said, with what to do.
		fmt.Fprintf(w, "\nJob %d %s\n", s.JobID, s.Status)
		if next := nextStep(g, s.JobID, s.State, s.Cards); next != "" {
			fmt.Fprintf(w, "Next: %s\n", next)
		}
	}
}

func newPrinter(g *GlobalOptions, jsonOut bool) printer {
	if jsonOut {
		return &jsonPrinter{w: g.stdout}
	}
	if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &ttyPrinter{Live: termview.New(g.stdout), w: g.stdout, g: g}
	}
	return &plainPrinter{w: g.stdout, every: 5 * time.Second, g: g}
}

// nextStep says what a DIT does next with a job that did not end well, ""
// when there is nothing to do.
func nextStep(g *GlobalOptions, id int64, state string, cards []offload.CardSummary) string {
	cmd := g.resumeCommand(id)
	sealing, failed, changed, waits, written, aside := 0, 0, 0, 0, 0, 0
	for _, c := range cards {
		if c.State == catalog.CardSealing {
			sealing++
		}
		failed += c.Failed
		a := offload.AdviceOf(c)
		changed += a.Changed
		if a.MoveAside {
			aside++
		}
		if a.HistoryWaits {
			waits++
		}
		if a.HistoryWritten {
			written++
		}
	}
	switch {
	case state == catalog.JobInterrupted:
		return "resume it with: " + cmd
	case written > 0:
		return fmt.Sprintf("the cloud history of %d card(s) was written by this job before and cannot list every file (dit never replaces an object): offload them again to another cloud folder", written)
	case waits > 0:
		return fmt.Sprintf("the cloud history of %d card(s) waits for files not verified there: once the cause is fixed (see above), upload them and write it with: %s", waits, cmd)
	case changed > 0 && changed == failed && sealing == 0:
		// A resume cannot help: the verified copies are kept.
		return fmt.Sprintf("%d file(s) changed on the card since their copies were verified (kept as they are): offload the card as a new job to copy it as it is now", changed)
	case aside > 0 && failed == 0:
		return fmt.Sprintf("the cloud history of %d card(s) is not written (see above): where an object of another history is in the card's ascmhl/ folder there, move that whole folder aside first; then: %s", aside, cmd)
	case sealing > 0 && failed > 0:
		return fmt.Sprintf("%d file(s) failed and the hash lists of %d card(s) are not written: fix the cause (see above), then: %s", failed, sealing, cmd)
	case sealing > 0:
		return fmt.Sprintf("the hash lists of %d card(s) are not written (not safe to format yet): finish with: %s", sealing, cmd)
	case state == catalog.JobFinishing:
		return "its reports are not written: finish with: " + cmd
	case failed > 0:
		return fmt.Sprintf("%d file(s) failed: fix the cause (see above), then copy them again with: %s", failed, cmd)
	}
	return ""
}

// jsonPrinter writes one JSON object per line.
type jsonPrinter struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *jsonPrinter) line(v any) {
	b, _ := json.Marshal(v)
	p.mu.Lock()
	p.w.Write(append(b, '\n'))
	p.mu.Unlock()
}

func (p *jsonPrinter) Event(e offload.Event) { p.line(e) }

// Decided is the job_decided event's line; the summary stays the last.
func (p *jsonPrinter) Decided(s *offload.Summary, _ string) {
	p.line(offload.Event{Type: offload.EvDecided, Time: time.Now(), JobID: s.JobID, Job: s})
}
func (p *jsonPrinter) Start(termview.Source) {}
func (p *jsonPrinter) Stop()                 {}
func (p *jsonPrinter) Summary(s *offload.Summary, db string) {
	p.line(struct {
		Type string `json:"type"`
		*offload.Summary
		Catalog string `json:"catalog"`
	}{"summary", s, db})
}

// plainPrinter writes periodic lines: for logs, pipes and CI.
type plainPrinter struct {
	after
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	last  time.Time
	g     *GlobalOptions
	fails termview.Failures
}

func (p *plainPrinter) printf(format string, a ...any) {
	p.mu.Lock()
	fmt.Fprintf(p.w, format, a...)
	p.mu.Unlock()
}

func (p *plainPrinter) Event(e offload.Event) {
	switch e.Type {
	case offload.EvJobStarted:
		p.printf("job %d %q started\n", e.JobID, e.Message)
	case offload.EvCardStarted:
		if e.State == offload.StateVerified {
			p.printf("%s: checking %s against its verified copies\n", e.Card, e.Path)
		} else {
			p.printf("%s: copying from %s\n", e.Card, e.Path)
		}
	case offload.EvFile:
		if e.State == verdict.Failed {
			if l := p.fails.Line(e); l != "" {
				p.printf("%s\n", l)
			}
		}
	case offload.EvProgress:
		// Every few seconds: the live model's snapshot, the job's
		// figures then each run's; not below the summary (the engine
		// tells the proxies' count after the runs).
		if time.Since(p.last) < p.every || e.Progress == nil || p.isDecided() {
			return
		}
		p.last = time.Now()
		p.printf("%s\n", termview.PlainJobLine(e.JobID, e.Progress.Job))
		for _, c := range e.Progress.Cards {
			p.printf("%s\n", termview.PlainLine(c))
		}
	case offload.EvStalled, offload.EvMoving:
		p.printf("%s\n", termview.StallLine(e))
	case offload.EvRunDone:
		if l := p.fails.CardDone(e.Card, e.Hop); l != "" {
			p.printf("%s\n", l)
		}
		if e.Hop == 2 { // the card's own line follows (card_done)
			p.printf("%s: second run %s\n", e.Card, e.State)
		}
	case offload.EvCardDone:
		if e.Message == "" {
			e.Message = e.State.Label()
		}
		p.printf("%s: %s\n", e.Card, e.Message) // the verdict's sentence says the state
	case offload.EvWarning:
		p.printf("%s\n", termview.WarningLine(e))
	case offload.EvCardFree:
		p.printf("%s: CARD FREE at %s: %s\n", e.Card, e.Time.Local().Format("15:04:05"), e.Message)
	}
}

func (p *plainPrinter) Start(termview.Source) {}
func (p *plainPrinter) Stop()                 {}
func (p *plainPrinter) Decided(s *offload.Summary, db string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decided(p.w, s, db, p.g)
}

func (p *plainPrinter) Summary(s *offload.Summary, db string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.summary(p.w, s, db, p.g)
}

// writeSummary is the human end-of-job report; mhl, unless "", is the
// job's hash lists (dit job show).
func writeSummary(w io.Writer, s *offload.Summary, db, mhl string, g *GlobalOptions) {
	dur := time.Duration(s.Seconds * float64(time.Second)).Round(100 * time.Millisecond)
	in := "in"
	if s.Status == verdict.Running {
		in = "for" // so far
	}
	fmt.Fprintf(w, "\nJob %d %q %s %s %s: %d files, %s, %s\n", s.JobID, s.Name, s.Status, in, dur,
		s.Files, units.FormatBytes(s.Bytes), endToEnd(s))
	if s.Runs > 1 {
		// The wall time counts the pauses; the rate does not. The bytes
		// are the model's BytesCopied: read to be written, not those read
		// only to check a copy already there (a cloud resume's).
		fmt.Fprintf(w, "  resumed: ran %s in %d runs, paused %s; %s read from the cards to be copied, in all runs\n",
			units.FormatDuration(time.Duration(s.ActiveSeconds*float64(time.Second))), s.Runs,
			units.FormatDuration(time.Duration(s.PausedSeconds*float64(time.Second))), units.FormatBytes(s.BytesCopied))
	}
	writeResumeNote(w, s)
	fmt.Fprintf(w, "  hashes %s, verify %s", s.Hashes, s.Verify)
	if mhl != "" {
		fmt.Fprintf(w, ", hash lists (--mhl) %s", mhl)
	}
	fmt.Fprintln(w)
	if len(s.Then) > 0 {
		fmt.Fprintf(w, "  cascade: first run to %s; second run to %s\n", strings.Join(s.Destinations, ", "), strings.Join(s.Then, ", "))
	}
	for _, c := range s.Cards {
		mark := cardMark(c.Status)
		fmt.Fprintf(w, "\n  [%s] %s  %s\n", mark, c.Label, c.Verdict)
		fmt.Fprintf(w, "      from %s: %d files, %s, %d skipped, %d failed, %s\n", c.Path, c.Files,
			units.FormatBytes(c.Bytes), c.Skipped, c.Failed, tbhOf(c.BytesCopied, c.TBPerHour))
		writeDests(w, "->", c.Destinations)
		failures, more := c.Failures, c.FailuresMore
		if len(s.Then) > 0 {
			if !c.FreeAt.IsZero() {
				fmt.Fprintf(w, "      card free at %s (verified on the first run's destinations)\n", clock(c.FreeAt))
			}
			if h := c.Then; h != nil {
				fmt.Fprintf(w, "      then from %s (second run, %s): %s, %s, %d failed, %s\n", h.Source, h.Status, hopFiles(h),
					units.FormatBytes(h.Bytes), h.Failed, tbhOf(h.BytesCopied, h.TBPerHour))
				writeDests(w, "=>", h.Destinations)
				for _, f := range h.Failures {
					failures = append(failures, offload.Failure{Path: f.Path + " (2nd run)", Error: f.Error})
				}
				more += h.FailuresMore
			} else if c.CardFree {
				fmt.Fprintf(w, "      second run not started\n")
			}
		}
		if !c.SafeAt.IsZero() {
			fmt.Fprintf(w, "      safe to format at %s\n", clock(c.SafeAt))
		}
		writeFailures(w, failures, more, g.showCommand(s.JobID))
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintf(w, "\nWarnings:\n")
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	fmt.Fprintf(w, "\nCatalog: %s (%s)\n", db, g.showCommand(s.JobID))
	if g == nil {
		g = &GlobalOptions{}
	}
	if next := nextStep(g, s.JobID, s.State, s.Cards); next != "" {
		fmt.Fprintf(w, "Next: %s\n", next)
	}
}

// writeFailures prints a card's failures as its summary lists them (its
// runs' first failed files and what else failed), runs of one reason
// said once, up to 20 lines; more are the failed files the summary left
// out (FailuresMore), said with the command (show) that lists them all.
func writeFailures(w io.Writer, failures []offload.Failure, more int, show string) {
	shown := 0
	for i := 0; i < len(failures); {
		f := failures[i]
		n := 1
		for i+n < len(failures) && failures[i+n].Error == f.Error {
			n++
		}
		if shown == 20 {
			if more == 0 {
				fmt.Fprintf(w, "      ... and more: %s\n", show)
				return
			}
			fmt.Fprintf(w, "      ... and more\n")
			break
		}
		shown++
		if n > 2 {
			// One reason for many files (a card that stopped answering).
			fmt.Fprintf(w, "      FAILED %d files (%s ... %s): %s\n", n, f.Path, failures[i+n-1].Path, f.Error)
			i += n
			continue
		}
		fmt.Fprintf(w, "      FAILED %s: %s\n", f.Path, f.Error)
		i++
	}
	if more > 0 {
		what := "files"
		if more == 1 {
			what = "file"
		}
		fmt.Fprintf(w, "      ... and %d more failed %s, not listed here: %s lists them all\n", more, what, show)
	}
}

// cardMark is the bracketed verdict of a card in the summary.
func cardMark(s verdict.State) string {
	switch s {
	case verdict.Safe:
		return "SAFE"
	case verdict.CardFree:
		return "CARD FREE, NOT SAFE"
	case verdict.Failed:
		return "FAILED, NOT SAFE"
	case verdict.Interrupted:
		return "INTERRUPTED, NOT SAFE"
	}
	return "NOT SAFE"
}

// writeDests prints one card's files on each destination of one run: its
// folder there as a path to open (in a dit array: below the array's mount
// point or mount place) and, for a folder in a dit array, whether it
// opens now.
func writeDests(w io.Writer, arrow string, ds []offload.DestSummary) {
	for _, d := range ds {
		fmt.Fprintf(w, "      %s %s: %d verified", arrow, d.Path, d.Verified)
		if d.Copied > 0 {
			fmt.Fprintf(w, ", %d copied not verified", d.Copied)
		}
		if d.Failed > 0 {
			fmt.Fprintf(w, ", %d FAILED", d.Failed)
		}
		if d.Skipped > 0 {
			fmt.Fprintf(w, ", %d skipped (conflict)", d.Skipped)
		}
		fmt.Fprintln(w)
		writeArrayNote(w, d)
	}
}

// writeArrayPlaces writes, for each destination that is a blade of a dit
// array, whether the array is mounted (the paths printed above open) or
// the command that mounts it.
func writeArrayPlaces(w io.Writer, dests []string) {
	res := mountplace.NewResolver()
	var seen []*mountplace.Place
	for _, d := range dests {
		p := res.PlaceOf(d)
		if p == nil || slices.Contains(seen, p) {
			continue
		}
		seen = append(seen, p)
		if p.Mounted {
			fmt.Fprintf(w, "  (array %s is mounted at %s)\n", p.Name(), p.Dir)
		} else {
			fmt.Fprintf(w, "  (array %s is not mounted: these paths open once it is: %s)\n", p.Name(), p.MountCommand())
		}
	}
}

// writeArrayNote writes, under a card's folder in a dit array, whether
// the path above it opens now (the array is mounted) or the command that
// mounts the array there. It writes nothing for another folder.
func writeArrayNote(w io.Writer, d offload.DestSummary) {
	switch {
	case d.ArrayMounted == nil:
	case *d.ArrayMounted:
		fmt.Fprintln(w, "         (in a dit array, mounted: it opens now)")
	default:
		fmt.Fprintf(w, "         (in a dit array, not mounted: it opens once it is: %s)\n", d.MountCommand)
	}
}

// clock is a time of day as the summary prints it (local time, with the
// date when it is not today).
func clock(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

// tbh is a TB/hour figure as people read it: "-" when no time was
// recorded.
func tbh(v float64) string {
	if v <= 0 {
		return "- TB/hour"
	}
	return units.FormatTBPerHour(v)
}

// nothingCopied: see units.NothingCopied.
const nothingCopied = units.NothingCopied

// tbhOf is the TB/hour of bytes copied (units.FormatCopiedTBPerHour).
func tbhOf(bytes int64, v float64) string { return units.FormatCopiedTBPerHour(bytes, v) }

// endToEnd is the job's rate on its summary line: "0.123 TB/hour end to
// end", or nothingCopied.
func endToEnd(s *offload.Summary) string {
	if s.BytesCopied <= 0 {
		return nothingCopied
	}
	return tbh(s.TBPerHour) + " end to end"
}

// hopFiles is a second run's files as its summary line says them: the
// card's, and the first copy's hash-list files sent with them (which its
// progress line counts too: "19/19 files" for 17 and 2).
func hopFiles(h *offload.HopSummary) string {
	if h.HashListFiles == 0 {
		return fmt.Sprintf("%d files", h.Files)
	}
	return fmt.Sprintf("%d files (and %d of the first copy's hash lists)", h.Files, h.HashListFiles)
}

// writeResumeNote says what this resume read again of what earlier runs
// verified, and what of the card it did not read again.
func writeResumeNote(w io.Writer, s *offload.Summary) {
	n := s.Resumed
	if n == nil {
		return
	}
	if k := n.Changed + n.Unvouched; k > 0 {
		var why []string
		if n.Changed > 0 {
			why = append(why, fmt.Sprintf("%d changed since they were verified", n.Changed))
		}
		if n.Unvouched > 0 {
			why = append(why, fmt.Sprintf("%d verified by a run that died, with nothing recorded to vouch for them", n.Unvouched))
		}
		what := "copies"
		if k == 1 {
			what = "copy"
		}
		fmt.Fprintf(w, "  this resume re-checked %d %s verified before: read again and compared with the card (%s)\n",
			k, what, strings.Join(why, "; "))
	}
	if n.NotReread > 0 {
		fmt.Fprintf(w, "  this resume did not read %s of the card again: the kept parts of %s before their last checkpoint (dit offload --resume %d --reread-card reads them)\n",
			units.FormatBytes(n.NotReread), plural(int(n.NotRereadFiles), "file"), s.JobID)
	}
}
