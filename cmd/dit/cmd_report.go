package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/seal"
	"github.com/dit-org/dit/reports/jobreport"
)

// ReportOptions are the flags of dit report.
type ReportOptions struct {
	Format string
	Out    string
}

func newReportCommand(g *GlobalOptions) *cobra.Command {
	var o ReportOptions
	cmd := &cobra.Command{
		Use:   "report JOB [--format csv|json|html|pdf] [--out FILE|DIR]",
		Short: "Write a job's offload report: files, hashes, states, TB/hour, throughput charts",
		Long: `Write the report of a finished job from the catalog: the job, each destination,
and each card with its files, bytes, skipped entries, failures, copy and verify
times, per-second rate statistics, TB/hour (10^12 bytes per hour) for the copy
phase, the verify phase and end to end, and a throughput chart.

  csv   every file with its hashes and its state on each destination
  json  everything, machine-readable
  html  one self-contained page with the charts
  pdf   A4, one page per card
  clips the clip sheet: one row per clip (name, tape, start and end timecode,
        duration, fps, camera, codec, resolution, source file, verified)

dit also writes all four at the end of every job into each destination
(DEST/<job folder>/reports/).

Without --format: the format of --out's extension (day01.pdf), or all four
files into --out when it is a folder, or into the current folder without
--out. With --format and no --out the report goes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runReport(o, g, id)
		},
	}
	cmd.Flags().StringVar(&o.Format, "format", "", "csv, json, html, pdf or clips (default: from --out's extension, else all four, and the clip sheet when the job has clips)")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to `FILE` instead of stdout")
	return cmd
}

func runReport(o ReportOptions, g *GlobalOptions, id int64) error {
	usage := func(format string, a ...any) error {
		return &exitError{code: offload.ExitUsage, err: fmt.Errorf(format, a...)}
	}
	all := false
	if o.Format == "" {
		// From --out's extension; with neither, all four formats into
		// the current folder (or into --out when it is a folder).
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(o.Out)), ".")
		fi, err := os.Stat(o.Out)
		switch {
		case o.Out != "" && err == nil && fi.IsDir():
			all = true
		case o.Out == "":
			all, o.Out = true, "."
		case slices.Contains(jobreport.Formats, ext):
			o.Format = ext
		default:
			return usage("--out %s: give --format %s (or a file name ending in one of them)", o.Out, strings.Join(jobreport.Formats, ", "))
		}
	}
	if !all && !slices.Contains(jobreport.Formats, o.Format) && o.Format != jobreport.ClipSheetFormat {
		return usage("--format %q: use %s", o.Format, strings.Join(jobreport.Formats, ", "))
	}
	if o.Out == "" && o.Format == "pdf" {
		if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usage("a PDF is binary: give --out FILE (or redirect stdout)")
		}
	}
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	r, err := jobreport.Build(cat, id, jobreport.Options{})
	if err != nil {
		if errors.Is(err, jobreport.ErrNotFinished) {
			return &exitError{code: offload.ExitFatal, err: err}
		}
		return err
	}
	if all {
		// Each format on its own: one that fails leaves the others.
		var fails []error
		for _, f := range r.Outputs() {
			p := filepath.Join(o.Out, r.OutputName(f))
			var b bytes.Buffer
			if err := r.Write(f, &b); err != nil {
				fails = append(fails, reportFailure(f, id, p, err))
				continue
			}
			if err := writeNew(p, b.Bytes()); err != nil {
				fails = append(fails, reportFailure(f, id, p, err))
				continue
			}
			fmt.Fprintln(g.stdout, p)
		}
		return errors.Join(fails...)
	}
	var b bytes.Buffer
	if err := r.Write(o.Format, &b); err != nil {
		return reportFailure(o.Format, id, o.Out, err)
	}
	if o.Out == "" {
		_, err := g.stdout.Write(b.Bytes())
		return err
	}
	if err := os.WriteFile(o.Out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintf(g.stdout, "%s\n", o.Out)
	return nil
}

// offloadExtras adds to an offload what this file's packages bring: the
// already-offloaded check before copying (cards skipped unless --again),
// ASC MHL / MHL v1.1 sealing of each card on each destination (--mhl), and
// the reports written into every destination when the job ends. It returns
// a function to call after the summary is printed, and done=true when no
// card is left to copy.
// Hash lists and reports on a dit array destination go through the job's
// filesystem (the engine hands it to the hooks), into the array.
func offloadExtras(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions, cat *catalog.Catalog, out printer, opts *offload.Options) (after func(), done bool, err error) {
	after = func() {}
	format, err := seal.ParseFormat(o.MHL)
	if err != nil {
		return after, false, &exitError{code: offload.ExitUsage, err: err}
	}
	opts.MHL = o.MHL
	if o.Resume != 0 {
		// A resumed job writes the hash lists it started with (an
		// explicit different --mhl was refused by checkResume).
		rec, err := cat.Job(o.Resume)
		if err != nil {
			return after, false, err
		}
		if opts.MHL, err = offload.ResumeMHL(rec, ""); err != nil {
			return after, false, err
		}
		if format, err = seal.ParseFormat(opts.MHL); err != nil {
			return after, false, fmt.Errorf("job %d: recorded hash lists: %w", o.Resume, err)
		}
	} else {
		if err := format.Check(opts.Hashes); err != nil {
			return after, false, &exitError{code: offload.ExitUsage, err: fmt.Errorf("--mhl %s: %w (or use --mhl none)", o.MHL, err)}
		}
		all := append(append([]string(nil), opts.Dests...), opts.Then...)
		priors, hists, err := offload.FindPrior(cmd.Context(), cat, opts.FS, opts.Cards, opts.IncludeHidden, opts.Ignore, all...)
		if err != nil {
			return after, false, err
		}
		say := func(p *offload.Prior, msg string) {
			if o.JSON {
				out.Event(offload.Event{Type: offload.EvAlreadyOffloaded, Time: time.Now(), Card: p.Label, Path: p.Card, Message: msg})
			} else {
				fmt.Fprintln(g.stdout, msg)
			}
		}
		// "Already offloaded" is judged per destination: a card verified
		// before on every destination given is skipped; one verified on
		// some is copied to the others. A destination every card to copy
		// already has is left out of this job.
		var keep []string
		var partial []*offload.Prior
		for i, p := range priors {
			switch {
			case p == nil:
				keep = append(keep, opts.Cards[i])
			case o.Again:
				say(p, p.Message()+": copying it again (--again)")
				keep = append(keep, opts.Cards[i])
			case p.Done():
				say(p, p.Message()+": skipped (dit offload --again copies it anyway)")
			default:
				keep = append(keep, opts.Cards[i])
				partial = append(partial, p)
			}
			if p != nil && len(p.Gone) > 0 {
				say(p, fmt.Sprintf("%s: the earlier verified copy at %s is no longer there whole: it is not counted", p.Label, strings.Join(p.Gone, ", ")))
			}
		}
		if len(partial) > 0 && len(partial) == len(keep) && len(opts.Then) == 0 {
			// Every card to copy has a verified copy on some destinations:
			// those every one of them has are left out.
			drop := map[string]bool{}
			for _, d := range partial[0].Covered {
				drop[d] = true
			}
			for _, p := range partial[1:] {
				has := map[string]bool{}
				for _, d := range p.Covered {
					has[d] = true
				}
				for d := range drop {
					drop[d] = drop[d] && has[d]
				}
			}
			var dests []string
			for _, d := range opts.Dests {
				if !drop[d] {
					dests = append(dests, d)
				}
			}
			for _, p := range partial {
				say(p, p.Message()+": copying it to "+strings.Join(dests, ", ")+" only")
			}
			opts.Dests = dests
		} else {
			for _, p := range partial {
				say(p, p.Message()+": copied to every destination with the other cards")
			}
		}
		for _, h := range hists {
			msg := fmt.Sprintf("%s carries an ASC MHL history (%d generation(s), the last by %s): dit appends a generation to its copy on each destination",
				h.Card, h.Generations, h.Last)
			if h.Problem != "" {
				msg = fmt.Sprintf("%s carries an ASC MHL history that is damaged (%s): its copies get no new generation", h.Card, h.Problem)
			}
			if o.JSON {
				out.Event(offload.Event{Type: offload.EvWarning, Time: time.Now(), Card: h.Card, Message: msg})
			} else {
				fmt.Fprintln(g.stdout, msg)
			}
		}
		if len(keep) == 0 {
			if !o.JSON {
				fmt.Fprintln(g.stdout, "Nothing to copy: every card was offloaded and verified before.")
			}
			return after, true, nil
		}
		opts.Cards = keep
	}
	if format.ASC || format.V1 {
		opts.Seal = (&seal.Sealer{Format: format}).Seal
	}
	var written []string
	// Clips: each card's clips recognised once it is done, their poster
	// frames made from the first copy at low priority while the other
	// cards are copied; the reports wait for them.
	clipper := jobreport.NewClipper(cmd.Context(), cat)
	prevEvent := opts.OnEvent
	opts.OnEvent = func(e offload.Event) {
		if prevEvent != nil {
			prevEvent(e)
		}
		clipper.OnEvent(e)
	}
	opts.AfterJob = clipper.AfterJob(func(paths []string) {
		written = paths
		if o.JSON {
			out.Event(offload.Event{Type: "reports", Time: time.Now(), Message: strings.Join(paths, "\n")})
		}
	})
	after = func() {
		if o.JSON || len(written) == 0 {
			return
		}
		fmt.Fprintln(g.stdout, "Reports:")
		for _, p := range written {
			fmt.Fprintln(g.stdout, "  "+p)
		}
	}
	return after, false, nil
}

// reportFailure names the format, the job and the path of a report that
// failed (a *jobreport.FormatError says them already).
func reportFailure(format string, id int64, p string, err error) error {
	var fe *jobreport.FormatError
	if errors.As(err, &fe) {
		e := *fe
		e.Path = cmp.Or(e.Path, p)
		return &e
	}
	return &jobreport.FormatError{Format: format, JobID: id, Path: p, Err: err}
}

// writeNew writes a report file (replacing an earlier report of that name).
func writeNew(p string, data []byte) error {
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}
