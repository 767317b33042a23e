package offload

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/zeebo/xxh3"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// Mid-file resume, the destination side: a kept temp's prefix is read
// back once from its medium, to prove it against its checkpoint; that
// read is also the prefix's read-back (its verification hashers' states
// are kept with the copy), so the copy's verification reads only the rest.

// resumePoint is where one copy of a file goes on from in a mid-file
// resume, and the digest the card's prefix must have there.
type resumePoint struct {
	at     int64
	digest string
	// proof: the copy's prefix as read back to prove it (nil: its
	// verification reads it whole).
	proof *proofRead
}

// proofRead is what the read of a kept prefix leaves for its copy's
// verification: the temp's identity as read, and the verification
// algorithms' hashers over its first at bytes, as read back from the
// medium.
type proofRead struct {
	at     int64
	info   fs.FileInfo
	states hashing.States
}

// provenPoint reads a kept temp (copy di's) back from its medium, up to
// its last checkpoint, and returns the last checkpoint whose digest its
// bytes still have (a byte changed after the earlier checkpoint leaves
// that one), with the read's verification hashers at that point. The
// bytes read count as the copy's read-back (destination di's verify
// progress): they are, when the copy goes on from the point.
func (c *cardRun) provenPoint(ctx context.Context, di int, q *catalog.Partial) resumePoint {
	var best resumePoint
	f, err := c.j.opts.FS.OpenNoCache(q.Temp)
	if err != nil {
		return best
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return best
	}
	h := xxh3.New()
	var vs hashing.States // nil: nothing verified (VerifyNone)
	if c.j.opts.Verify != VerifyNone {
		vs = hashing.NewStates(c.j.valgos)
	}
	b := fsys.Block(c.j.opts.BlockSize)
	var done int64
	for _, off := range []int64{q.PrevOffset, q.Offset} {
		if off <= done || q.At(off) == "" {
			continue
		}
		for done < off {
			if ctx.Err() != nil {
				return resumePoint{}
			}
			want := min(int64(len(b)), off-done)
			if lim := c.j.opts.Limiter; lim != nil {
				if err := lim.WaitVerify(ctx, c.rec.Seq, c.dests[di].rec.Seq, int(want)); err != nil {
					return resumePoint{}
				}
			}
			k, err := io.ReadFull(f, b[:want])
			h.Write(b[:k])
			vs.Write(b[:k])
			done += int64(k)
			c.destVerif[di].Add(int64(k))
			c.bytesVerif.Add(int64(k))
			if err != nil {
				return best
			}
		}
		if d := fmt.Sprintf("%016x", h.Sum64()); d == q.At(off) {
			best = resumePoint{at: off, digest: d}
			if vs != nil {
				// The states go on hashing to the next checkpoint: the
				// proof keeps its own (none if they cannot be cloned).
				p := &proofRead{at: off, info: info, states: vs}
				if off != q.Offset {
					p.states = vs.Clone()
				}
				if p.states != nil {
					best.proof = p
				}
			}
		}
	}
	return best
}

// proofOf is the proven prefix read back of copy di that its
// verification goes on from (nil: it reads the copy whole).
func (t *fileTask) proofOf(di int) *proofRead {
	if t.proofs == nil || t.proofs[di] == nil || t.fromOf(di) != t.proofs[di].at {
		return nil
	}
	return t.proofs[di]
}

// readBack reads copy v back from its medium and returns its digests and
// length. A copy that went on from a kept prefix read back at resume
// (proofOf) is read from that point on only, its hashers going on from
// the prefix's; the digests are then those of one read-back of the whole
// copy. That holds only for the very file read then: a copy that is
// another file now (replaced, written again from the start) is read
// whole, as is one whose medium cannot be read from the middle.
func (c *cardRun) readBack(ctx context.Context, v vtask, bufs [][]byte, mh *hashing.Multi,
	wait func(int) error, progress func(int)) (hashing.Sums, int64, error) {
	fsy := c.j.opts.FS
	var p *proofRead
	if v.di >= 0 {
		if p = v.task.proofOf(v.di); p != nil {
			v.task.proofs[v.di] = nil // used once
		}
	}
	if p == nil || !p.states.Covers(c.j.valgos) || p.at%4096 != 0 {
		return hashFile(ctx, fsy, v.path, v.task.size, bufs, mh, wait, progress)
	}
	f, err := fsy.OpenNoCache(v.path)
	if err != nil {
		return hashing.Sums{}, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	sk, seeks := f.(io.Seeker)
	if err != nil || !seeks || !os.SameFile(info, p.info) {
		return hashFile(ctx, fsy, v.path, v.task.size, bufs, mh, wait, progress)
	}
	if _, err := sk.Seek(p.at, io.SeekStart); err != nil {
		return hashing.Sums{}, 0, err
	}
	mh.Seed(p.states)
	return hashOpen(ctx, f, p.at, v.task.size, bufs, mh, wait, progress)
}
