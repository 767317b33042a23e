package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/reports/jobreport"
	"github.com/dit-org/dit/reports/seal"
)

// ReportOptions are the flags of dit report.
type ReportOptions struct {
	Format string
	Out    string
}

func newReportCommand(g *GlobalOptions) *cobra.Command {
	var o ReportOptions
	cmd := &cobra.Command{
		Use:   "report JOB --format csv|json|html|pdf [--out FILE]",
		Short: "Write a job's offload report: files, hashes, states, TB/hour, throughput charts",
		Long: `Write the report of a finished job from the catalog: the job, each destination,
and each card with its files, bytes, skipped entries, failures, copy and verify
times, per-second rate statistics, TB/hour (10^12 bytes per hour) for the copy
phase, the verify phase and end to end, and a throughput chart.

  csv   every file with its hashes and its state on each destination
  json  everything, machine-readable
  html  one self-contained page with the charts
  pdf   A4, one page per card

dit also writes all four at the end of every job into each destination
(DEST/<job folder>/reports/). Without --out the report goes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runReport(o, g, id)
		},
	}
	cmd.Flags().StringVar(&o.Format, "format", "", "csv, json, html or pdf (required)")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to `FILE` instead of stdout")
	return cmd
}

func runReport(o ReportOptions, g *GlobalOptions, id int64) error {
	usage := func(format string, a ...any) error {
		return &exitError{code: offload.ExitUsage, err: fmt.Errorf(format, a...)}
	}
	if !slices.Contains(jobreport.Formats, o.Format) {
		return usage("--format %q: use %s", o.Format, strings.Join(jobreport.Formats, ", "))
	}
	if o.Out == "" && o.Format == "pdf" {
		if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usage("a PDF is binary: give --out FILE (or redirect stdout)")
		}
	}
	cat, err := g.openCatalog()
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
	var b bytes.Buffer
	if err := r.Write(o.Format, &b); err != nil {
		return err
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
		priors, hists, err := offload.FindPrior(cmd.Context(), cat, opts.FS, opts.Cards, opts.IncludeHidden)
		if err != nil {
			return after, false, err
		}
		var keep []string
		for i, p := range priors {
			if p == nil {
				keep = append(keep, opts.Cards[i])
				continue
			}
			msg := p.Message() + ": skipped (dit offload --again copies it anyway)"
			if o.Again {
				msg = p.Message() + ": copying it again (--again)"
				keep = append(keep, opts.Cards[i])
			}
			if o.JSON {
				out.Event(offload.Event{Type: offload.EvAlreadyOffloaded, Time: time.Now(), Card: p.Label, Path: p.Card, Message: msg})
			} else {
				fmt.Fprintln(g.stdout, msg)
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
	opts.AfterJob = jobreport.AfterJob(cat, func(paths []string) {
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
