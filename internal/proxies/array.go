package proxies

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// staged is a proxy made for a dit array destination: the array is the
// job's own while it runs, so the proxy waits (in a folder destination,
// or in a staging folder of the temp folder) and is written into the
// array through the job's filesystem when the job ends ([Maker.WriteArrays]).
type staged struct {
	row   catalog.Proxy // Dest is the array's blade
	from  string        // the proxy made
	dir   string        // the card's proxies folder in the array (slash path)
	name  string        // base+ext
	sums  hashing.Sums
	stage string // the staging folder to remove once written ("" none)
}

// stage keeps proxy made (of row's clip) for the blades, to be written
// into their arrays when the job ends.
func (m *Maker) stage(row catalog.Proxy, made *Made, out, name, stageDir string, blades []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range blades {
		r := row
		r.Dest = b
		m.staged = append(m.staged, staged{row: r, from: made.Path, dir: path.Join(Dir, out), name: name, sums: made.Sums, stage: stageDir})
	}
}

// WriteArrays writes the proxies made for dit array destinations of job
// jobID into their arrays through the job's filesystem fsy (which has
// them open), each under a temporary name then the first free name
// (an array's rename never replaces), hashed as it is written and
// checked against the proxy made; and records them. Call it when the
// job ends, after [Maker.Run].
func (m *Maker) WriteArrays(ctx context.Context, jobID int64, fsy fsys.FS) error {
	m.mu.Lock()
	var todo, rest []staged
	for _, s := range m.staged {
		if s.row.JobID == jobID {
			todo = append(todo, s)
		} else {
			rest = append(rest, s)
		}
	}
	m.staged = rest
	m.mu.Unlock()
	var errs []error
	stages := map[string]bool{}
	for _, s := range todo {
		if s.stage != "" {
			stages[s.stage] = true
		}
		p := s.row
		p.MadeAt = time.Now()
		rel, size, sums, err := writeInto(ctx, fsy, s, m.algos(&card{jobID: jobID}))
		if err != nil {
			p.State, p.Error = catalog.ProxyFailed, err.Error()
			if ctx.Err() != nil {
				p.State = catalog.ProxyCancelled
			}
		} else {
			p.Path, p.Size, p.Sums, p.State = rel, size, sums, catalog.ProxyMade
		}
		errs = append(errs, m.add(p))
	}
	for d := range stages {
		os.RemoveAll(d)
	}
	return errors.Join(errs...)
}

// writeInto copies s into its array and returns its path there
// (relative to the blade), size and hashes.
func writeInto(ctx context.Context, fsy fsys.FS, s staged, algos []hashing.Algo) (string, int64, hashing.Sums, error) {
	var sums hashing.Sums
	if err := ctx.Err(); err != nil {
		return "", 0, sums, err
	}
	where := offload.DisplayPath(s.row.Dest, s.dir)
	dir := filepath.Join(s.row.Dest, filepath.FromSlash(s.dir))
	if err := fsy.MkdirAll(dir, 0o755); err != nil {
		return "", 0, sums, fmt.Errorf("making the proxies folder %s: %w", where, err)
	}
	in, err := os.Open(s.from)
	if err != nil {
		return "", 0, sums, err
	}
	defer in.Close()
	ext := filepath.Ext(s.name)
	w, err := fsy.CreateTemp(dir, ".dit-proxy-*"+ext)
	if err != nil {
		return "", 0, sums, fmt.Errorf("writing a proxy into %s: %w", where, err)
	}
	hs := make([]hash.Hash, len(algos))
	ws := []io.Writer{w}
	for i, a := range algos {
		hs[i] = a.New()
		ws = append(ws, hs[i])
	}
	n, err := io.Copy(io.MultiWriter(ws...), in)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsy.Remove(w.Name())
		return "", 0, sums, fmt.Errorf("writing a proxy into %s: %w", where, err)
	}
	for i, a := range algos {
		sums.Set(a, hashing.Encode(a, hs[i].Sum(nil)))
	}
	if _, bad, ok := sums.Compare(s.sums); !ok {
		fsy.Remove(w.Name())
		return "", 0, sums, fmt.Errorf("the proxy written into %s differs from %s (%s)", where, s.from, bad)
	}
	base := strings.TrimSuffix(s.name, ext)
	for i := 1; i < 10000; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		target := filepath.Join(dir, name)
		if _, err := fsy.Lstat(target); err == nil {
			continue
		}
		err := fsy.Rename(w.Name(), target)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			fsy.Remove(w.Name())
			return "", 0, sums, fmt.Errorf("naming a proxy in %s: %w", where, err)
		}
		fsy.SyncDir(dir)
		return path.Join(s.dir, name), n, sums, nil
	}
	fsy.Remove(w.Name())
	return "", 0, sums, fmt.Errorf("naming a proxy %s in %s: 10000 names taken", s.name, where)
}
