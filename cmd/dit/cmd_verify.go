package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// VerifyOptions are the flags of dit verify.
type VerifyOptions struct {
	VerifyHashes string // fastest | all
	All          bool   // --verify-hashes-all, the old name of --verify-hashes all
}

// verifyHashesUsage is the help of --verify-hashes, the one name on dit
// offload, dit verify and dit mhl verify for recomputing every hash on
// read-back.
const verifyHashesUsage = "hashes recomputed on read-back: fastest (the fastest recorded) or all (every recorded one)"

// addVerifyHashesFlag registers --verify-hashes fastest|all, and old, the
// command's former name for "all", as a hidden alias (verifyHashesAll says
// it is deprecated when it is used).
func addVerifyHashesFlag(f *pflag.FlagSet, value *string, old string, oldValue *bool) {
	f.StringVar(value, "verify-hashes", "fastest", verifyHashesUsage)
	if old != "" {
		f.BoolVar(oldValue, old, false, "recompute every recorded hash (old name of --verify-hashes all)")
		f.MarkHidden(old)
	}
}

// verifyHashesAll checks --verify-hashes (and the old alias old, if
// given, with a note on stderr: not pflag's deprecation notice, which
// cobra prints on stdout, where it would break --json) and reports whether
// every hash is to be recomputed.
func verifyHashesAll(g *GlobalOptions, f *pflag.FlagSet, value, old string, oldValue bool) (bool, error) {
	if value != "fastest" && value != "all" {
		return false, &exitError{code: offload.ExitUsage, err: fmt.Errorf("invalid --verify-hashes %q: use fastest or all", value)}
	}
	if old != "" && f.Changed(old) {
		if oldValue && value != "all" && f.Changed("verify-hashes") {
			return false, &exitError{code: offload.ExitUsage, err: fmt.Errorf("--%s (the old name of --verify-hashes all) contradicts --verify-hashes %s", old, value)}
		}
		fmt.Fprintf(g.stderr, "dit: note: --%s is deprecated: use --verify-hashes all\n", old)
	}
	return value == "all" || oldValue, nil
}

func newVerifyCommand(g *GlobalOptions) *cobra.Command {
	var o VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify JOB",
		Short: "Read every copy of a job back now and compare it with the source hashes",
		Long: `Read every copy of JOB back from its medium (not the page cache) and compare
it with the hashes taken from the card (--verify-hashes: the fastest recorded
hash, or all). Each file that differs or is missing is named on stdout; how
far it is goes to stderr. The catalog is updated. Exit 0 when every copy
matches, 3 otherwise.`,
		Args: oneJobArg("dit verify"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runVerify(cmd, o, g, id)
		},
	}
	addVerifyHashesFlag(cmd.Flags(), &o.VerifyHashes, "verify-hashes-all", &o.All)
	return cmd
}

func runVerify(cmd *cobra.Command, o VerifyOptions, g *GlobalOptions, id int64) error {
	all, err := verifyHashesAll(g, cmd.Flags(), o.VerifyHashes, "verify-hashes-all", o.All)
	if err != nil {
		return err
	}
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	prog := newVerifyProgress(g, id)
	var good, bad int
	ok, err := offload.RecheckWith(cmd.Context(), cat, fsys.OS{}, id, offload.RecheckOptions{All: all,
		OnProgress: prog.set,
		OnResult: func(r offload.RecheckResult) {
			if r.State == offload.StateVerified {
				good++
				return
			}
			if r.State == "resealed" {
				good++
				prog.result(fmt.Sprintf("note %s: %s", r.Path, r.Error))
				return
			}
			bad++
			prog.result(fmt.Sprintf("%s %s: %s", r.State, r.Path, r.Error))
		}})
	prog.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "job %d: %d copies match the source hashes, %d differ or are missing\n", id, good, bad)
	if !ok {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// verifyProgress shows how far dit verify is reading back, on stderr (stdout
// keeps the copies that differ): on a terminal one line kept up to date by
// mpb, otherwise a line every few seconds.
type verifyProgress struct {
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
	work    []workSample
	printed time.Time
	p       *mpb.Progress
	bar     *mpb.Bar
	drawn   drawnLine
	inner   mpb.BarFiller
}

func newVerifyProgress(g *GlobalOptions, job int64) *verifyProgress {
	tty := isTerminal(g.stderr)
	return &verifyProgress{w: g.stderr, out: g.stdout, job: job, tty: tty, outTTY: tty && isTerminal(g.stdout), every: 5 * time.Second}
}

func (v *verifyProgress) clock() time.Time {
	if v.now != nil {
		return v.now()
	}
	return time.Now()
}

// set takes the progress of the read-back (called from its goroutine,
// after every block).
func (v *verifyProgress) set(p offload.RecheckProgress) {
	now := v.clock()
	v.mu.Lock()
	v.cur = p
	if n := len(v.work); n == 0 || now.Sub(v.work[n-1].t) >= 250*time.Millisecond {
		v.work = append(v.work, workSample{now, p.BytesRead})
		for len(v.work) > 2 && now.Sub(v.work[1].t) >= rateWindow {
			v.work = v.work[1:]
		}
	}
	first := !v.started
	v.started = true
	var line string
	if !v.tty {
		switch {
		case first:
			line = fmt.Sprintf("dit verify: job %d: reading back %d copies, %s", v.job, p.Copies, units.FormatBytes(p.Bytes))
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

// rateLocked is the read-back rate lately, 0 when not known yet.
func (v *verifyProgress) rateLocked() float64 {
	if len(v.work) < 2 {
		return 0
	}
	a, b := v.work[0], v.work[len(v.work)-1]
	if dt := b.t.Sub(a.t).Seconds(); dt >= 1 {
		return float64(b.n-a.n) / dt
	}
	return 0
}

func (v *verifyProgress) plainLocked() string {
	p := v.cur
	pct, _ := percent(p.BytesRead, p.Bytes)
	s := fmt.Sprintf("job %d: %d/%d copies, %s of %s read back (%s)", v.job, p.CopiesDone, p.Copies,
		units.FormatBytes(p.BytesRead), units.FormatBytes(p.Bytes), pct)
	if r := v.rateLocked(); r > 0 {
		s += ", " + units.FormatRate(r)
		if e := formatETA(float64(p.Bytes-p.BytesRead) / r); e != "" {
			s += ", ETA " + e
		}
	}
	return s
}

// result prints a copy that differs (stdout; above the bar on a terminal).
func (v *verifyProgress) result(line string) {
	v.mu.Lock()
	var w io.Writer = v.out
	if v.p != nil && v.outTTY {
		w = v.p
	}
	v.mu.Unlock()
	fmt.Fprintln(w, line)
}

func (v *verifyProgress) startBar() {
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
func (v *verifyProgress) left(width int) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	usable := width - 1
	p := v.cur
	pct, frac := percent(p.BytesRead, p.Bytes)
	var rate, eta string
	if r := v.rateLocked(); r > 0 {
		rate = units.FormatRate(r)
		eta = formatETA(float64(p.Bytes-p.BytesRead) / r)
	}
	if eta != "" {
		eta = "ETA " + eta
	}
	left := []string{fmt.Sprintf("job %d reading back", v.job), fmt.Sprintf("%d/%d copies", p.CopiesDone, p.Copies), pct}
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

// stop draws the last line and ends the display.
func (v *verifyProgress) stop() {
	v.mu.Lock()
	p, bar := v.p, v.bar
	v.mu.Unlock()
	if p == nil {
		return
	}
	bar.Abort(false)
	p.Wait()
	v.mu.Lock()
	v.p = nil
	v.mu.Unlock()
}
