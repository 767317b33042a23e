package jobreport

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/offload"
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
// each destination's report folder ([Dir]); each file is written under a
// temporary name, synced and renamed (a report of the same job is
// replaced). It returns the paths written, and the first error after
// trying every destination.
func (r *Report) WriteToDestinations() ([]string, error) {
	var labels []string
	for _, c := range r.Cards {
		labels = append(labels, c.Label)
	}
	rel := Dir(r.Job.Layout, r.Job.Name, r.Job.Started, labels)
	rendered := map[string][]byte{}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := r.Write(f, &b); err != nil {
			return nil, fmt.Errorf("rendering the %s report: %w", f, err)
		}
		rendered[f] = b.Bytes()
	}
	var written []string
	var firstErr error
	for _, d := range r.Destinations {
		dir := filepath.Join(d.Path, filepath.FromSlash(rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("creating %s: %w", dir, err))
			continue
		}
		for _, f := range Formats {
			p := filepath.Join(dir, r.FileName(f))
			if err := writeAtomic(p, rendered[f]); err != nil {
				firstErr = cmpErr(firstErr, fmt.Errorf("writing %s: %w", p, err))
				continue
			}
			written = append(written, p)
		}
	}
	return written, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func writeAtomic(p string, data []byte) error {
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+"."+hex.EncodeToString(rnd[:])+offload.TempSuffix)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(p))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
