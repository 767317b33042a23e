package offload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/resume"
	"github.com/dit-org/dit/internal/units"
)

// copyFile reads one file of the card once, hands its blocks to the
// hashers and to the writers of the copies that need it, and returns its
// task for the finisher (the writers are told to begin, and to end it).
func (c *cardRun) copyFile(ctx context.Context, fp *filePlan, p *pool, hr *hashRing, writers []chan wmsg, lim *rate.Limiter) *fileTask {
	j := c.j
	t, nActive, sealed := c.newFileTask(fp)
	if nActive == 0 && !sealed {
		c.nothingToRead(t)
		return t
	}
	// The file's own hashers: they go on hashing it while the next
	// files are read (ahead.go).
	mh := hr.take()
	c.touched.Store(true)
	if msg := c.cardGone(); msg != "" {
		t.readErr = errors.New(msg)
		return t
	}
	c.current.Store(fp.ent.Rel)
	src := filepath.Join(c.scan.Root, filepath.FromSlash(fp.ent.Rel))
	f, err := j.opts.FS.Open(src)
	if err != nil {
		t.readErr = c.readFailure(src, err)
		return t
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		t.readErr = c.readFailure(src, err)
		return t
	}
	if !before.Mode().IsRegular() {
		t.readErr = fmt.Errorf("%s is no longer a regular file", src)
		return t
	}
	t.size, t.mtime = before.Size(), before.ModTime()
	var probe hashing.Sums
	if fp.probe {
		if probe, err = c.probeRead(ctx, src, t.size); err != nil {
			t.readErr = c.readFailure(src, err)
			return t
		}
	}
	// Mid-file resume: big files are checkpointed as they are written; an
	// interrupted one goes on, copy by copy, from the last checkpoint its
	// kept temp still proves, the card read from the start or from the
	// middle, and checked against the checkpoints (resume.go; package resume: CardSide);
	// a card whose file is not the one a kept part came from has the file
	// copied again whole (restart).
	var cs *resume.CardSide
	if every := j.opts.CheckpointEvery; every > 0 && t.size >= 2*every && !fp.probe {
		if cs, err = c.newCardSide(ctx, t, f, mh); err != nil {
			t.readErr = c.readFailure(src, err)
			return t
		}
	}
	t.wg.Add(nActive)
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wBegin, task: t}
		}
	}
	total, at, rerr := c.readBlocks(ctx, t, f, src, cs, p, mh, writers, lim)
	if at > 0 {
		return c.restart(ctx, t, p, hr, mh, writers, lim, at)
	}
	if rerr == nil {
		rerr = c.checkUnchanged(src, f, before, total)
	}
	if rerr == nil {
		c.noteRead(src, nil)
		c.lc.filesCopied.Add(1)
	}
	c.endRead(t, src, probe, rerr, cs != nil, mh, writers)
	return t
}

// newFileTask starts fp's task: the result of each copy that is settled
// without a read (done, refused, its destination failed, a sealed chain),
// the others active; nActive counts them, sealed says a sealed chain is
// among the settled (its card file is still read, for its hashes).
func (c *cardRun) newFileTask(fp *filePlan) (t *fileTask, nActive int, sealed bool) {
	nd := len(c.dests)
	t = &fileTask{plan: fp, active: make([]bool, nd), results: make([]destResult, nd), started: c.j.opts.Now(),
		size: fp.ent.Size, mtime: fp.ent.Mtime}
	for di := range fp.dests {
		dp := &fp.dests[di]
		t.results[di].rel = dp.rel
		switch {
		case fp.prevErr != nil:
			// What the plan rests on (a copy vouched for, the hashes
			// kept) cannot be read: no copy of the file counts as
			// verified by this run, and a resume plans it again.
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, err: "not checked: " + fp.prevErr.Error() + ": resume the job once the catalog reads"}
		case dp.mode == modeDone:
			t.results[di] = destResult{state: StateVerified, rel: dp.rel, written: dp.prev != nil && dp.prev.Written}
		case dp.mode == modeRefuse:
			// Not written (not ours to replace) from now on: the copy is
			// footage verified from the card as it was, and no later run
			// of this job may overwrite it with what the card holds now.
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, written: false,
				err: fmt.Sprintf(ChangedSinceVerified+" (size %d -> %d, modified %s -> %s); the verified copy at %s is kept: offload the card as a new job",
					fp.prev.Size, fp.ent.Size, fp.prev.Mtime.UTC().Format(time.RFC3339), fp.ent.Mtime.UTC().Format(time.RFC3339), dp.target())}
		case c.destErr[di] != nil:
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, err: c.destErr[di].Error()}
		case dp.mode == modeSealed:
			// Its copy is the card's chain extended by this job's seal
			// (checked when planned): verified as such; the card's file
			// is still read below, for its hashes.
			t.results[di] = destResult{state: StateVerified, rel: dp.rel, written: dp.prev != nil && dp.prev.Written}
			sealed = true
		default:
			t.active[di] = true
			nActive++
		}
	}
	return t, nActive, sealed
}

// nothingToRead ends the task of a file no copy needs read: every copy
// kept (the recorded source hashes and stat stand), or the first error
// among its copies as its read error.
func (c *cardRun) nothingToRead(t *fileTask) {
	fp := t.plan
	kept := fp.prev != nil
	for di, r := range t.results {
		kept = kept && (r.state == StateVerified || fp.dests[di].mode == modeRefuse)
	}
	if kept {
		// Nothing to read: keep the recorded source hashes and stat.
		t.sums = closedSums(fp.prev.Sums)
		t.size, t.mtime = fp.prev.Size, fp.prev.Mtime
		return
	}
	for _, r := range t.results {
		if r.err != "" {
			t.readErr = errors.New(r.err)
			break
		}
	}
}

// readBlocks reads the card's file f (src) from where the hashers are
// (0, or a resume's card side start) to its end, handing each block on
// (sendBlock). It returns the bytes read, the read's error, and
// restartAt > 0 when the card's file is not the one a kept part came
// from (the file is then copied again whole: restart).
func (c *cardRun) readBlocks(ctx context.Context, t *fileTask, f fsys.File, src string, cs *resume.CardSide, p *pool, mh *hashing.Multi,
	writers []chan wmsg, lim *rate.Limiter) (total, restartAt int64, rerr error) {
	j := c.j
	if cs != nil {
		total = cs.Start()
	}
	for {
		buf, err := p.get(ctx, t.size-total)
		if err != nil {
			return total, 0, err
		}
		if j.opts.Limiter != nil {
			// Wait before reading, so a pause or a budget holds the card's
			// reads at once (the block about to be read is what is paced).
			want := int(min(int64(len(buf.b)), max(t.size-total, 1)))
			if werr := j.opts.Limiter.WaitRead(ctx, c.rec.Seq, want); werr != nil {
				buf.pool.put(buf)
				return total, 0, werr
			}
		}
		n, err := io.ReadFull(f, buf.b)
		if n > 0 {
			// Read from the card: counted now, even if an interruption
			// stops it before it is written (it was moved all the same).
			c.bytesCopied.Add(int64(n))
			if lim != nil {
				if werr := lim.WaitN(ctx, n); werr != nil {
					buf.refs.Store(1)
					buf.release()
					return total, 0, werr
				}
			}
			if cs != nil {
				if at := cs.See(total, buf.b[:n]); at > 0 {
					buf.pool.put(buf)
					return total, at, nil
				}
			}
			total = c.sendBlock(t, buf, n, total, cs, mh, writers)
		} else {
			buf.pool.put(buf)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return total, 0, nil
		}
		if err != nil {
			return total, 0, c.readFailure(src, err)
		}
		if ctx.Err() != nil {
			return total, 0, ctx.Err()
		}
	}
}

// sendBlock hands the block buf.b[:n], read at offset total, to the
// hashers (from a resume's feed point on) and to each active writer whose
// copy needs it (from the copy's resume point on), then tells every copy
// to checkpoint when one is due. It returns the offset after the block.
func (c *cardRun) sendBlock(t *fileTask, buf *buffer, n int, total int64, cs *resume.CardSide, mh *hashing.Multi, writers []chan wmsg) int64 {
	lo := 0 // the hashers and writers get buf.b[lo:n]
	if cs != nil {
		lo = int(min(max(cs.Feed()-total, 0), int64(n)))
	}
	end := total + int64(n)
	sent := 0
	for di := range writers {
		if t.active[di] && (t.from == nil || end > t.from[di]) {
			sent++
		}
	}
	if lo == n && sent == 0 {
		buf.pool.put(buf) // the span a resume reads again, before its point
	} else {
		buf.refs.Store(int32(1 + sent))
		mh.Write(buf.b[lo:n], buf.release)
	}
	for di, w := range writers {
		if t.active[di] && (t.from == nil || end > t.from[di]) {
			m := wmsg{kind: wData, task: t, buf: buf, n: n}
			if t.from != nil && t.from[di] > total {
				m.from = int(t.from[di] - total) // goes on from inside this block
			}
			w <- m
		}
	}
	total = end
	if d, st, ok := cs.Checkpoint(total, t.size, mh); ok {
		// Every copy is made durable this far and says so.
		for di, w := range writers {
			if t.active[di] {
				w <- wmsg{kind: wCheckpoint, task: t, offset: total, digest: d, ck: st}
			}
		}
	}
	return total
}

// checkUnchanged is the error of a read of src (total bytes) when the
// card's file changed while it was read (before: its stat when opened),
// or was replaced or removed.
func (c *cardRun) checkUnchanged(src string, f fsys.File, before fs.FileInfo, total int64) error {
	after, err := f.Stat()
	switch {
	case err != nil:
		return c.readFailure(src, err)
	case after.Size() != before.Size() || total != before.Size():
		return fmt.Errorf("%s changed while it was read (size %d before, %d after, %d bytes read): is the card still being written?", src, before.Size(), after.Size(), total)
	case !after.ModTime().Equal(before.ModTime()):
		return fmt.Errorf("%s changed while it was read (modified at %s, before that %s): is the card still being written?", src, after.ModTime().Format(time.RFC3339Nano), before.ModTime().Format(time.RFC3339Nano))
	}
	if li, err := c.j.opts.FS.Lstat(src); err != nil || !sameSourceFile(li, after) {
		if msg := c.cardGone(); msg != "" {
			return errors.New(msg) // the whole card went
		}
		return fmt.Errorf("%s was replaced or removed while it was read", src)
	}
	return nil
}

// endRead ends the read of t's file: its digests (a probed file's must
// agree with the probe read's), its read error, and the end of each
// active copy (committed when the read succeeded; the temp of an
// interrupted checkpointed copy kept for a resume).
func (c *cardRun) endRead(t *fileTask, src string, probe hashing.Sums, rerr error, checkpointed bool, mh *hashing.Multi, writers []chan wmsg) {
	j := c.j
	sums := mh.Finish()
	if t.plan.probe && rerr == nil {
		// Nothing is replaced before the two reads agree.
		got := <-sums
		sums = closedSums(got)
		if a := hashing.Fastest(j.algos); got.Get(a) != probe.Get(a) {
			rerr = fmt.Errorf("%s read differently twice (%s %s, then %s): the card or reader returns unstable data; the earlier copies are left as they are", src, a, probe.Get(a), got.Get(a))
		}
	}
	t.readErr = rerr
	if rerr == nil {
		t.sums = sums
	}
	// An interrupted checkpointed copy keeps its temp for a resume.
	keep := checkpointed && errors.Is(rerr, context.Canceled)
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wEnd, task: t, commit: rerr == nil, keep: keep}
		}
	}
	t.copied = j.opts.Now()
}

// resume finds, for each active copy of a checkpointed file, the offset
// it goes on from: the last checkpoint its kept temp still proves (read
// back from its destination, all copies at once, with the digest recorded
// when the card was read), 0 for a copy with none. nil: no copy goes on
// from a checkpoint.
func (c *cardRun) resume(ctx context.Context, t *fileTask) []resume.Point {
	fp := t.plan
	pts := make([]resume.Point, len(fp.dests))
	var wg sync.WaitGroup
	for di := range fp.dests {
		q := fp.dests[di].partial
		if !t.active[di] || q == nil || q.Size != t.size || !q.Mtime.Equal(t.mtime) { // as the card's file is now
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pts[di] = c.provenPoint(ctx, di, q)
		}()
	}
	wg.Wait()
	for _, pt := range pts {
		if pt.At > 0 {
			return pts
		}
	}
	return nil
}

// restart copies a file again whole after a mid-file resume found, at
// offset at, that the card's file is not the one a kept part came from
// (same size and time, other bytes): this run's writes of it are undone
// (the kept temps go), a warning says why, and the file is read again
// from the start, every copy written from that one read.
func (c *cardRun) restart(ctx context.Context, t *fileTask, p *pool, hr *hashRing, mh *hashing.Multi, writers []chan wmsg, lim *rate.Limiter, at int64) *fileTask {
	j := c.j
	fp := t.plan
	for di, w := range writers {
		if t.active[di] {
			w <- wmsg{kind: wEnd, task: t, commit: false}
		}
	}
	t.wg.Wait()
	mh.Reset()
	msg := fmt.Sprintf("%s changed on the card since the interrupted copy (its first %s read now differ from what was copied then, under the same size and time): copied again whole from the card as it is now",
		fp.ent.Rel, units.FormatBytes(at))
	j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Path: fp.ent.Rel, Message: msg})
	j.addWarning(c.rec.Label + ": " + msg)
	for di := range fp.dests {
		fp.dests[di].partial = nil
	}
	return c.copyFile(ctx, fp, p, hr, writers, lim)
}

// probeRead hashes the card's file src (the fastest hash) with a read of
// its own, paced as a re-read of the card.
func (c *cardRun) probeRead(ctx context.Context, src string, size int64) (hashing.Sums, error) {
	j := c.j
	mh := hashing.NewMulti([]hashing.Algo{hashing.Fastest(j.algos)}, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(j.opts.BlockSize), fsys.Block(j.opts.BlockSize)}
	var wait func(int) error
	if lim := j.opts.Limiter; lim != nil {
		wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, -1, n) }
	}
	sums, n, err := dest.HashFile(ctx, j.opts.FS, src, size, bufs, mh, wait, func(int) {})
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes read, %d expected: is the card still being written?", n, size)
	}
	return sums, err
}

func closedSums(s hashing.Sums) <-chan hashing.Sums {
	ch := make(chan hashing.Sums, 1)
	ch <- s
	return ch
}
