package offload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/fsys"
)

// wstate is one file being written (or compared) on one destination.
type wstate struct {
	t        *fileTask
	dp       *destPlan
	tmp      fsys.WFile
	existing fsys.File
	differs  bool
	cmpBuf   []byte
	err      error
	n        int64
}

// writer is the goroutine of one destination of one card: it receives the
// blocks of each file in order and makes each copy durable under its real
// name, or leaves nothing under that name.
func (c *cardRun) writer(di int, in <-chan wmsg) {
	var st *wstate
	var cmpBuf []byte
	for m := range in {
		switch m.kind {
		case wBegin:
			st = &wstate{t: m.task, dp: &m.task.plan.dests[di], cmpBuf: cmpBuf}
			c.begin(di, st)
		case wData:
			if st.err == nil {
				c.write(di, st, m.buf.b[:m.n])
			}
			m.buf.release()
		case wEnd:
			m.task.results[di] = c.end(di, st, m.commit)
			cmpBuf = st.cmpBuf
			st = nil
			m.task.wg.Done()
		}
	}
}

func (c *cardRun) begin(di int, st *wstate) {
	fsy := c.j.opts.FS
	dp := st.dp
	switch dp.mode {
	case modeCompare:
		fi, err := fsy.Lstat(dp.target)
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			dp.mode = modeWrite // gone since the plan: write it
			break
		}
		if err != nil {
			st.err = err
			return
		}
		if !fi.Mode().IsRegular() {
			st.err = fmt.Errorf("%s exists and is not a regular file: move it away", dp.target)
			return
		}
		if fi.Size() != st.t.size {
			st.differs = true
		} else {
			f, err := fsy.Open(dp.target)
			if err != nil {
				st.err = err
				return
			}
			st.existing = f
		}
		if !dp.replaceOwn && c.j.opts.OnConflict != ConflictRename {
			return // compare only
		}
	}
	tmp, err := fsy.CreateTemp(filepath.Dir(dp.target), "."+filepath.Base(dp.target)+".*"+TempSuffix)
	if err != nil {
		st.err = err
		return
	}
	st.tmp = tmp
}

func (c *cardRun) write(di int, st *wstate, b []byte) {
	if st.existing != nil && !st.differs {
		if cap(st.cmpBuf) < len(b) {
			st.cmpBuf = make([]byte, len(b))
		}
		cb := st.cmpBuf[:len(b)]
		// Comparing with a file already there reads the destination:
		// paced like a read-back.
		if lim := c.j.opts.Limiter; lim != nil {
			if err := lim.WaitVerify(c.ctx, c.rec.Seq, di, len(b)); err != nil {
				st.err = err
				return
			}
		}
		if _, err := io.ReadFull(st.existing, cb); err != nil || !bytes.Equal(cb, b) {
			st.differs = true
		}
	}
	if st.tmp != nil {
		if lim := c.j.opts.Limiter; lim != nil {
			if err := lim.WaitWrite(c.ctx, c.rec.Seq, di, len(b)); err != nil {
				st.err = err
				return
			}
		}
		n, err := st.tmp.Write(b)
		if err == nil && n < len(b) {
			err = io.ErrShortWrite
		}
		if err != nil {
			st.err = err
			return
		}
		c.destWritten[di].Add(int64(n))
	}
	st.n += int64(len(b))
}

func (c *cardRun) end(di int, st *wstate, commit bool) destResult {
	fsy := c.j.opts.FS
	dp := st.dp
	res := destResult{rel: dp.rel}
	if st.existing != nil {
		// Anything left in the existing file means it is longer: different.
		if !st.differs {
			var one [1]byte
			if n, _ := st.existing.Read(one[:]); n > 0 {
				st.differs = true
			}
		}
		st.existing.Close()
	}
	fail := func(err error) destResult {
		if st.tmp != nil {
			st.tmp.Close()
			fsy.Remove(st.tmp.Name())
		}
		res.state, res.err = StateFailed, c.writeError(dp.target, err)
		return res
	}
	if !commit {
		res.state = StateFailed
		if st.tmp != nil {
			st.tmp.Close()
			fsy.Remove(st.tmp.Name())
		}
		return res
	}
	if st.err != nil {
		return fail(st.err)
	}
	if dp.mode == modeCompare {
		if !st.differs {
			if st.tmp != nil {
				st.tmp.Close()
				fsy.Remove(st.tmp.Name())
			}
			res.state = StatePresent
			res.written = dp.prev != nil && dp.prev.Written
			return res
		}
		switch {
		case dp.replaceOwn:
			// Our own copy from an interrupted run that differs: replace it.
		case c.j.opts.OnConflict == ConflictSkip:
			res.state = StateSkipped
			res.err = fmt.Sprintf("a different file already exists at %s; left alone (--on-conflict skip)", dp.target)
			return res
		case c.j.opts.OnConflict == ConflictRename:
		default:
			res.state = StateFailed
			res.err = fmt.Sprintf("a different file already exists at %s; dit never overwrites: move it away, or use --on-conflict skip|rename", dp.target)
			return res
		}
	}
	tmp := st.tmp
	if err := fsy.Chtimes(tmp.Name(), st.t.mtime, st.t.mtime); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		st.tmp = nil
		fsy.Remove(tmp.Name())
		return fail(err)
	}
	target, rel := dp.target, dp.rel
	if dp.mode == modeCompare && dp.replaceOwn {
		if err := fsy.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fsy.Remove(tmp.Name())
			return fail(err)
		}
	} else if dp.mode == modeCompare {
		target, rel = freeName(fsy, dp.target, dp.rel)
	}
	err := fsys.RenameNoReplace(fsy, tmp.Name(), target)
	for i := 0; err != nil && errors.Is(err, fs.ErrExist) && c.j.opts.OnConflict == ConflictRename && i < 100; i++ {
		target, rel = freeName(fsy, dp.target, dp.rel)
		err = fsys.RenameNoReplace(fsy, tmp.Name(), target)
	}
	if err != nil {
		fsy.Remove(tmp.Name())
		st.tmp = nil
		if errors.Is(err, fs.ErrExist) {
			return destResult{rel: dp.rel, state: StateFailed, err: fmt.Sprintf("a file appeared at %s during the copy; dit never overwrites: move it away and resume", target)}
		}
		return fail(err)
	}
	if err := fsy.SyncDir(filepath.Dir(target)); err != nil {
		res.state, res.err, res.rel, res.written = StateFailed, c.writeError(target, err), rel, true
		return res
	}
	res.state, res.rel, res.written = StateCopied, rel, true
	return res
}

// freeName returns "name (2).ext", "name (3).ext", ... whichever is free.
func freeName(fsy fsys.FS, target, rel string) (string, string) {
	dir, base := filepath.Split(target)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 2; ; i++ {
		name := fmt.Sprintf("%s (%d)%s", stem, i, ext)
		if _, err := fsy.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(dir, name), path.Join(path.Dir(rel), name)
		}
	}
}

func (c *cardRun) writeError(target string, err error) string {
	switch {
	case fsys.IsNoSpace(err):
		return fmt.Sprintf("destination full while writing %s: %v (nothing was left under that name)", target, err)
	case errors.Is(err, io.ErrShortWrite):
		return fmt.Sprintf("short write to %s: the destination accepted fewer bytes than sent (nothing was left under that name)", target)
	}
	return fmt.Sprintf("cannot write %s: %v", target, err)
}
