package jobreport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/fsys"
)

// This file is how the reports reach the destinations at the end of a
// job without being held in memory: each format is rendered once,
// straight into a temporary file in every destination's reports folder
// at once (a writer that fans out, [fanout]), each of them synced and
// closed when the format ends; then, destination by destination and
// format by format, each temporary file is renamed to its name and the
// folder synced, as ascmhl.FSStore.WriteFileAtomic does (the same
// crash points: "store: temp written <name>", "store: old file removed
// <name>"). A format's bytes pass through its writer's buffer (64 KiB)
// and are gone: memory does not grow with the job's files.

// tempSuffix ends a report's temporary file: ".<name>.<random>.dit-tmp",
// the engine's and the hash lists' own.
const tempSuffix = ".dit-tmp"

// target is a destination's reports folder.
type target struct {
	di  int    // the destination's index in Report.Destinations
	dir string // its reports folder
}

// staged is one format's temporary file on one target: its name, or why
// it is not there.
type staged struct {
	temp string
	err  error  // not written (a *FormatError or a write's error)
	bad  string // "not rendered": the format failed, not the destination
}

// stage renders format f into a temporary file on each target, the same
// bytes in each (an editorial list: each target's own, naming the files
// on it). What it returns is by target; each temp is synced and closed.
// Once ctx ends, a write fails with ctx's error.
func (r *Report) stage(ctx context.Context, fsy fsys.FS, f string, ts []target) []staged {
	out := make([]staged, len(ts))
	if _, _, ok := editorialOf(f); ok {
		for i, t := range ts {
			out[i] = r.stageOne(ctx, fsy, f, []target{t})[0]
		}
		return out
	}
	return r.stageOne(ctx, fsy, f, ts)
}

// stageOne renders f once into a temporary file on each of ts.
func (r *Report) stageOne(ctx context.Context, fsy fsys.FS, f string, ts []target) []staged {
	out := make([]staged, len(ts))
	name := r.OutputName(f)
	fan := &fanout{ctx: ctx}
	for i, t := range ts {
		w, err := fsy.CreateTemp(t.dir, "."+strings.ReplaceAll(name, "*", "_")+".*"+tempSuffix)
		if err != nil {
			out[i].err = err
			fan.ws = append(fan.ws, nil)
			fan.errs = append(fan.errs, err)
			continue
		}
		fan.ws = append(fan.ws, w)
		fan.errs = append(fan.errs, nil)
	}
	var err error
	switch _, _, editorial := editorialOf(f); {
	case fan.live() == 0:
	case editorial: // one target: stage gives each its own
		err = r.editorialTo(fan, f, ts[0].di)
	default:
		err = r.Write(f, fan)
	}
	allFailed := errors.Is(err, errAllFailed)
	for i, w := range fan.ws {
		if w == nil {
			continue
		}
		werr := fan.errs[i]
		if werr == nil && err == nil {
			werr = w.Sync()
		}
		if cerr := w.Close(); werr == nil && err == nil {
			werr = cerr
		}
		switch {
		case werr != nil:
			out[i].err = werr
		case err != nil && (allFailed || ctx.Err() != nil):
			out[i].err = err
		case err != nil:
			out[i].err, out[i].bad = err, "not rendered"
		default:
			out[i].temp = w.Name()
			continue
		}
		fsy.Remove(w.Name())
	}
	return out
}

// editorialTo writes editorial list f as destination di names its files
// into w; a list that fails so is written as the job's (the first
// destination's), as a list from dit report is. A panic is recovered as
// a *FormatError.
func (r *Report) editorialTo(w *fanout, f string, di int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &FormatError{Format: f, JobID: r.Job.ID, Err: fmt.Errorf("crashed: %v (a bug in dit: please report it)", p),
				Panic: p, Stack: debug.Stack()}
		}
	}()
	w.n = 0
	if err := r.writeEditorialOn(w, f, di); err == nil || w.n > 0 || w.live() == 0 {
		return err
	}
	return r.Write(f, w)
}

// errAllFailed: no destination took the bytes written (each one's error
// is its own).
var errAllFailed = errors.New("no destination could be written")

// fanout writes what it is given to every file that has not failed; a
// file that fails is let go (its error kept) and the others go on. Once
// ctx ends, or when every file has failed, a write fails.
type fanout struct {
	ctx  context.Context
	ws   []fsys.WFile
	errs []error
	n    int64 // bytes written
}

func (f *fanout) live() int {
	n := 0
	for i, w := range f.ws {
		if w != nil && f.errs[i] == nil {
			n++
		}
	}
	return n
}

func (f *fanout) Write(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	ok := false
	for i, w := range f.ws {
		if w == nil || f.errs[i] != nil {
			continue
		}
		if _, err := w.Write(p); err != nil {
			f.errs[i] = err
			continue
		}
		ok = true
	}
	if !ok {
		return 0, errAllFailed
	}
	f.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*fanout)(nil)

// stageAll stages every format of outs on ts, the formats at once (the
// PDF's charts are the long pole; the others come free on the other
// cores): by format, then target.
func (r *Report) stageAll(ctx context.Context, fsy fsys.FS, outs []string, ts []target) [][]staged {
	res := make([][]staged, len(outs))
	var wg sync.WaitGroup
	for i, f := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = r.stage(ctx, fsy, f, ts)
		}()
	}
	wg.Wait()
	return res
}

// commit renames temp to name in dir (replacing a report of the same
// name) and syncs dir: the engine's rename, on a filesystem whose rename
// never replaces (a dit array) a remove then a rename.
func commit(fsy fsys.FS, dir, temp, name string) error {
	crashpoint.Hit("store: temp written " + crashName(name))
	p := filepath.Join(dir, name)
	err := fsy.Rename(temp, p)
	if errors.Is(err, fs.ErrExist) {
		// A crash between the two leaves the new report under its
		// temporary name: a resume writes the reports again.
		if err = fsy.Remove(p); err == nil {
			crashpoint.Hit("store: old file removed " + crashName(name))
			err = fsy.Rename(temp, p)
		}
	}
	if err != nil {
		fsy.Remove(temp)
		return err
	}
	return fsy.SyncDir(dir)
}

// crashName is a file name as a crash point names it: its digits N (the
// job's id and the day's number do not change the step).
func crashName(base string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'N'
		}
		return r
	}, base)
}

// removeTemps removes what an earlier run of this job, cut short (a
// crash, kill -9), left of its reports in dir: temporary files of its
// own reports' names. Errors are ignored: a temp left is only clutter.
func (r *Report) removeTemps(fsy fsys.FS, dir string) {
	ents, err := fsy.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := fmt.Sprintf(".dit-report_job%d_", r.Job.ID)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, tempSuffix) && e.Type().IsRegular() {
			fsy.Remove(filepath.Join(dir, n))
		}
	}
}
