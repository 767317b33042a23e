package termview

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// Source is what the live display reads: a running job
// (*offload.Job), or a fake one in tests.
type Source interface {
	ID() int64
	Name() string
	Snapshot() offload.Progress
}

// Live draws the running job on a terminal with mpb: a header line
// (job, cards by state, the job's live TB/hour and rate, its estimate
// until every card is safe to format), then a line per run of a card
// (phase, files, the phase's own percentage, a bar when there is room,
// rate, the model's estimates or its stall). Every figure and estimate is
// the live model's (package live), as the engine's snapshot gives it.
// The lines are fitted to the terminal width: the bar shrinks, then goes,
// then the words and the rate; the numbers stay. When the job ends the
// lines are drawn once more with every card's final state.
//
// Event may be called from any goroutine (the engine's); Start and Stop
// from the one that runs the job.
type Live struct {
	w     io.Writer
	fails Failures

	// Tests: width > 0 draws at that many columns on a w that is not a
	// terminal; refresh is mpb's redraw period (default 150ms); poll is how
	// often the job is read (default 200ms; < 0: never, the test calls
	// update); now is the clock.
	width   int
	refresh time.Duration
	poll    time.Duration
	now     func() time.Time

	src    Source
	p      *mpb.Progress
	bar    mpb.BarFillerBuilder
	mu     sync.Mutex
	header *mpb.Bar
	bars   map[runKey]*mpb.Bar
	cards  map[runKey]*cardState
	order  []runKey // the runs, as they came
	job    live.Job // the job's figures in the last snapshot
	start  time.Time
	ended  time.Time // the job has ended: final lines
	stop   chan struct{}
	wg     sync.WaitGroup
	done   bool // the bars are finished: lines go straight to w
}

// runKey names one run of a card: its label and hop (2: a cascade's
// second run, else 1).
type runKey struct {
	label string
	hop   int
}

func keyOf(label string, hop int) runKey {
	if hop != 2 {
		hop = 1
	}
	return runKey{label, hop}
}

// cardState is what the display knows of one run of a card: the model's
// last snapshot of it and how it ended.
type cardState struct {
	live.Card
	active   live.Phase    // the last phase it was at work in: copying, verifying, sealing
	ended    bool          // the run ended (EvRunDone, EvCardFree, EvCardDone)
	final    verdict.State // how: the run's state, then the card's verdict
	finalMsg string
	drawn    drawnLine // the line in the frame being drawn
}

// drawnLine is a card's line as cardLeft laid it out, for cardFiller and
// cardRight, which mpb calls next for the same line.
type drawnLine struct {
	bar      float64 // fill; < 0: no bar
	barWidth int
	sep      string // before the bar
	right    string
}

// New returns a live display drawing on w, a terminal.
func New(w io.Writer) *Live { return &Live{w: w} }

func (t *Live) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

// Event takes one engine event: the model's snapshot and how each run
// ended go into the lines; failed files, warnings and stalls are written
// above them.
func (t *Live) Event(e offload.Event) {
	var line string
	switch e.Type {
	case offload.EvProgress:
		if e.Progress != nil {
			t.update(*e.Progress)
		}
		return
	case offload.EvRunDone:
		t.mu.Lock()
		cv := t.cardLocked(keyOf(e.Card, e.Hop))
		cv.ended, cv.final, cv.finalMsg = true, e.State, e.Message
		t.mu.Unlock()
		if line = t.fails.CardDone(e.Card, e.Hop); line == "" {
			return
		}
	case offload.EvCardFree, offload.EvCardDone:
		// The card's row ends with the card's verdict (the read model's),
		// not its first run's "verified": card free, safe to format,
		// failed, interrupted.
		t.mu.Lock()
		cv := t.cardLocked(keyOf(e.Card, 1))
		if e.Type == offload.EvCardFree {
			cv.final = verdict.CardFree
		} else if e.State != verdict.Failed || !cv.ended {
			cv.final = e.State // a failed run keeps its own reason
		}
		cv.ended = true
		t.mu.Unlock()
		return
	case offload.EvCardRetried:
		// The run starts again: its row is live again.
		t.mu.Lock()
		cv := t.cardLocked(keyOf(e.Card, e.Hop))
		cv.ended, cv.final, cv.finalMsg = false, "", ""
		t.mu.Unlock()
		return
	case offload.EvFile:
		if e.State != verdict.Failed {
			return
		}
		if line = t.fails.Line(e); line == "" {
			return
		}
	case offload.EvWarning:
		line = WarningLine(e)
	case offload.EvStalled, offload.EvMoving:
		line = StallLine(e)
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

// cardLocked returns the view of run k, new if needed (t.mu held).
func (t *Live) cardLocked(k runKey) *cardState {
	if t.cards == nil {
		t.cards = map[runKey]*cardState{}
	}
	cv := t.cards[k]
	if cv == nil {
		cv = &cardState{Card: live.Card{Label: k.label, Hop: k.hop, Phase: live.Queued}}
		t.cards[k] = cv
		t.order = append(t.order, k)
	}
	return cv
}

// update takes a snapshot of the job: the live model's, from a progress
// event or read from the job between two.
func (t *Live) update(p offload.Progress) {
	t.mu.Lock()
	t.job = p.Job
	for _, c := range p.Cards {
		cv := t.cardLocked(keyOf(c.Label, c.Hop))
		cv.Card = c
		if c.Phase.Active() {
			cv.active = c.Phase
		}
	}
	added := t.unbarredLocked()
	t.mu.Unlock()
	t.addBars(added)
}

// unbarredLocked lists the cards without a bar yet (t.mu held).
func (t *Live) unbarredLocked() []runKey {
	if t.p == nil {
		return nil
	}
	var out []runKey
	for _, l := range t.order {
		if _, ok := t.bars[l]; !ok {
			out = append(out, l)
			t.bars[l] = nil // reserved
		}
	}
	return out
}

// addBars adds a line for each card (not under t.mu: mpb draws while it
// adds, and drawing takes t.mu).
func (t *Live) addBars(keys []runKey) {
	for _, label := range keys {
		b, err := t.p.Add(0, t.cardFiller(label), mpb.BarFillerTrim(),
			mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string { return t.cardLeft(label, s.AvailableWidth) })),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return t.cardRight(label) })))
		if err != nil {
			continue // the display has ended
		}
		t.mu.Lock()
		t.bars[label] = b
		t.mu.Unlock()
	}
}

// Start draws src until Stop, reading its snapshot every 200ms.
func (t *Live) Start(src Source) {
	opts := []mpb.ContainerOption{mpb.WithOutput(t.w)}
	if t.refresh > 0 {
		opts = append(opts, mpb.WithRefreshRate(t.refresh))
	}
	if t.width > 0 {
		opts = append(opts, mpb.WithWidth(t.width), mpb.WithAutoRefresh())
	}
	t.mu.Lock()
	t.src, t.start = src, t.clock()
	t.p = mpb.New(opts...)
	t.bar = mpb.BarStyle()
	t.bars = map[runKey]*mpb.Bar{}
	t.mu.Unlock()
	t.header = t.p.New(0, mpb.NopStyle(), mpb.BarFillerTrim(),
		mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string { return t.headerLine(s.AvailableWidth) })))
	t.update(src.Snapshot())
	t.stop = make(chan struct{})
	poll := t.poll
	if poll == 0 {
		poll = 200 * time.Millisecond
	}
	if poll < 0 {
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tick := time.NewTicker(poll)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				t.update(src.Snapshot())
			}
		}
	}()
}

// Stop draws the lines a last time with the final snapshot and each card's
// final state, then ends the display.
func (t *Live) Stop() {
	t.mu.Lock()
	done := t.done
	t.mu.Unlock()
	if t.p == nil || done {
		return // not started, or stopped (a job decided, then ended)
	}
	close(t.stop)
	t.wg.Wait()
	t.update(t.src.Snapshot())
	t.mu.Lock()
	t.ended = t.clock()
	bars := []*mpb.Bar{t.header}
	for _, l := range t.order {
		if b := t.bars[l]; b != nil {
			bars = append(bars, b)
		}
	}
	t.mu.Unlock()
	for _, b := range bars {
		// The lines say how each card ended; mpb only stops drawing.
		b.Abort(false)
	}
	t.p.Wait()
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
}

// cardLeft is the part of a card's line left of its bar, for a line of
// width columns; it also lays out the rest of the line for cardFiller and
// cardRight, which mpb calls next for the same line.
func (t *Live) cardLeft(label runKey, width int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := make([]progressRow, 0, len(t.order))
	for _, l := range t.order {
		lines = append(lines, t.cards[l].row())
	}
	lay := fitLines(lines, width)
	cv := t.cards[label]
	left, bar, right := lay.render(cv.row())
	cv.drawn = drawnLine{bar: bar, barWidth: lay.barWidth, sep: lay.sep, right: right}
	if bar < 0 && right == "" {
		return strings.TrimRight(left, " ")
	}
	return left
}

// cardRight is the part of the line right of the bar (see cardLeft).
func (t *Live) cardRight(label runKey) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cards[label].drawn.right
}

// cardFiller draws the bar of a card's line (see cardLeft): mpb's bar,
// at the width the layout chose, or nothing.
func (t *Live) cardFiller(label runKey) mpb.BarFiller {
	var inner mpb.BarFiller
	return mpb.BarFillerFunc(func(w io.Writer, st decor.Statistics) error {
		t.mu.Lock()
		d := t.cards[label].drawn
		if inner == nil {
			inner = t.bar.Build()
		}
		t.mu.Unlock()
		return d.fill(w, inner, st)
	})
}

// fill draws the line's bar with inner (mpb's bar style) where st leaves
// room for it; nothing when the line has no bar.
func (d drawnLine) fill(w io.Writer, inner mpb.BarFiller, st decor.Statistics) error {
	if d.bar < 0 || d.barWidth == 0 || st.AvailableWidth < len(d.sep)+d.barWidth {
		return nil
	}
	io.WriteString(w, d.sep)
	const total = 10000
	n := int64(math.Round(d.bar * total))
	return inner.Fill(w, decor.Statistics{AvailableWidth: d.barWidth, RequestedWidth: d.barWidth, Total: total, Current: n, Completed: n == total})
}

// headerLine is the job's line: number and name, cards by state, and the
// model's figures: live TB/hour, rate, stalls, the estimate until every
// card is safe to format; at the end, how long it ran.
func (t *Live) headerLine(width int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	usable := width - 1
	name := fmt.Sprintf("job %d %q", t.src.ID(), t.src.Name())
	counts, ranks := map[string]int{}, map[string]int{}
	var order []string
	n := 0
	for _, k := range t.order {
		if k.hop != 2 {
			n++
		}
		cv := t.cards[k]
		l := cv.row()
		if counts[l.phase] == 0 {
			order = append(order, l.phase)
			ranks[l.phase] = cv.rank()
		}
		counts[l.phase]++
		ranks[l.phase] = min(ranks[l.phase], cv.rank())
	}
	slices.SortStableFunc(order, func(a, b string) int { return ranks[a] - ranks[b] })
	var cs []string
	for _, p := range order {
		cs = append(cs, fmt.Sprintf("%d %s", counts[p], p))
	}
	runs := len(t.order)
	cards := fmt.Sprintf("%d cards: %s", n, strings.Join(cs, ", "))
	switch {
	case runs == 1:
		cards = "1 card: " + order[0]
	case runs > n:
		// A cascade: rows are runs (a card's and its second run's).
		cards = fmt.Sprintf("%d cards, %d runs: %s", n, runs, strings.Join(cs, ", "))
	}
	var tail []string
	if !t.ended.IsZero() {
		tail = append(tail, "ran "+units.FormatDuration(t.ended.Sub(t.start)))
	} else {
		tail = jobFigures(t.job)
	}
	full := strings.Join(append([]string{name, cards}, tail...), "  ")
	if runewidth.StringWidth(full) <= usable {
		return full
	}
	short := strings.Join(tail, "  ")
	return runewidth.Truncate(name, max(usable-len(short)-2, 12), "…") + "  " + short
}

// rank orders a run's state in the header as a run goes through them:
// its phase while it runs, then how it ended.
func (cv *cardState) rank() int {
	if !cv.ended {
		return slices.Index([]live.Phase{live.Queued, live.Copying, live.Verifying, live.Sealing, live.Done}, cv.Phase)
	}
	if i := slices.Index([]verdict.State{verdict.Verified, verdict.Copied, verdict.CardFree, verdict.Safe, verdict.Sealing, verdict.Failed, verdict.Interrupted}, cv.final); i >= 0 {
		return 10 + i
	}
	return 100
}
