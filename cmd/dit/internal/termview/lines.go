package termview

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/mattn/go-runewidth"

	"github.com/dit-org/dit/internal/live"
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
	card := RunLabel(e.Card, e.Hop)
	k := card + "\x00" + e.Message
	f.seen[k]++
	if f.seen[k] > 1 && strings.HasPrefix(e.Message, "card ") {
		return ""
	}
	return fmt.Sprintf("%s: FAILED %s: %s", card, e.Path, e.Message)
}

// CardDone returns a line counting the files of a card's run (hop 2: a
// cascade's second run) that failed with a reason printed once, or "".
func (f *Failures) CardDone(card string, hop int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	card = RunLabel(card, hop)
	var out []string
	for k, n := range f.seen {
		c, msg, _ := strings.Cut(k, "\x00")
		if c == card && n > 1 && strings.HasPrefix(msg, "card ") {
			out = append(out, fmt.Sprintf("%s: %d files FAILED, all for the reason above (%s)", card, n, strings.SplitN(msg, " (", 2)[0]))
		}
	}
	return strings.Join(out, "\n")
}

// RunLabel is how a run of a card is named on a line: its label, and for
// a cascade's second run (hop 2) "A001 (2nd run)".
func RunLabel(label string, hop int) string {
	if hop == 2 {
		return label + " (2nd run)"
	}
	return label
}

// WarningLine is how a warning event is shown, live or in plain lines.
func WarningLine(e offload.Event) string {
	if e.Card != "" {
		return RunLabel(e.Card, e.Hop) + ": warning: " + e.Message
	}
	return "warning: " + e.Message
}

// StallLine is how a stalled or moving event is shown, live or in plain
// lines: where the run stalled and the engine's words for why
// ("A001: STALLED at /mnt/raid: s3: connection refused, retry 3 of 10,
// since 40s"), or that it moves again.
func StallLine(e offload.Event) string {
	card := RunLabel(e.Card, e.Hop)
	if e.Type == offload.EvMoving {
		return card + ": moving again"
	}
	where := ""
	if e.Path != "" && e.Path != live.StallCard {
		where = " at " + e.Path
	}
	return card + ": STALLED" + where + ": " + e.Message
}

// PlainLine is a card's periodic line for logs and pipes (not a
// terminal): its phase and the phase's own percentage (or what it is
// doing), both byte counts, its rate and the model's estimates (or its
// stall).
func PlainLine(c offload.CardProgress) string {
	r := (&cardState{Card: c}).row()
	status := strings.TrimSpace(r.pct + "  " + r.text)
	s := fmt.Sprintf("%-8s %-9s %s  %d/%d files  copied %s/%s  verified %s/%s", r.label, r.phase, status, c.FilesDone, c.Files,
		units.FormatBytes(c.BytesCopied), units.FormatBytes(c.Bytes), units.FormatBytes(c.BytesVerified), units.FormatBytes(c.VerifyTotal))
	if r.rate != "" {
		s += "  " + r.rate
	}
	if r.hasETA {
		s += "  " + etaWords(r.free, r.safe, r.cascade, true)
	}
	return s
}

// PlainJobLine is the job's periodic line for logs and pipes: its live
// TB/hour, rate, cards copied and the model's estimate until every card
// is safe to format.
func PlainJobLine(id int64, j live.Job) string {
	parts := []string{fmt.Sprintf("job %d: %d/%d cards copied", id, j.Copied, j.Cards)}
	return strings.Join(append(parts, jobFigures(j)...), ", ")
}

// jobFigures are the job's live figures as words: TB/hour, rate,
// stalled runs, the estimate until every card is safe (and free, in a
// cascade).
func jobFigures(j live.Job) []string {
	var out []string
	if j.TBPerHour > 0 {
		out = append(out, units.FormatTBPerHour(j.TBPerHour))
	}
	if j.Rate > 0 {
		out = append(out, units.FormatRate(j.Rate))
	}
	if j.Stalled > 0 {
		out = append(out, fmt.Sprintf("%d STALLED", j.Stalled))
	}
	if j.Cards > 0 {
		eta := etaWords(j.ETA.CardFree, j.ETA.Safe, saysFree(j.ETA.CardFree, j.ETA.Safe), true)
		if j.ETA.Safe.Known {
			eta = "all " + eta
		}
		out = append(out, eta)
	}
	return out
}

// saysFree reports whether the estimates of a card (or a job) say when
// it is free as well as when it is safe: in a cascade (the model's free
// and safe differ only there) until it is free.
func saysFree(free, safe live.Estimate) bool {
	return free != safe && !(free.Known && free.Seconds < 0.5)
}

// etaWords is what the model estimates as words: "safe in 1m05s"; for a
// card of a cascade not free yet (free differs from safe) "free in 40s,
// safe in 1m05s"; "ETA unknown" when the model cannot say. Without words,
// the time until safe alone ("1m05s", "unknown").
func etaWords(free, safe live.Estimate, cascade, words bool) string {
	in := func(e live.Estimate) string {
		if !e.Known {
			return "unknown"
		}
		return "in " + e.String()
	}
	switch {
	case !words:
		return safe.String()
	case cascade:
		return "free " + in(free) + ", safe " + in(safe)
	case !safe.Known:
		return "ETA unknown"
	}
	return "safe " + in(safe)
}

// progressRow is one card's line in parts, before it is fitted to a
// width: its percentage, bar, rate and estimates, or a text instead of
// them (after the percentage, when it has one).
type progressRow struct {
	label, phase string
	filesDone    int
	files        int
	pct          string  // the phase's own percentage, "" for none
	frac         float64 // bar fill, 0 to 1; < 0: no bar on this line
	rate         string  // "" for none
	// The model's estimates (hasETA): until the card is free and safe to
	// format; cascade: free is said too.
	hasETA     bool
	cascade    bool
	free, safe live.Estimate
	text       string // instead of the bar, rate and estimates
}

// pctText is a percentage the model decided (0-100) as a line shows it,
// to a tenth, never rounded up: 100 % only when all is done.
func pctText(v float64) (string, float64) {
	v = min(max(v, 0), 100)
	shown := math.Floor(v*10+1e-6) / 10
	return fmt.Sprintf("%.1f %%", shown), v / 100
}

// finalWord is how a run ended, as its row's phase says it.
func finalWord(s verdict.State) string {
	switch s {
	case verdict.Safe:
		return "SAFE"
	case verdict.CardFree:
		return "free"
	}
	return string(s)
}

// row is what card cv's line says (under the Live's mu).
func (cv *cardState) row() progressRow {
	l := progressRow{label: RunLabel(cv.Label, cv.Hop), phase: string(cv.Phase), filesDone: cv.FilesDone, files: cv.Files, frac: -1}
	if cv.ended {
		cv.endedRow(&l)
		return l
	}
	if cv.Stall != nil && cv.Phase != live.Done {
		// The engine's words for why, instead of an estimate.
		l.text = "STALLED: " + cv.Stall.String()
		if cv.Phase == live.Copying || cv.Phase == live.Verifying {
			l.pct, _ = pctText(cv.PhasePercent())
		}
		return l
	}
	running := func(total int64, nothing string) {
		if total == 0 {
			l.text = nothing
			return
		}
		l.pct, l.frac = pctText(cv.PhasePercent())
		if cv.Rate > 0 {
			l.rate = units.FormatRate(cv.Rate)
		}
		l.hasETA, l.free, l.safe = true, cv.ETA.CardFree, cv.ETA.Safe
		// A cascade's first run says when the card is free too.
		l.cascade = cv.Hop != 2 && saysFree(cv.ETA.CardFree, cv.ETA.Safe)
	}
	switch cv.Phase {
	case live.Copying:
		running(cv.Bytes, "nothing to copy")
	case live.Verifying:
		running(cv.VerifyTotal, "nothing to read back")
	case live.Sealing:
		l.text = "writing hash lists"
	case live.Queued:
		l.text = "waiting"
	}
	return l
}

// endedRow is the line of a run that ended: how (its state, cv.final).
func (cv *cardState) endedRow(l *progressRow) {
	l.phase = finalWord(cv.final)
	switch cv.final {
	case verdict.Verified, verdict.Copied, verdict.Safe, verdict.CardFree:
		switch {
		case cv.Files == 0:
			l.phase, l.text = "done", "(no files)"
		case cv.Bytes == 0 && cv.VerifyTotal == 0:
			// Nothing to copy: an earlier run of the job did it.
			before := "verified"
			if cv.final == verdict.Copied {
				before = "copied"
			}
			l.phase, l.text = "done", "("+before+" before)"
		case cv.final == verdict.Copied:
			l.text = "100 % copied, not read back (--verify none)"
		default:
			// Every copy read back: the verdict says all of it.
			l.pct, l.frac = pctText(100)
		}
		if cv.final == verdict.CardFree {
			l.text = "NOT safe to format until its second run is verified"
		}
	case verdict.Sealing:
		l.text = "hash lists not written"
		if cv.finalMsg != "" {
			l.text += ": " + cv.finalMsg
		}
	case verdict.Interrupted:
		l.text = "stopped"
		at := cv.Card
		at.Phase = cv.active
		p, _ := pctText(at.PhasePercent())
		switch cv.active {
		case live.Copying:
			l.text = "stopped while copying, at " + p
		case live.Verifying:
			l.text = "stopped while reading back, at " + p
		case live.Sealing:
			l.text = "stopped while writing hash lists"
		}
	default:
		l.text = cv.finalMsg
	}
	if l.text != "" {
		// What it says is the percentage.
		l.pct, l.frac = "", -1
	}
}

// lineStyle is one way to fit the lines, from the widest.
type lineStyle struct {
	sep        string
	words      bool // "safe in"
	files      bool // "files"
	bar        bool
	rate, eta  bool
	minBar     int
	maxBar     int
	labelWidth int
}

var lineStyles = []lineStyle{
	{sep: "  ", words: true, files: true, bar: true, rate: true, eta: true, minBar: 10, maxBar: 40, labelWidth: 16},
	{sep: " ", words: true, files: true, bar: true, rate: true, eta: true, minBar: 10, maxBar: 40, labelWidth: 12},
	{sep: " ", words: true, bar: true, rate: true, eta: true, minBar: 10, maxBar: 40, labelWidth: 12},
	{sep: " ", words: true, files: true, rate: true, eta: true, labelWidth: 12},
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
	if s.files {
		f += " files"
	}
	return f
}

func (s lineStyle) etaText(l progressRow) string {
	if !l.hasETA || !s.eta {
		return ""
	}
	return etaWords(l.free, l.safe, l.cascade, s.words)
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
					long := live.In(600)
					lay.wEta = max(lay.wEta, len(s.etaText(progressRow{hasETA: true, cascade: l.cascade, free: long, safe: long})))
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
		if l.pct != "" && lay.wPct > 0 {
			left += sep + padLeft(l.pct, lay.wPct)
		}
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
