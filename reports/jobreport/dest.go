package jobreport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
)

// FallbackDir holds the reports of jobs whose layout has no folder of
// their own: <dest>/dit-reports/<job name>/.
const FallbackDir = "dit-reports"

// Dir returns the folder, relative to a destination, that receives a job's
// reports: "reports" in the job's folder (the part of the layout up to and
// including {job}, e.g. "Day01/reports" for the default {job}/{card}), or
// dit-reports/<job name> when the layout has no separable job folder or
// when a card's folder would be that "reports" folder.
func Dir(layout, jobName string, started time.Time, cardLabels []string) string {
	fallback := path.Join(FallbackDir, safeName(jobName))
	segs := strings.Split(layout, "/")
	jobSeg := -1
	for i, s := range segs {
		if strings.Contains(s, "{card}") {
			break
		}
		if strings.Contains(s, "{job}") {
			jobSeg = i
			break
		}
	}
	if jobSeg < 0 {
		return fallback
	}
	withCard, err := offload.ExpandLayout(strings.Join(segs[:jobSeg+1], "/")+"/{card}", jobName, "x", started)
	if err != nil {
		return fallback
	}
	dir := path.Join(path.Dir(withCard), "reports")
	for _, l := range cardLabels {
		out, err := offload.ExpandLayout(layout, jobName, l, started)
		if err != nil {
			continue
		}
		if out == dir || strings.HasPrefix(out, dir+"/") || strings.HasPrefix(dir, out+"/") {
			return fallback
		}
	}
	return dir
}

// safeName makes a job name usable as one file-name element.
func safeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r == '/', r == '\\', r == ':':
			b.WriteByte('_')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	out := strings.Trim(b.String(), ". ")
	// A file name is at most 255 bytes: a long name (4 bytes an emoji)
	// is cut at a character, before a combining mark's letter.
	const most = 120
	if len(out) > most {
		cut := 0
		for i, r := range out {
			if i > most {
				break
			}
			if !unicode.Is(unicode.Mn, r) && r != 0x200D && !zeroWidth(r) {
				cut = i
			}
		}
		out = strings.TrimRight(out[:cut], ". ")
	}
	if out == "" {
		out = "job"
	}
	return out
}

// FileName is the name of a report file in format ext.
func (r *Report) FileName(ext string) string {
	return fmt.Sprintf("dit-report_job%d_%s.%s", r.Job.ID, safeName(r.Job.Name), ext)
}

// WriteToDestinations renders every format once and writes the files into
// each destination's report folder ([Dir]) through fsy (the job's
// filesystem, so that a report on a dit array lands in the array; nil: the
// OS). Each format is rendered straight into a temporary file on every
// destination at once (never whole in memory: destwrite.go), synced, then
// renamed (a report of the same job is replaced). Each format stands
// alone: one that fails to render (or panics) or to be written is left out
// and the others are written. It returns the paths written and, after
// trying every format on every destination, the failures joined (each a
// *[FormatError] naming the format, the path and the reason).
func (r *Report) WriteToDestinations(fsy fsys.FS) ([]string, error) {
	return r.WriteToDestinationsContext(context.Background(), fsy)
}

// WriteToDestinationsContext is WriteToDestinations that stops once ctx
// ends (Ctrl-C), returning ctx's error: the rendering stops at its next
// write, no report is renamed after that, and the temporary files are
// removed; a report cut short is written again by a resume.
func (r *Report) WriteToDestinationsContext(ctx context.Context, fsy fsys.FS) ([]string, error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	var labels []string
	for _, c := range r.Cards {
		labels = append(labels, c.Label)
	}
	rel := Dir(r.Job.Layout, r.Job.Name, r.Job.Started, labels)
	var fails []error
	fail := func(f, p string, err error) {
		var fe *FormatError
		if errors.As(err, &fe) {
			e := *fe
			e.Path = cmp.Or(e.Path, p)
			fails = append(fails, &e)
			return
		}
		fails = append(fails, &FormatError{Format: f, JobID: r.Job.ID, Path: p, Err: err})
	}
	ts, terrs := r.targets(fsy, rel)
	fails = append(fails, terrs...)
	outs := r.Outputs()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	staged := r.stageAll(ctx, fsy, outs, ts)
	removeAll := func() {
		for _, st := range staged {
			for _, s := range st {
				if s.temp != "" {
					fsy.Remove(s.temp)
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		removeAll()
		return nil, err
	}
	for i, f := range outs {
		for _, s := range staged[i] {
			if s.bad != "" {
				// Named by where it would have gone on the first destination.
				p := filepath.Join(r.Destinations[0].Path, filepath.FromSlash(rel), r.OutputName(f))
				fail(f, p, fmt.Errorf("%s: %w", s.bad, s.err))
				break // once: the format failed, not a destination
			}
		}
	}
	var written []string
	for k, t := range ts {
		d := r.Destinations[t.di]
		for i, f := range outs {
			s := &staged[i][k]
			if err := ctx.Err(); err != nil {
				removeAll()
				return written, err
			}
			name := r.OutputName(f)
			if s.bad != "" {
				continue
			}
			err := s.err
			if err == nil {
				err = commit(fsy, t.dir, s.temp, name)
				s.temp = ""
			}
			if err != nil {
				fail(f, filepath.Join(t.dir, name), fmt.Errorf("not written: %w", err))
				continue
			}
			written = append(written, r.openPath(d.Path, path.Join(rel, name)))
		}
	}
	return written, errors.Join(fails...)
}

// targets are the destinations' reports folders (rel in each), made, with
// this job's temporary files of an earlier run cut short removed; a cloud
// destination has none (a cloud copy holds the card's files and hash
// lists; the reports stay on the local copies); a blade of a dit array, or
// a folder that cannot be made, is an error.
func (r *Report) targets(fsy fsys.FS, rel string) ([]target, []error) {
	_, plainOS := fsy.(fsys.OS)
	var ts []target
	var fails []error
	for di, d := range r.Destinations {
		if cloud.IsDest(d.Path) {
			continue
		}
		if plainOS && raid.IsBlade(d.Path) {
			// A blade folder holds the array's own files: the report goes
			// into the array (through the job's filesystem), never beside them.
			fails = append(fails, fmt.Errorf("%s is a blade of a dit array: report not written there (use dit report)", d.Path))
			continue
		}
		dir := filepath.Join(d.Path, filepath.FromSlash(rel))
		if err := fsy.MkdirAll(dir, 0o755); err != nil {
			fails = append(fails, fmt.Errorf("reports not written: creating %s: %w", dir, err))
			continue
		}
		r.removeTemps(fsy, dir)
		ts = append(ts, target{di: di, dir: dir})
	}
	return ts, fails
}

// AfterJob is the offload.Options.AfterJob hook both front ends use: the
// job's report in every format into every destination's job folder (into
// the array for an array destination). written, if set, gets the paths.
func AfterJob(cat *catalog.Catalog, written func([]string)) func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
	return afterJob(cat, Options{}, written)
}

// afterJob is AfterJob with the reports built with o.
func afterJob(cat *catalog.Catalog, o Options, written func([]string)) func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
	return func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
		r, err := Build(cat, s.JobID, o)
		if err != nil {
			return err
		}
		paths, err := r.WriteToDestinationsContext(ctx, fsy)
		if written != nil && len(paths) > 0 {
			written(paths)
		}
		return err
	}
}
