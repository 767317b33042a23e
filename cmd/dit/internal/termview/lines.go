package termview

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// Failures turns file failures into the lines a DIT reads: a reason
// that many files of a card share (a card that stopped answering) is
// printed once, with the count, not once per file. The zero value is
// ready; it is safe for concurrent use.
type Failures struct {
	mu   sync.Mutex
	seen map[string]int // card + "\x00" + message -> files
}

// Line returns the line for a failed file, or "" when its reason was
// already printed for the card.
func (f *Failures) Line(e offload.Event) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	k := e.Card + "\x00" + e.Message
	f.seen[k]++
	if f.seen[k] > 1 && strings.HasPrefix(e.Message, "card ") {
		return ""
	}
	return fmt.Sprintf("%s: FAILED %s: %s", e.Card, e.Path, e.Message)
}

// CardDone returns a line counting the files of card that failed with a
// reason printed once, or "".
func (f *Failures) CardDone(card string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for k, n := range f.seen {
		c, msg, _ := strings.Cut(k, "\x00")
		if c == card && n > 1 && strings.HasPrefix(msg, "card ") {
			out = append(out, fmt.Sprintf("%s: %d files FAILED, all for the reason above (%s)", card, n, strings.SplitN(msg, " (", 2)[0]))
		}
	}
	return strings.Join(out, "\n")
}

// WarningLine is how a warning event is shown, live or in plain lines.
func WarningLine(e offload.Event) string {
	if e.Card != "" {
		return e.Card + ": warning: " + e.Message
	}
	return "warning: " + e.Message
}

// PlainLine is a card's periodic line for logs and pipes (not a
// terminal): its phase and the phase's own percentage (or what it is
// doing), then both byte counts.
func PlainLine(c offload.CardProgress) string {
	r := (&cardState{CardProgress: c}).row()
	status := r.pct
	if r.text != "" {
		status = r.text
	}
	s := fmt.Sprintf("%-8s %-9s %s  %d/%d files  copied %s/%s  verified %s/%s", c.Label, r.phase, status, c.FilesDone, c.Files,
		units.FormatBytes(c.BytesCopied), units.FormatBytes(c.Bytes), units.FormatBytes(c.BytesVerified), units.FormatBytes(c.VerifyTotal))
	if r.rate != "" {
		s += "  " + r.rate
	}
	if r.eta != "" {
		s += "  ETA " + r.eta
	}
	return s
}

// progressRow is one card's line in parts, before it is fitted to a width.
type progressRow struct {
	label, phase string
	filesDone    int
	files        int
	pct          string  // the phase's own percentage, "" for none
	frac         float64 // bar fill, 0 to 1; < 0: no bar on this line
	rate, eta    string  // "" for none
	text         string  // instead of the percentage, bar, rate and ETA
}

// percent is done/total of one phase: 100 % only when all of it is done.
func percent(done, total int64) (string, float64) {
	f := 1.0
	if total > 0 {
		f = min(max(float64(done)/float64(total), 0), 1)
	}
	v := 100 * f
	if done < total {
		v = min(v, 99.9)
	}
	return fmt.Sprintf("%.1f %%", v), f
}

func formatETA(sec float64) string {
	if sec < 0.5 || math.IsInf(sec, 0) || math.IsNaN(sec) || sec > 1e7 {
		return ""
	}
	return units.FormatDuration(time.Duration(sec * float64(time.Second)))
}

// etaLocked is the time until the card is copied and read back: the
// engine's, from its smoothed rate (one ETA for the CLI, the GUI and dit
// serve); 0 when unknown (t.mu held).
func (cv *cardState) etaLocked() float64 {
	if (cv.Bytes-cv.BytesCopied)+(cv.VerifyTotal-cv.BytesVerified) <= 0 {
		return 0
	}
	return cv.ETASeconds
}

// row is what card cv's line says (under the Live's mu).
func (cv *cardState) row() progressRow {
	l := progressRow{label: cv.Label, phase: cv.Phase, filesDone: cv.FilesDone, files: cv.Files, frac: -1}
	if l.phase == "" {
		l.phase = "pending"
	}
	running := func(done, total int64, nothing string) {
		if total == 0 {
			l.text = nothing
			return
		}
		l.pct, l.frac = percent(done, total)
		if cv.Rate > 0 {
			l.rate = units.FormatRate(cv.Rate)
		}
		l.eta = formatETA(cv.etaLocked())
	}
	if cv.final != "" {
		// How the card ended.
		l.phase = cv.final
		switch cv.final {
		case offload.StateVerified, offload.StateCopied, string(verdict.Safe), string(verdict.CardFree):
			switch {
			case cv.Files == 0:
				l.phase, l.text = "done", "(no files)"
			case cv.Bytes == 0 && cv.VerifyTotal == 0:
				// Nothing to copy: an earlier run of the job did it.
				l.phase, l.text = "done", "("+cv.final+" before)"
			case cv.final == offload.StateCopied:
				l.text = "100 % copied, not read back (--verify none)"
			default:
				l.pct, l.frac = percent(1, 1)
			}
			switch verdict.State(cv.final) {
			case verdict.Safe:
				l.phase = "SAFE"
			case verdict.CardFree:
				l.phase, l.text = "free", "card free: NOT safe to format until the second run is verified"
			}
		case catalog.CardSealing:
			l.text = "hash lists not written"
			if cv.finalMsg != "" {
				l.text += ": " + cv.finalMsg
			}
		case "interrupted": // the card's state (offload.Summary says the same)
			l.text = "stopped"
			switch cv.active {
			case "copying":
				p, _ := percent(cv.BytesCopied, cv.Bytes)
				l.text = "stopped while copying, at " + p
			case "verifying":
				p, _ := percent(cv.BytesVerified, cv.VerifyTotal)
				l.text = "stopped while reading back, at " + p
			case "sealing":
				l.text = "stopped while writing hash lists"
			}
		default:
			l.text = cv.finalMsg
		}
		return l
	}
	switch cv.Phase {
	case "copying":
		running(cv.BytesCopied, cv.Bytes, "nothing to copy")
	case "verifying":
		running(cv.BytesVerified, cv.VerifyTotal, "nothing to read back")
	case "sealing":
		l.text = "writing hash lists"
	case "", "pending":
		l.text = "waiting"
	}
	return l
}

// lineStyle is one way to fit the lines, from the widest.
type lineStyle struct {
	sep        string
	words      bool // "files", "ETA"
	bar        bool
	rate, eta  bool
	minBar     int
	maxBar     int
	labelWidth int
}

var lineStyles = []lineStyle{
	{sep: "  ", words: true, bar: true, rate: true, eta: true, minBar: 10, maxBar: 40, labelWidth: 16},
	{sep: " ", words: true, bar: true, rate: true, eta: true, minBar: 10, maxBar: 40, labelWidth: 12},
	{sep: " ", words: true, rate: true, eta: true, labelWidth: 12},
	{sep: " ", rate: true, eta: true, labelWidth: 10},
	{sep: " ", eta: true, labelWidth: 10},
	{sep: " ", labelWidth: 8},
}

// lineLayout is the columns of every card line at one width.
type lineLayout struct {
	lineStyle
	width                                     int // usable columns
	wLabel, wPhase, wFiles, wPct, wRate, wEta int
	barWidth                                  int // 0: no bar
}

func (s lineStyle) filesText(l progressRow) string {
	f := fmt.Sprintf("%d/%d", l.filesDone, l.files)
	if s.words {
		f += " files"
	}
	return f
}

func (s lineStyle) etaText(l progressRow) string {
	if l.eta == "" || !s.eta {
		return ""
	}
	if s.words {
		return "ETA " + l.eta
	}
	return l.eta
}

func (s lineStyle) rateText(l progressRow) string {
	if !s.rate {
		return ""
	}
	return l.rate
}

func (s lineStyle) labelText(l progressRow) string {
	return runewidth.Truncate(l.label, s.labelWidth, "…")
}

// fitLines lays out every card line in width columns: the widest style
// that fits. The last column is left free: a line as wide as the terminal
// wraps on some.
func fitLines(lines []progressRow, width int) lineLayout {
	usable := width - 1
	var lay lineLayout
	for _, s := range lineStyles {
		lay = lineLayout{lineStyle: s, width: usable}
		for _, l := range lines {
			lay.wLabel = max(lay.wLabel, runewidth.StringWidth(s.labelText(l)))
			lay.wPhase = max(lay.wPhase, len(l.phase))
			// As wide as when every file is done: the columns stay put
			// while the numbers grow.
			lay.wFiles = max(lay.wFiles, len(s.filesText(progressRow{filesDone: l.files, files: l.files})))
			lay.wRate = max(lay.wRate, len(s.rateText(l)))
			lay.wEta = max(lay.wEta, len(s.etaText(l)))
			if l.pct != "" {
				// Room for "100.0 %", a rate and a short ETA from the first
				// frame on: the bar does not change size when they come.
				lay.wPct = max(lay.wPct, len("100.0 %"))
				if s.rate {
					lay.wRate = max(lay.wRate, len("100.0 MB/s"))
				}
				if s.eta {
					lay.wEta = max(lay.wEta, len(s.etaText(progressRow{eta: "10m00s"})))
				}
			}
		}
		sep := len(s.sep)
		need := lay.wLabel + sep + lay.wPhase + sep + lay.wFiles
		for _, w := range []int{lay.wPct, lay.wRate, lay.wEta} {
			if w > 0 {
				need += sep + w
			}
		}
		if s.bar {
			if room := usable - need - sep; room >= s.minBar {
				lay.barWidth = min(room, s.maxBar)
				return lay
			}
			continue
		}
		if need <= usable {
			return lay
		}
	}
	return lay
}

func padRight(s string, w int) string {
	if n := runewidth.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := runewidth.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// render draws l in layout lay: left of the bar, the bar (its fill, or
// < 0 for none) and right of it.
func (lay lineLayout) render(l progressRow) (left string, bar float64, right string) {
	sep := lay.sep
	left = padRight(lay.labelText(l), lay.wLabel) + sep + padRight(l.phase, lay.wPhase) + sep + padLeft(lay.filesText(l), lay.wFiles)
	if l.text != "" {
		left = runewidth.Truncate(left+sep+l.text, lay.width, "…")
		return left, -1, ""
	}
	if lay.wPct > 0 {
		left += sep + padLeft(l.pct, lay.wPct)
	}
	bar = -1
	if lay.barWidth > 0 && l.frac >= 0 {
		bar = l.frac
	}
	var r strings.Builder
	if lay.wRate > 0 {
		r.WriteString(sep + padLeft(lay.rateText(l), lay.wRate))
	}
	if lay.wEta > 0 {
		r.WriteString(sep + padRight(lay.etaText(l), lay.wEta))
	}
	right = strings.TrimRight(r.String(), " ")
	if bar < 0 && right != "" && lay.barWidth > 0 {
		// Keeps the columns right of the bar in place.
		right = strings.Repeat(" ", len(sep)+lay.barWidth) + right
	}
	return left, bar, right
}
