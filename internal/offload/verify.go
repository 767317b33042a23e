package offload

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

func (c *cardRun) verifyStart() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verifyAt.IsZero() {
		return c.j.opts.Now()
	}
	return c.verifyAt
}

// verifier reads copies back from the medium and compares them with the
// source hashes.
func (c *cardRun) verifier(ctx context.Context, in <-chan vtask) {
	j := c.j
	var bufs [][]byte
	mh := hashing.NewMulti(j.valgos, 2)
	defer mh.Close()
	for v := range in {
		if ctx.Err() != nil {
			continue // drain: interrupted files stay unverified
		}
		if bufs == nil {
			bufs = [][]byte{fsys.Block(j.opts.BlockSize), fsys.Block(j.opts.BlockSize)}
		}
		var counter *atomic.Int64
		if v.di >= 0 {
			counter = &c.destVerif[v.di]
		}
		var wait func(int) error
		if lim := j.opts.Limiter; lim != nil {
			di := v.di // -1: the card re-read
			if di >= 0 {
				di = c.dests[di].rec.Seq
			}
			wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, di, n) }
		}
		if v.di >= 0 {
			c.vcurrent.Store(v.task.rec.Rel)
			c.destCur[v.di].Store(v.task.rec.Rel)
		}
		busy := c.busyClock(v.di)
		got, n, ident, err := c.readBack(ctx, v, bufs, mh, wait, func(n int) {
			if counter != nil {
				counter.Add(int64(n))
				c.bytesVerif.Add(int64(n))
				busy.tick()
			}
		})
		if v.di >= 0 {
			c.destCur[v.di].Store("")
			busy.done()
		}
		want := v.task.rec.Sums
		var state, reason string
		switch {
		case errors.Is(err, context.Canceled):
			continue
		case err != nil:
			state, reason = StateFailed, "read-back failed: "+err.Error()
		case n != v.task.size:
			state, reason = StateFailed, fmt.Sprintf("read-back size %d differs from the source's %d", n, v.task.size)
		default:
			if algos, bad, ok := got.Compare(want); !ok {
				if len(algos) == 0 {
					state, reason = StateFailed, "no hash to compare"
				} else {
					state, reason = StateFailed, fmt.Sprintf("%s mismatch: source %s, read back %s", bad, want.Get(bad), got.Get(bad))
				}
			} else {
				state = StateVerified
			}
		}
		if v.di < 0 {
			if state != StateVerified {
				v.task.srcErr = "source re-read: " + reason + " (the card or reader returns unstable data)"
				v.task.unstable = true
			}
		} else {
			r := v.task.results[v.di]
			cp := &catalog.Copy{DestID: c.dests[v.di].rec.ID, Path: r.rel, State: state, Written: r.written,
				VerifyAlgos: hashing.Names(j.valgos), Error: reason}
			if state == StateVerified {
				cp.VerifiedAt, cp.Identity = j.opts.Now(), ident
				c.removeAside(v.di, r.rel)
			} else if !r.written {
				cp.Error = "verify: " + reason + " (copy at " + v.path + ")"
			} else {
				// Ours: it never keeps the card's file name.
				cp.Error = "verify: " + reason + c.asideNote(v.task, v.path)
			}
			v.task.results[v.di].state, v.task.results[v.di].err = state, cp.Error
			j.cat.PutCopy(c.rec.ID, v.task.rec.Rel, cp)
		}
		v.task.vmu.Lock()
		v.task.vpending--
		last := v.task.vpending == 0
		v.task.vmu.Unlock()
		if last {
			c.finalize(v.task)
		}
	}
}
