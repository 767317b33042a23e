package offload

import (
	"context"
	"fmt"
	"sync"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
	"golang.org/x/time/rate"
)

// resume finds, for each active copy of a checkpointed file, the offset
// it goes on from: the last checkpoint its kept temp still proves (read
// back from its destination, all copies at once, with the digest recorded
// when the card was read), 0 for a copy with none. nil: no copy goes on
// from a checkpoint.
func (c *cardRun) resume(ctx context.Context, t *fileTask) []resumePoint {
	fp := t.plan
	pts := make([]resumePoint, len(fp.dests))
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
		if pt.at > 0 {
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
func (c *cardRun) restart(ctx context.Context, t *fileTask, p *pool, mh *hashing.Multi, writers []chan wmsg, lim *rate.Limiter, at int64) *fileTask {
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
	j.emit(Event{Type: EvWarning, Card: c.label(), Path: fp.ent.Rel, Message: msg})
	j.addWarning(c.rec.Label + ": " + msg)
	for di := range fp.dests {
		fp.dests[di].partial = nil
	}
	return c.copyFile(ctx, fp, p, mh, writers, lim)
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
	sums, n, err := hashFile(ctx, j.opts.FS, src, size, bufs, mh, wait, func(int) {})
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
