package jobreport

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/format/ascmhl"
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
// OS). Each file is written under a temporary name, synced and renamed (a
// report of the same job is replaced). Each format stands alone: one that
// fails to render (or panics) or to be written is left out and the others
// are written. It returns the paths written and, after trying every format
// on every destination, the failures joined (each a *[FormatError] naming
// the format, the path and the reason).
func (r *Report) WriteToDestinations(fsy fsys.FS) ([]string, error) {
	return r.WriteToDestinationsContext(context.Background(), fsy)
}

// WriteToDestinationsContext is WriteToDestinations that stops before the
// next file once ctx ends (Ctrl-C), returning ctx's error: a report cut
// short is written again by a resume.
func (r *Report) WriteToDestinationsContext(ctx context.Context, fsy fsys.FS) ([]string, error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	_, plainOS := fsy.(fsys.OS)
	var labels []string
	for _, c := range r.Cards {
		labels = append(labels, c.Label)
	}
	rel := Dir(r.Job.Layout, r.Job.Name, r.Job.Started, labels)
	// The formats are rendered at once (the PDF's charts are the long
	// pole; the others come free on the other cores): this is the tail of
	// the job, after the last copy is verified.
	outs := r.Outputs()
	bufs := make([]bytes.Buffer, len(outs))
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i, f := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Write(f, &bufs[i]) // Write recovers a writer's panic
		}()
	}
	wg.Wait()
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
	var good []string
	rendered := map[string][]byte{}
	for i, f := range outs {
		if errs[i] != nil {
			// Named by where it would have gone on the first destination.
			p := ""
			if len(r.Destinations) > 0 {
				p = filepath.Join(r.Destinations[0].Path, filepath.FromSlash(rel), r.OutputName(f))
			}
			fail(f, p, fmt.Errorf("not rendered: %w", errs[i]))
			continue
		}
		good = append(good, f)
		rendered[f] = bufs[i].Bytes()
	}
	var written []string
	for di, d := range r.Destinations {
		if cloud.IsDest(d.Path) {
			continue // a cloud copy holds the card's files and hash lists; the reports stay on the local copies
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
		st := ascmhl.FSStore{FS: fsy, Dir: dir}
		for _, f := range good {
			if err := ctx.Err(); err != nil {
				return written, err
			}
			name := r.OutputName(f)
			data := rendered[f]
			if _, _, ok := editorialOf(f); ok {
				// An editorial list in a destination names the files on it.
				var b bytes.Buffer
				if err := r.writeEditorialOn(&b, f, di); err == nil {
					data = b.Bytes()
				}
			}
			if err := st.WriteFileAtomic(name, data, true); err != nil {
				fail(f, filepath.Join(dir, name), fmt.Errorf("not written: %w", err))
				continue
			}
			written = append(written, r.openPath(d.Path, path.Join(rel, name)))
		}
	}
	return written, errors.Join(fails...)
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
