package jobreport

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/units"
)

// This file holds what the PDF and HTML reports share in how they put the
// figures in front of a person: one rate unit per table or line, H:MM:SS
// times, verdicts and skip reasons in plain words (no command-line advice:
// that is for the DIT at the terminal, not for production).

// rateUnit is the unit a table or line of rates is shown in: GB/s when the
// largest of them is at least 0.1 GB/s (the threshold of units.FormatRate),
// MB/s otherwise, so that every rate of the table reads in the same unit.
type rateUnit struct {
	label    string  // "GB/s" or "MB/s"
	means    string  // "10^9 bytes per second"
	div      float64 // bytes per second in one unit
	decimals int
}

var (
	unitGBs = rateUnit{"GB/s", "10^9 bytes per second", float64(units.GB), 3}
	unitMBs = rateUnit{"MB/s", "10^6 bytes per second", float64(units.MB), 1}
)

// pickRateUnit chooses one unit for all of rates.
func pickRateUnit(rates ...float64) rateUnit {
	peak := 0.0
	for _, v := range rates {
		peak = max(peak, math.Abs(v))
	}
	if peak >= 0.1*float64(units.GB) {
		return unitGBs
	}
	return unitMBs
}

// Name is the unit's name, "GB/s" or "MB/s".
func (u rateUnit) Name() string { return u.label }

// Num renders v (bytes per second) as a bare number in u, "-" for 0.
func (u rateUnit) Num(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v/u.div, 'f', u.decimals, 64)
}

// rateUnitOf is the unit for a set of Rate summaries.
func rateUnitOf(rs ...Rate) rateUnit {
	var all []float64
	for _, r := range rs {
		all = append(all, r.Mean, r.Min, r.Max, r.P95)
	}
	return pickRateUnit(all...)
}

// hms renders seconds as H:MM:SS ("0:00:00" for none).
func hms(seconds float64) string {
	s := int64(math.Round(max(seconds, 0)))
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

// hmsOr is hms, or "-" for no time at all (nothing measured).
func hmsOr(seconds float64) string {
	if seconds <= 0 {
		return "-"
	}
	return hms(seconds)
}

// shorten cuts s to at most n characters, with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// tbhNum renders a TB/hour figure without its unit ("1.980"), "-" for 0,
// for tables and tiles whose heading names the unit.
func tbhNum(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// thousands renders n with thousands separators: 12345 -> "12,345".
func thousands(n int) string { return thousands64(int64(n)) }

func thousands64(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i-1] != '-' && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// cliAdvice matches a parenthesised hint that names a command-line flag or
// a dit command: " (copy it with --include-hidden)", "(dit offload --resume
// 12 writes them)".
var cliAdvice = regexp.MustCompile(`\s*\([^()]*(--|\bdit [a-z]+)[^()]*\)`)

// plainText drops command-line advice from a reason or verdict.
func plainText(s string) string {
	return strings.TrimSpace(cliAdvice.ReplaceAllString(s, ""))
}

// skipReasons are plain words for the kinds of skipped entries, used when
// an entry has no reason of its own.
var skipReasons = map[string]string{
	"metadata":   "operating-system metadata, not footage",
	"symlink":    "symbolic link, not followed",
	"fifo":       "named pipe, not a file",
	"socket":     "socket, not a file",
	"device":     "device or special file, not a file",
	"unreadable": "could not be read",
}

// skipReason is why an entry was skipped, for people: its reason without
// command-line advice, or the plain words for its kind.
func skipReason(s Skip) string {
	if r := plainText(s.Reason); r != "" {
		return r
	}
	if r, ok := skipReasons[s.Kind]; ok {
		return r
	}
	if s.Kind != "" {
		return s.Kind
	}
	return "not copied"
}

// shortVerdict is a card's verdict for a table cell: "safe to format", or
// "NOT safe: <why>" in a few plain words.
func shortVerdict(c *Card) string {
	if c.SafeToFormat {
		return "safe to format"
	}
	why, _, _ := strings.Cut(plainText(cascadeVerdict(c, c.Verdict, false)), ": NOT safe")
	why = strings.TrimSpace(why)
	switch {
	case why == "" || strings.Contains(strings.ToLower(why), "not safe"):
		return "NOT safe to format"
	case strings.HasPrefix(why, "Incomplete"):
		why = "unreadable entries on the card"
	case why == "FAILED":
		why = "failed"
	case why == "Second run FAILED":
		why = "second run failed"
	case strings.HasPrefix(why, "FAILED"):
		// "FAILED: not every copy is verified ...": the word in lower
		// case, as the other reasons read ("fAILED" before).
		why = "failed" + strings.TrimPrefix(why, "FAILED")
	default:
		// Its first character in lower case (a whole character: a
		// verdict may start with a name).
		_, n := utf8.DecodeRuneInString(why)
		why = strings.ToLower(why[:n]) + why[n:]
	}
	return "NOT safe: " + why
}

// verdictText is a card's full verdict without command-line advice.
func verdictText(c *Card) string {
	if v := plainText(cascadeVerdict(c, c.Verdict, true)); v != "" {
		return v
	}
	if c.SafeToFormat {
		return "safe to format"
	}
	return "NOT safe to format"
}

// jobVerdict is the one line that says whether the cards may be formatted.
func jobVerdict(t Totals) string {
	switch {
	case t.Cards == 0:
		return "NOT VERIFIED: no cards"
	case t.Verified:
		if t.Cards == 1 {
			return "VERIFIED: the card is safe to format"
		}
		return fmt.Sprintf("VERIFIED: all %d cards safe to format", t.Cards)
	case t.Cards == 1:
		return "NOT VERIFIED: the card is NOT safe to format"
	default:
		return fmt.Sprintf("NOT VERIFIED: %d of %d cards NOT safe to format", t.Cards-t.SafeToFormat, t.Cards)
	}
}

// resumedText says whether the job was interrupted and resumed.
func resumedText(t Totals) string {
	if !t.Resumed {
		return "Not resumed: ran in one go"
	}
	return fmt.Sprintf("Resumed: %d runs, paused %s", max(t.Runs, 2), hms(t.PausedSeconds))
}

// simulatedText says whether the job was a simulation.
func simulatedText(t Totals) string {
	if !t.Simulated {
		return "Not simulated: real card readers and drives"
	}
	if t.SimulateScale > 0 && t.SimulateScale != 1 {
		return fmt.Sprintf("Simulated: card readers and buses at %s of their planned rates", scaleText(t.SimulateScale))
	}
	return "Simulated: card readers and buses at their planned rates"
}

func scaleText(s float64) string {
	return strconv.FormatFloat(s*100, 'f', -1, 64) + "%"
}

// span is a phase's start and end, "-" when it never started.
func span(start, end time.Time) string {
	if start.IsZero() && end.IsZero() {
		return "-"
	}
	return formatTime(start) + " to " + formatTime(end)
}

// yesNo renders a bool for a producer.
func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// sizeHTML is a size for the HTML report: decimal units, with the exact
// byte count in a title (a tooltip).
func sizeHTML(n int64) template.HTML {
	return template.HTML(fmt.Sprintf(`<span class="size" title="%d bytes">%s</span>`, n, template.HTMLEscapeString(units.FormatBytes(n))))
}

// A cascade (dit offload --then): the first run copies each card to the -d
// destinations (the card is then free: it may leave the reader, not be
// formatted), the second run copies that first copy to the --then
// destinations (then the card is safe to format). The helpers below show
// it; a job without a cascade renders as it always did.

// Cascade reports whether the job was a cascade: it has second-run
// destinations, or a card has a second run or was made free.
func (r *Report) Cascade() bool {
	for _, d := range r.Destinations {
		if d.Run == 2 {
			return true
		}
	}
	for i := range r.Cards {
		if r.Cards[i].Then != nil || r.Cards[i].CardFree {
			return true
		}
	}
	return false
}

// runName is a destination's run in a cascade, for a table cell.
func runName(run int) string {
	if run == 2 {
		return "2nd"
	}
	return "1st"
}

// runPaths are the destinations of a cascade's first and second run.
func (r *Report) runPaths() (first, second []string) {
	for _, d := range r.Destinations {
		if d.Run == 2 {
			second = append(second, ascmhl.DisplayName(d.Path))
		} else {
			first = append(first, ascmhl.DisplayName(d.Path))
		}
	}
	return first, second
}

// cascadeRunsText is the line that says the job was a cascade and where
// each run copied to.
func (r *Report) cascadeRunsText() string { return "Cascade: " + r.cascadeRuns() }

// cascadeRuns says where each run of a cascade copied to.
func (r *Report) cascadeRuns() string {
	first, second := r.runPaths()
	list := func(ps []string) string {
		if len(ps) == 0 {
			return "-"
		}
		return strings.Join(ps, ", ")
	}
	return fmt.Sprintf("first run (from the cards) to %s; second run (from the first copy) to %s", list(first), list(second))
}

// cascadeTimesText says when the first card was free and, when every card
// is safe to format, when the last one was and the time between.
func (r *Report) cascadeTimesText() string {
	var firstFree, lastSafe time.Time
	for i := range r.Cards {
		c := &r.Cards[i]
		if c.CardFree && !c.FreeAt.IsZero() && (firstFree.IsZero() || c.FreeAt.Before(firstFree)) {
			firstFree = c.FreeAt
		}
		if c.SafeToFormat && c.SafeAt.After(lastSafe) {
			lastSafe = c.SafeAt
		}
	}
	t := r.Totals
	switch {
	case firstFree.IsZero():
		return "No card free: the first run verified no card"
	case !t.Verified && t.Cards == 1:
		return fmt.Sprintf("Card free %s; the card is NOT safe to format", formatTime(firstFree))
	case !t.Verified:
		return fmt.Sprintf("First card free %s; %d of %d cards NOT safe to format, so no time to the last card safe to format",
			formatTime(firstFree), t.Cards-t.SafeToFormat, t.Cards)
	case lastSafe.IsZero():
		return "First card free " + formatTime(firstFree)
	}
	return fmt.Sprintf("First card free %s, last card safe to format %s: %s from the first card free to the last card safe to format",
		formatTime(firstFree), formatTime(lastSafe), hms(lastSafe.Sub(firstFree).Seconds()))
}

// freeSince matches the clock time a cascade verdict gives the card free
// at ("(card free since 09:35:00)"): it is the local time of the machine
// that built the summary, without a date or a zone.
var freeSince = regexp.MustCompile(`\s*\(card free since [0-9:]+\)`)

// cascadeVerdict is a cascade verdict with its card-free time in the
// report's format (full: true) or without it (a table cell has it in a
// column of its own).
func cascadeVerdict(c *Card, v string, full bool) string {
	return freeSince.ReplaceAllStringFunc(v, func(string) string {
		if !full || c.FreeAt.IsZero() {
			return ""
		}
		return " (card free since " + formatTime(c.FreeAt) + ")"
	})
}

// freeText is when a card of a cascade was free.
func freeText(c *Card) string {
	if !c.CardFree || c.FreeAt.IsZero() {
		return "not free: the first run did not verify it"
	}
	return formatTime(c.FreeAt)
}

// safeAtText is when a card of a cascade was safe to format, or why not.
func safeAtText(c *Card) string {
	if c.SafeToFormat && !c.SafeAt.IsZero() {
		return formatTime(c.SafeAt)
	}
	if c.SafeToFormat {
		return "safe to format"
	}
	return strings.Replace(shortVerdict(c), "NOT safe:", "NOT safe to format:", 1)
}

// secondRunText sums up a card's second run in a cascade.
func secondRunText(c *Card) string {
	h := c.Then
	if h == nil {
		if c.CardFree {
			return "not started"
		}
		return "not started: the card is not free"
	}
	s := fmt.Sprintf("%s: %s, %s; %d failed", h.State, plural(h.Files, "file", "files"), units.FormatBytes(h.Bytes), h.Failed)
	if !h.CopyStarted.IsZero() || !h.DoneAt.IsZero() {
		end := h.DoneAt
		if end.IsZero() {
			end = h.CopyFinished
		}
		s += "; " + span(h.CopyStarted, end)
	}
	return s
}

// failedFiles are card c's files that failed, in its first run and (a
// cascade) its second: the model's counts (offload.CardFigures.Failed,
// the second run's Failed), which the job's total failed sums (page 1).
// Not len(c.Failures): that list has lines that are not files too (the
// "(hash lists)" not written, a second run that stopped).
func failedFiles(c *Card) int {
	n := c.Failed
	if c.Then != nil {
		n += c.Then.Failed
	}
	return n
}

// cardsTableNote defines the figures of the Cards table (PDF page 1, the
// HTML): a card's end to end is its own, bytes read from it over the time
// it was being copied or verified (offload.CardFigures.TBPerHour: a
// cascade's card's first run), the "All cards" row's the job's, over the
// time the job ran (offload.JobFigures.TBPerHour: a cascade's second runs'
// time included). Then storage, the cloud's note ("" none).
func cardsTableNote(cascade bool, storage string) string {
	note := "TB/hour: 10^12 bytes per hour; \"-\" where nothing was moved. Copy: bytes read from the cards over the time " +
		"they were read; verify: bytes read back from the copies over the time that took; end to end: a card's bytes over the " +
		"time it was read or verified, all cards' over the time the job ran (pauses left out)."
	if cascade {
		note = "TB/hour: 10^12 bytes per hour; \"-\" where nothing was moved. These are the first run's: copy: bytes read from the cards " +
			"over the time they were read; verify: bytes read back from the first copies over the time that took; end to end: a card's " +
			"bytes over the time it was read or verified, all cards' over the time the job ran, second runs included (pauses left out)."
	}
	if storage != "" {
		note += " " + storage
	}
	return note
}
