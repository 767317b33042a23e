package termview

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// Verify shows how far dit verify is reading back, on stderr (stdout
// keeps the copies that differ): on a terminal one line kept up to date by
// mpb, otherwise a line every few seconds. Its rate and estimate are the
// engine's (offload.RecheckProgress).
type Verify struct {
	w, out  io.Writer // stderr, stdout
	job     int64
	tty     bool // draw on w with mpb
	outTTY  bool // stdout is the same screen: its lines go above the bar
	width   int  // tests: draw at this width (w is not a terminal)
	refresh time.Duration
	every   time.Duration // plain lines
	now     func() time.Time

	mu      sync.Mutex
	cur     offload.RecheckProgress
	started bool
	cloud   bool // the first progress had cloud copies to check: Stop says how they were
	printed time.Time
	p       *mpb.Progress
	bar     *mpb.Bar
	drawn   drawnLine
	inner   mpb.BarFiller
}

// NewVerify shows the read-back of job on w (stderr), drawn with mpb when
// tty; the copies that differ go to out (stdout), above the line when
// outTTY (stdout is the same screen).
func NewVerify(w, out io.Writer, job int64, tty, outTTY bool) *Verify {
	return &Verify{w: w, out: out, job: job, tty: tty, outTTY: outTTY, every: 5 * time.Second}
}

func (v *Verify) clock() time.Time {
	if v.now != nil {
		return v.now()
	}
	return time.Now()
}

// Set takes the progress of the read-back (called from its goroutine,
// after every block).
func (v *Verify) Set(p offload.RecheckProgress) {
	now := v.clock()
	v.mu.Lock()
	v.cur = p
	first := !v.started
	v.started = true
	if first {
		v.cloud = p.Checked > 0
	}
	var line string
	if !v.tty {
		switch {
		case first:
			line = "dit verify: " + verifyStartLine(v.job, p)
			v.printed = now
		case now.Sub(v.printed) >= v.every && p.CopiesDone < p.Copies:
			line = "dit verify: " + v.plainLocked()
			v.printed = now
		}
	}
	v.mu.Unlock()
	if line != "" {
		fmt.Fprintln(v.w, line)
	}
	if first && v.tty {
		v.startBar()
	}
}

// figures are the engine's rate and estimate of the read-back as words
// ("0.410 GB/s", "ETA 1m34s"), "" for those it has not measured yet.
func figures(p offload.RecheckProgress) (rate, eta string) {
	if p.Rate > 0 {
		rate = units.FormatRate(p.Rate)
	}
	if p.ETA.Known && p.CopiesDone < p.Copies {
		eta = "ETA " + p.ETA.String()
	}
	return rate, eta
}

// verifyStartLine says what dit verify is about to do: the copies it
// reads back (and their bytes), the cloud copies it checks. How those are
// checked is not known yet (by the storage's own checksum from a listing,
// or read back where the storage gives none): the later lines say it.
func verifyStartLine(job int64, p offload.RecheckProgress) string {
	var parts []string
	if n := p.Copies - p.Checked; n > 0 || p.Checked == 0 {
		parts = append(parts, fmt.Sprintf("reading back %d copies, %s", n, units.FormatBytes(p.Bytes)))
	}
	if p.Checked > 0 {
		parts = append(parts, fmt.Sprintf("checking %d cloud copies", p.Checked))
	}
	return fmt.Sprintf("job %d: %s", job, strings.Join(parts, "; "))
}

func (v *Verify) plainLocked() string {
	p := v.cur
	if p.Bytes == 0 && p.Checked > 0 {
		return fmt.Sprintf("job %d: %d/%d copies checked, by the storage's checksum (listing)", v.job, p.CopiesDone, p.Copies)
	}
	pct, _ := pctText(p.Percent())
	s := fmt.Sprintf("job %d: %d/%d copies, %s of %s read back (%s)", v.job, p.CopiesDone, p.Copies,
		units.FormatBytes(p.BytesRead), units.FormatBytes(p.Bytes), pct)
	if p.Checked > 0 {
		s += fmt.Sprintf(", %d by the storage's checksum (listing)", p.Checked)
	}
	if rate, eta := figures(p); rate != "" && p.CopiesDone < p.Copies {
		s += ", " + rate
		if eta != "" {
			s += ", " + eta
		}
	}
	return s
}

// Result prints a copy that differs (stdout; above the bar on a terminal).
func (v *Verify) Result(line string) {
	v.mu.Lock()
	var w io.Writer = v.out
	if v.p != nil && v.outTTY {
		w = v.p
	}
	v.mu.Unlock()
	fmt.Fprintln(w, line)
}

func (v *Verify) startBar() {
	opts := []mpb.ContainerOption{mpb.WithOutput(v.w)}
	if v.refresh > 0 {
		opts = append(opts, mpb.WithRefreshRate(v.refresh))
	}
	if v.width > 0 {
		opts = append(opts, mpb.WithWidth(v.width), mpb.WithAutoRefresh())
	}
	p := mpb.New(opts...)
	filler := mpb.BarFillerFunc(func(w io.Writer, st decor.Statistics) error {
		v.mu.Lock()
		d := v.drawn
		if v.inner == nil {
			v.inner = mpb.BarStyle().Build()
		}
		inner := v.inner
		v.mu.Unlock()
		return d.fill(w, inner, st)
	})
	bar := p.MustAdd(0, filler, mpb.BarFillerTrim(),
		mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string { return v.left(s.AvailableWidth) })),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			v.mu.Lock()
			defer v.mu.Unlock()
			return v.drawn.right
		})))
	v.mu.Lock()
	v.p, v.bar = p, bar
	v.mu.Unlock()
}

// left lays out the line for width columns and returns its part left of
// the bar (the bar and the rest are drawn next from v.drawn).
func (v *Verify) left(width int) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	usable := width - 1
	p := v.cur
	pct, frac := pctText(p.Percent())
	rate, eta := figures(p)
	doing := "reading back"
	if p.Bytes == 0 && p.Checked > 0 {
		// By the storage's checksum only once copies were so checked.
		doing, pct = "checking cloud copies", ""
		if p.CopiesDone > 0 {
			doing = "checking by the storage's checksum"
		}
	}
	left := []string{fmt.Sprintf("job %d %s", v.job, doing), fmt.Sprintf("%d/%d copies", p.CopiesDone, p.Copies), pct}
	right := []string{units.FormatBytes(p.BytesRead) + " of " + units.FormatBytes(p.Bytes), rate, eta}
	join := func(parts []string) string {
		var out []string
		for _, s := range parts {
			if s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, "  ")
	}
	for drop := 0; drop <= len(right); drop++ {
		l, r := join(left), join(right[drop:])
		need := runewidth.StringWidth(l) + 2 + runewidth.StringWidth(r)
		if r == "" {
			need -= 2
		}
		if room := usable - need - 2; room >= 10 {
			v.drawn = drawnLine{bar: frac, barWidth: min(room, 40), sep: "  ", right: ""}
			if r != "" {
				v.drawn.right = "  " + r
			}
			return l
		}
		if need <= usable {
			v.drawn = drawnLine{bar: -1}
			if r != "" {
				v.drawn.right = "  " + r
			}
			return l
		}
	}
	v.drawn = drawnLine{bar: -1}
	return runewidth.Truncate(join(left), usable, "…")
}

// Stop draws the last line and ends the display.
// Without a terminal, a run that had cloud copies to check ends with a
// line saying how they were (its first line could not).
func (v *Verify) Stop() {
	v.mu.Lock()
	p, bar := v.p, v.bar
	var last string
	if !v.tty && v.cloud {
		last = "dit verify: " + v.plainLocked()
		v.cloud = false
	}
	v.mu.Unlock()
	if last != "" {
		fmt.Fprintln(v.w, last)
	}
	if p == nil {
		return
	}
	bar.Abort(false)
	p.Wait()
	v.mu.Lock()
	v.p = nil
	v.mu.Unlock()
}
