package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/watch"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/reports/speedchart"
)

type speedtestFlags struct {
	size, block, frame, chart string
	streams                   int
	readOnly, jsonOut         bool
}

func newSpeedtestCommand(g *GlobalOptions) *cobra.Command {
	var f speedtestFlags
	cmd := &cobra.Command{
		Use:   "speedtest PATH...",
		Short: "Measure what a card, a destination folder or a dit array sustains, past the cache",
		Long: `dit speedtest measures the sustained rate of each PATH:

  a folder      test files are written, made durable, read back and removed
  a card        its own files are read (the largest first); nothing on it is
                written. A folder that looks like a camera card is always
                tested read-only; --read-only makes any folder so.
  a dit blade   each blade of the array as a folder, then the whole array
                through its own writer and checked reader

Reads and writes bypass the page cache (O_DIRECT on Linux, F_NOCACHE on
macOS); where a filesystem refuses, the result says so. The default size is
more than this machine's memory and the media's likely caches (16 GB a
blade), so a drive's cache running out is seen: the curve of each phase has
100 points, and the point where the rate fell and stayed down for the rest
of the test (at least a tenth of it: a cache that ran out) is reported; never
for a folder held in memory (tmpfs). A result whose rate varied by more than
25 % between samples (a busy machine) is shown but not stored for dit plan
and dit offload: run it again on a quiet machine. Free space is checked first; the test files are removed on every way out,
Ctrl-C included.

Frame presets (--frame, one frame per I/O): ` + speedtest.FrameNames(),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options()
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			for _, p := range args {
				if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
					return &exitError{code: ExitUsage, err: fmt.Errorf("%s: not a folder (give a card, a destination folder or a blade of a dit array)", p)}
				}
			}
			if err := g.checkNewCatalog(); err != nil {
				return err
			}
			interruptNote.Store("dit speedtest: stopping and removing the test files")
			rs, err := runSpeedtest(cmd.Context(), g.stdout, g.stderr, f, o, args)
			if len(rs) > 0 {
				recordSpeedResults(cmd.Context(), g, rs, f.jsonOut)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.size, "size", "", "bytes each test moves, e.g. 64GB (default: more than the memory and the media's caches)")
	fl.StringVar(&f.block, "block", "", "bytes per read or write, e.g. 1MiB (default 1 MiB, dit's own)")
	fl.StringVar(&f.frame, "frame", "", "a frame preset as the I/O size, e.g. 4k-rgba16 (see above)")
	fl.IntVar(&f.streams, "streams", 1, "files written and read at once (several cards offloaded together)")
	fl.BoolVar(&f.readOnly, "read-only", false, "only read the folder's own files (a card); never write")
	fl.BoolVar(&f.jsonOut, "json", false, "print the results as JSON (curves included)")
	fl.StringVar(&f.chart, "chart", "", "write each result's curves as a PNG: FILE.png (FILE-N.png for several)")
	return cmd
}

func (f speedtestFlags) options() (speedtest.Options, error) {
	var o speedtest.Options
	var err error
	if f.size != "" {
		if o.Size, err = units.ParseBytes(f.size); err != nil || o.Size <= 0 {
			return o, fmt.Errorf("--size %q: give bytes, e.g. 64GB or 500MiB", f.size)
		}
		if o.Size < speedtest.MinSize {
			return o, fmt.Errorf("--size %s is too small to say anything: give at least %s", f.size, units.FormatBytes(speedtest.MinSize))
		}
	}
	if f.block != "" && f.frame != "" {
		return o, errors.New("--block and --frame both set the I/O size: give one")
	}
	if f.block != "" {
		b, err := units.ParseBytes(f.block)
		if err != nil || b < 4096 || b > 1<<30 {
			return o, fmt.Errorf("--block %q: give 4KiB to 1GiB, e.g. 1MiB", f.block)
		}
		o.Block = int(b)
	}
	if f.frame != "" {
		b, ok := speedtest.Frames[f.frame]
		if !ok {
			return o, fmt.Errorf("--frame %q is not a preset: use one of %s", f.frame, speedtest.FrameNames())
		}
		o.Block = b
	}
	if f.streams < 1 || f.streams > 64 {
		return o, fmt.Errorf("--streams %d: give 1 to 64", f.streams)
	}
	o.Streams = f.streams
	if f.chart != "" {
		if !strings.EqualFold(filepath.Ext(f.chart), ".png") {
			return o, fmt.Errorf("--chart %q: give a .png file name", f.chart)
		}
		if _, err := os.Lstat(f.chart); err == nil {
			return o, fmt.Errorf("--chart %s exists already: give another name or remove it (a file is never replaced)", f.chart)
		}
		if fi, err := os.Stat(filepath.Dir(f.chart)); err != nil || !fi.IsDir() {
			return o, fmt.Errorf("--chart %s: its folder %s does not exist", f.chart, filepath.Dir(f.chart))
		}
	}
	return o, nil
}

func runSpeedtest(ctx context.Context, out, errw io.Writer, f speedtestFlags, o speedtest.Options, paths []string) ([]*speedtest.Result, error) {
	mem := speedtest.Memory()
	var all []*speedtest.Result
	for _, p := range paths {
		rs, err := testOne(ctx, errw, f, o, p, mem)
		all = append(all, rs...)
		if err != nil {
			if errors.Is(err, speedtest.ErrCanceled) {
				return all, &exitError{code: offload.ExitInterrupted, err: fmt.Errorf("%s: speed test stopped; its test files were removed", p)}
			}
			return all, err
		}
		if !f.jsonOut {
			for _, r := range rs {
				writeSpeedResult(out, r)
			}
		}
	}
	if f.jsonOut {
		e := json.NewEncoder(out)
		e.SetIndent("", "  ")
		if err := e.Encode(all); err != nil {
			return all, err
		}
	}
	if f.chart != "" {
		return all, writeSpeedCharts(out, f.chart, all, f.jsonOut)
	}
	return all, nil
}

// recordSpeedResults keeps each complete result in the catalog, under
// its volume's id, with the bus the volume is on now (speedtest.Keep):
// dit plan and dit offload use the latest in place of table rates. A
// result whose rate varied too much between samples is not kept, and
// said so ("not stored: the rate varied by 38 % between samples ...").
// A catalog that cannot be opened is a warning: the results were printed.
func recordSpeedResults(ctx context.Context, g *GlobalOptions, rs []*speedtest.Result, quiet bool) {
	cat, err := g.openCatalog()
	if err != nil {
		fmt.Fprintf(g.stderr, "dit speedtest: results not recorded in the catalog: %v\n", err)
		return
	}
	defer cat.Close()
	vols, _ := devices.Discover(ctx)
	for _, k := range speedtest.Keep(cat, rs, vols) {
		var noisy *speedtest.NoisyError
		switch {
		case errors.As(k.Err, &noisy) && !quiet:
			// Shown, not planned with: said beside the result.
			fmt.Fprintln(g.stdout, noisy.Error())
		case k.Err != nil:
			fmt.Fprintf(g.stderr, "dit speedtest: %v\n", k.Err)
		case !quiet:
			fmt.Fprintf(g.stdout, "recorded for %s (by %s): dit plan and dit offload use it\n", k.Result.Volume, k.Result.VolumeHow)
		}
	}
}

func testOne(ctx context.Context, errw io.Writer, f speedtestFlags, o speedtest.Options, p string, mem int64) ([]*speedtest.Result, error) {
	readOnly := f.readOnly
	if raid.IsBlade(p) {
		if f.readOnly {
			return nil, &exitError{code: ExitUsage, err: fmt.Errorf("%s is a blade of a dit array: an array is tested by writing to it; leave out --read-only", p)}
		}
		fmt.Fprintf(errw, "%s: a blade of a dit array: testing each blade, then the whole array\n", p)
	} else if card, why := watch.Recognize(p, nil); card {
		fmt.Fprintf(errw, "%s looks like a camera card (%s): reading its files only, nothing is written\n", p, why)
		readOnly = true
	}
	return speedtest.Run(ctx, p, readOnly, o, mem)
}

// writeSpeedResult prints one result: what was tested, each phase's rate
// and time, how the cache was kept out, the cliff, and the curve.
func writeSpeedResult(w io.Writer, r *speedtest.Result) {
	name := r.Path
	if r.Label != "" {
		name = r.Label + "  " + r.Path
	}
	fmt.Fprintf(w, "%s (%s): %s in %s I/Os, %d stream(s)\n", name, r.Kind, units.FormatBytes(r.Size), units.FormatBytes(int64(r.Block)), r.Streams)
	for _, ph := range []*speedtest.Phase{r.Write, r.Read} {
		if ph == nil {
			continue
		}
		fmt.Fprintf(w, "  %-5s  %10s  %s in %.1f s  %s\n", ph.Name, units.FormatRate(ph.Rate), units.FormatBytes(ph.Bytes), ph.Seconds, sparkline(ph.Curve))
		if c := ph.Cliff; c != nil {
			fmt.Fprintf(w, "         the rate fell after %s: %s, then %s (a cache ran out)\n", units.FormatBytes(c.At), units.FormatRate(c.Before), units.FormatRate(c.After))
		}
		fmt.Fprintf(w, "         %s\n", ph.Cache)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// sparkline draws a curve in 25 block characters, scaled to its peak.
func sparkline(pts []speedtest.Point) string {
	const width = 25
	if len(pts) == 0 {
		return ""
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	peak := 0.0
	for _, p := range pts {
		peak = max(peak, p.Rate)
	}
	var b strings.Builder
	for i := range min(width, len(pts)) {
		lo, hi := i*len(pts)/min(width, len(pts)), (i+1)*len(pts)/min(width, len(pts))
		sum := 0.0
		for _, p := range pts[lo:hi] {
			sum += p.Rate
		}
		v := sum / float64(hi-lo) / peak
		b.WriteRune(bars[min(len(bars)-1, int(v*float64(len(bars)-1)+0.5))])
	}
	return b.String()
}

func writeSpeedCharts(out io.Writer, file string, rs []*speedtest.Result, quiet bool) error {
	for i, r := range rs {
		name := file
		if len(rs) > 1 {
			name = strings.TrimSuffix(file, filepath.Ext(file)) + fmt.Sprintf("-%d", i+1) + filepath.Ext(file)
		}
		png, err := speedchart.PNG(r, 7*vg.Inch, 3.5*vg.Inch)
		if err != nil {
			return err
		}
		if err := writeChart(name, png); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(out, "chart: %s\n", name)
		}
	}
	return nil
}

// writeChart writes a new file; an existing one is never replaced.
func writeChart(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("the chart %s exists already: give another --chart name or remove it", name)
	}
	if err != nil {
		return fmt.Errorf("writing the chart %s: %w", name, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("writing the chart %s: %w", name, err)
	}
	return nil
}
