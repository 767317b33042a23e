package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// printer renders a running job. Event is called from engine goroutines.
type printer interface {
	Event(offload.Event)
	Start(*offload.Job)
	Stop()
	Summary(*offload.Summary, string)
}

func newPrinter(g *GlobalOptions, jsonOut bool) printer {
	if jsonOut {
		return &jsonPrinter{w: g.stdout}
	}
	if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &ttyPrinter{w: g.stdout}
	}
	return &plainPrinter{w: g.stdout, every: 5 * time.Second}
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
func (p *jsonPrinter) Start(*offload.Job)    {}
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
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	last  time.Time
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
		p.printf("%s: copying from %s\n", e.Card, e.Path)
	case offload.EvFile:
		if e.State == offload.StateFailed {
			p.printf("%s: FAILED %s: %s\n", e.Card, e.Path, e.Message)
		}
	case offload.EvProgress:
		if time.Since(p.last) < p.every {
			return
		}
		p.last = time.Now()
		for _, c := range e.Progress.Cards {
			p.printf("%s\n", progressLine(c))
		}
	case offload.EvCardDone:
		p.printf("%s: %s %s\n", e.Card, e.State, e.Message)
	case offload.EvWarning:
		p.printf("%s\n", warningLine(e))
	}
}

// warningLine is how both printers show a warning event.
func warningLine(e offload.Event) string {
	if e.Card != "" {
		return e.Card + ": warning: " + e.Message
	}
	return "warning: " + e.Message
}

func progressLine(c offload.CardProgress) string {
	done, total := c.BytesCopied+c.BytesVerified, c.Bytes+c.VerifyTotal
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	eta := ""
	if c.ETASeconds > 0 && c.Phase != "done" {
		eta = " ETA " + units.FormatDuration(time.Duration(c.ETASeconds*float64(time.Second)))
	}
	return fmt.Sprintf("%-8s %-9s %5.1f%%  %d/%d files  copied %s/%s  verified %s/%s  %s%s",
		c.Label, c.Phase, pct, c.FilesDone, c.Files, units.FormatBytes(c.BytesCopied), units.FormatBytes(c.Bytes),
		units.FormatBytes(c.BytesVerified), units.FormatBytes(c.VerifyTotal), units.FormatRate(c.Rate), eta)
}

func (p *plainPrinter) Start(*offload.Job) {}
func (p *plainPrinter) Stop()              {}
func (p *plainPrinter) Summary(s *offload.Summary, db string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	writeSummary(p.w, s, db, "")
}

// ttyPrinter draws a live bar per card.
type ttyPrinter struct {
	w    io.Writer
	p    *mpb.Progress
	mu   sync.Mutex
	bars map[string]*mpb.Bar
	last map[string]offload.CardProgress
	stop chan struct{}
	wg   sync.WaitGroup
	done bool // the bars are finished: lines go straight to w
}

func (t *ttyPrinter) Event(e offload.Event) {
	var line string
	switch e.Type {
	case offload.EvProgress:
		t.mu.Lock()
		for _, c := range e.Progress.Cards {
			t.last[c.Label] = c
		}
		t.mu.Unlock()
		return
	case offload.EvFile:
		if e.State != offload.StateFailed {
			return
		}
		line = fmt.Sprintf("%s: FAILED %s: %s", e.Card, e.Path, e.Message)
	case offload.EvWarning:
		line = warningLine(e)
	default:
		return
	}
	// Written above the bars while they run (not under t.mu: drawing the
	// bars takes it).
	t.mu.Lock()
	var w io.Writer = t.w
	if t.p != nil && !t.done {
		w = t.p
	}
	t.mu.Unlock()
	fmt.Fprintln(w, line)
}

func (t *ttyPrinter) Start(j *offload.Job) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p = mpb.New(mpb.WithOutput(t.w), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
	t.bars = map[string]*mpb.Bar{}
	t.last = map[string]offload.CardProgress{}
	for _, c := range j.Snapshot().Cards {
		label := c.Label
		t.bars[label] = t.p.AddBar(max(c.Bytes+c.VerifyTotal, 1),
			mpb.PrependDecorators(decor.Name(label, decor.WC{W: 9, C: decor.DindentRight}),
				decor.Any(func(decor.Statistics) string {
					t.mu.Lock()
					defer t.mu.Unlock()
					return fmt.Sprintf("%-9s", t.last[label].Phase)
				})),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 6}),
				decor.Any(func(decor.Statistics) string {
					t.mu.Lock()
					c := t.last[label]
					t.mu.Unlock()
					eta := ""
					if c.ETASeconds > 0 {
						eta = "  ETA " + units.FormatDuration(time.Duration(c.ETASeconds*float64(time.Second)))
					}
					return fmt.Sprintf("  %d/%d files  %s%s", c.FilesDone, c.Files, units.FormatRate(c.Rate), eta)
				})))
	}
	t.stop = make(chan struct{})
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				for _, c := range j.Snapshot().Cards {
					t.mu.Lock()
					l := t.last[c.Label]
					c.Rate, c.ETASeconds = l.Rate, l.ETASeconds
					t.last[c.Label] = c
					b := t.bars[c.Label]
					t.mu.Unlock()
					b.SetCurrent(c.BytesCopied + c.BytesVerified)
				}
			}
		}
	}()
}

func (t *ttyPrinter) Stop() {
	if t.p == nil {
		return
	}
	close(t.stop)
	t.wg.Wait()
	for _, b := range t.bars {
		// Ends the bar where it is: a card that failed is not shown full.
		b.Abort(false)
	}
	t.p.Wait()
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
}

func (t *ttyPrinter) Summary(s *offload.Summary, db string) { writeSummary(t.w, s, db, "") }

// writeSummary is the human end-of-job report; mhl, unless "", is the
// job's hash lists (dit job show).
func writeSummary(w io.Writer, s *offload.Summary, db, mhl string) {
	dur := time.Duration(s.Seconds * float64(time.Second)).Round(100 * time.Millisecond)
	fmt.Fprintf(w, "\nJob %d %q %s in %s: %d files, %s, %s end to end\n", s.JobID, s.Name, s.State, dur,
		s.Files, units.FormatBytes(s.Bytes), units.FormatTBPerHour(s.TBPerHour))
	fmt.Fprintf(w, "  hashes %s, verify %s", s.Hashes, s.Verify)
	if mhl != "" {
		fmt.Fprintf(w, ", hash lists (--mhl) %s", mhl)
	}
	fmt.Fprintln(w)
	for _, c := range s.Cards {
		mark := "NOT SAFE"
		if c.SafeToFormat {
			mark = "SAFE"
		}
		fmt.Fprintf(w, "\n  [%s] %s  %s\n", mark, c.Label, c.Verdict)
		fmt.Fprintf(w, "      from %s: %d files, %s, %d skipped, %d failed, %s\n", c.Path, c.Files,
			units.FormatBytes(c.Bytes), c.Skipped, c.Failed, units.FormatTBPerHour(c.TBPerHour))
		for _, d := range c.Destinations {
			fmt.Fprintf(w, "      -> %s: %d verified", d.Path, d.Verified)
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
		}
		for i, f := range c.Failures {
			if i == 20 {
				fmt.Fprintf(w, "      ... and %d more: dit job show %d\n", len(c.Failures)-20, s.JobID)
				break
			}
			fmt.Fprintf(w, "      FAILED %s: %s\n", f.Path, f.Error)
		}
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintf(w, "\nWarnings:\n")
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	fmt.Fprintf(w, "\nCatalog: %s (dit job show %d)\n", db, s.JobID)
	if s.State == "interrupted" {
		fmt.Fprintf(w, "Resume with: dit offload --resume %d\n", s.JobID)
	}
	_ = strings.TrimSpace
}
