package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dit-org/dit/internal/offload"
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
		Use:   "report JOB [--format csv|json|html|pdf|clips|ale|edl|fcpxml|proxies] [--out FILE|DIR]",
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
        duration, fps, camera, serial, codec, resolution, source file,
        verified, audio, ISO, white balance, lens, conflicts)
  ale   Avid Log Exchange for Avid Media Composer and DaVinci Resolve: a row
        per clip (Name, Tracks, Start, End, Duration, Tape, Source File on the
        first destination, Camera, Codec, Resolution, FPS, Camera Serial,
        ISO, White Balance, Lens, Card, Frames, Verified, Proxy File); a job that mixes frame rates gets one ALE
        per rate (NAME_25fps.ale, NAME_23.976fps.ale: give --out)
  edl   CMX 3600 EDL of the day's clips back to back from 01:00:00:00, each
        with its reel, clip name and source file (as the ALE's) for the
        editing suite to relink; a job that mixes frame rates: edl:RATE
  fcpxml FCPXML 1.10 for Final Cut Pro and DaVinci Resolve: the clips as
        assets linked to their copies, in an event and a project (one per
        frame rate, like edl: fcpxml:RATE)
  proxies the proxies sheet (a CSV): one row per editorial proxy (dit offload
        --proxies) on each destination: card, clip, preset, state,
        destination, path, source, start timecode, size, hashes, how it
        was verified (s3-etag:md5 on a cloud destination), when, error

dit also writes all four at the end of every job into each folder or array
destination (DEST/<job folder>/reports/; a cloud destination gets none), with the clip sheet when the job has clips,
its ALE, EDL and FCPXML (one of each per frame rate) when asked (dit offload
--ale), and the proxies sheet when it made proxies. Those written then carry
each clip's sound (Tracks VA1A2...) and where its media and a sidecar
disagreed, which the catalog does not keep: written later, the lists say
Tracks V.

Without --format: the format of --out's extension (day01.pdf), or every
file (the four, the clip sheet, the ALE, EDL and FCPXML when the job has
clips, the proxies sheet when it has proxies) into
--out when it is a folder, or into the current folder without --out. With
--format and no --out the report goes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runReport(o, g, id)
		},
	}
	cmd.Flags().StringVar(&o.Format, "format", "", "csv, json, html, pdf, clips, ale, edl, fcpxml or proxies (default: from --out's extension, else all four, and the clip sheet, ALE, EDL and FCPXML when the job has clips, the proxies sheet when it has proxies)")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to `FILE` instead of stdout")
	return cmd
}

func runReport(o ReportOptions, g *GlobalOptions, id int64) error {
	usage := func(format string, a ...any) error {
		return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
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
		case slices.Contains(jobreport.Formats, ext), ext == jobreport.ALEFormat, ext == jobreport.EDLFormat, ext == jobreport.FCPXMLFormat:
			o.Format = ext
		default:
			return usage("--out %s: give --format %s (or a file name ending in one of them)", o.Out, strings.Join(jobreport.Formats, ", "))
		}
	}
	isEDL := o.Format == jobreport.EDLFormat || strings.HasPrefix(o.Format, jobreport.EDLFormat+":") ||
		o.Format == jobreport.FCPXMLFormat || strings.HasPrefix(o.Format, jobreport.FCPXMLFormat+":")
	if !all && !slices.Contains(jobreport.Formats, o.Format) && o.Format != jobreport.ClipSheetFormat && o.Format != jobreport.ALEFormat &&
		o.Format != jobreport.ProxySheetFormat && !isEDL {
		return usage("--format %q: use %s, %s, %s, %s, %s or %s", o.Format, strings.Join(jobreport.Formats, ", "), jobreport.ClipSheetFormat,
			jobreport.ALEFormat, jobreport.EDLFormat, jobreport.FCPXMLFormat, jobreport.ProxySheetFormat)
	}
	if o.Out == "" && o.Format == "pdf" {
		if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usage("a PDF is binary: give --out FILE (or redirect stdout)")
		}
	}
	if o.Out != "" && !all {
		if dir := filepath.Dir(o.Out); !isDir(dir) {
			return usage("--out %s: its folder %s does not exist: create it first, or give a file in an existing folder", o.Out, dir)
		}
	}
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	r, err := jobreport.Build(cat, id, jobreport.Options{ALE: all})
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
			if err := writeReport(r, f, p); err != nil {
				fails = append(fails, reportFailure(f, id, p, err))
				continue
			}
			fmt.Fprintln(g.stdout, p)
		}
		return errors.Join(fails...)
	}
	if o.Format == jobreport.ALEFormat {
		if outs := r.ALEOutputs(); len(outs) > 1 {
			return writeALEs(g, r, o.Out, outs)
		}
	}
	if o.Out == "" {
		// Written as it is read: a report that fails midway is cut
		// short there, and dit says so and exits non-zero.
		if err := r.Write(o.Format, g.stdout); err != nil {
			return reportFailure(o.Format, id, "", fmt.Errorf("%w (the report written to stdout is INCOMPLETE)", err))
		}
		return nil
	}
	if err := writeReport(r, o.Format, o.Out); err != nil {
		return reportFailure(o.Format, id, o.Out, err)
	}
	fmt.Fprintf(g.stdout, "%s\n", o.Out)
	return nil
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

// writeReport writes r in format into file p as it is rendered, under a
// temporary name beside it, renamed to p (replacing an earlier report of
// that name) only once every byte is written: a report that fails
// midway leaves no file that looks complete.
func writeReport(r *jobreport.Report, format, p string) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	err = r.Write(format, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing the report: %w", cerr)
	}
	if err == nil {
		if err = os.Chmod(f.Name(), 0o644); err == nil {
			err = os.Rename(f.Name(), p)
		}
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// writeALEs writes a job's ALEs, one per frame rate: into folder out
// under their own names, or beside file out as OUT_<rate>fps.ale.
func writeALEs(g *GlobalOptions, r *jobreport.Report, out string, outs []string) error {
	if out == "" {
		var rates []string
		for _, f := range outs {
			rates = append(rates, strings.TrimPrefix(f, jobreport.ALEFormat+":"))
		}
		return &exitError{code: ExitUsage, err: fmt.Errorf("job %d mixes frame rates (%s): one ALE per rate; give --out FOLDER or --out NAME.ale",
			r.Job.ID, strings.Join(rates, ", "))}
	}
	var fails []error
	for _, f := range outs {
		p := filepath.Join(out, r.OutputName(f))
		if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
			rate := strings.TrimPrefix(f, jobreport.ALEFormat+":")
			p = strings.TrimSuffix(out, filepath.Ext(out)) + "_" + rate + "fps.ale"
		}
		if err := writeReport(r, f, p); err != nil {
			fails = append(fails, reportFailure(f, r.Job.ID, p, err))
			continue
		}
		fmt.Fprintln(g.stdout, p)
	}
	return errors.Join(fails...)
}
