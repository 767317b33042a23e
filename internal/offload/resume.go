package offload

import (
	"context"
	"io"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/resume"
)

// Mid-file resume: the rules (a checkpoint's card state, the card side
// of a checkpointed file, a kept temp proved against its checkpoints)
// are package resume's; this file applies them to a card run's file: the
// kept temps opened and proved, each copy's point, the card side set up,
// and a copy's read-back going on from its proof.

// provenPoint reads a kept temp (copy di's) back from its medium, up to
// its last checkpoint, and returns the last checkpoint whose digest its
// bytes still have (resume.Prove). The bytes read count as the copy's
// read-back (destination di's verify progress): they are, when the copy
// goes on from the point.
func (c *cardRun) provenPoint(ctx context.Context, di int, q *catalog.Partial) resume.Point {
	f, err := c.j.opts.FS.OpenNoCache(q.Temp)
	if err != nil {
		return resume.Point{}
	}
	defer f.Close()
	r := resume.Reading{Block: fsys.Block(c.j.opts.BlockSize), Read: func(k int) {
		c.destVerif[di].Add(int64(k))
		c.bytesVerif.Add(int64(k))
	}}
	if c.j.opts.Verify != VerifyNone {
		r.Verify = c.j.valgos
	}
	if lim := c.j.opts.Limiter; lim != nil {
		r.Wait = func(n int) error { return lim.WaitVerify(ctx, c.rec.Seq, c.dests[di].rec.Seq, n) }
	}
	return resume.Prove(ctx, f, q, r)
}

// proofOf is the proven prefix read back of copy di that its
// verification goes on from (nil: it reads the copy whole).
func (t *fileTask) proofOf(di int) *resume.Proof {
	if t.proofs == nil || t.proofs[di] == nil || t.fromOf(di) != t.proofs[di].At {
		return nil
	}
	return t.proofs[di]
}

// readBack reads copy v back from its medium and returns its digests,
// length and identity (fsys.Identity when it was opened; "~" and the
// identity at the end when the file changed while it was read: a resume
// reads such a copy again). A copy that went on from a kept prefix read
// back at resume (proofOf) is read from that point on only, its hashers
// going on from the prefix's; the digests are then those of one
// read-back of the whole copy. That holds only for the very file read
// then: a copy that is another file now (replaced, written again from
// the start) is read whole, as is one whose medium cannot be read from
// the middle.
func (c *cardRun) readBack(ctx context.Context, v vtask, bufs [][]byte, mh *hashing.Multi,
	wait func(int) error, progress func(int)) (hashing.Sums, int64, string, error) {
	fsy := c.j.opts.FS
	var p *resume.Proof
	if v.di >= 0 {
		if p = v.task.proofOf(v.di); p != nil {
			v.task.proofs[v.di] = nil // used once
		}
	}
	f, err := fsy.OpenNoCache(v.path)
	if err != nil {
		return hashing.Sums{}, 0, "", err
	}
	defer f.Close()
	info, statErr := f.Stat()
	first := ""
	if statErr == nil {
		first = fsys.Identity(info)
	}
	ident := func() string {
		if first == "" {
			return ""
		}
		if fi, err := f.Stat(); err == nil && fsys.Identity(fi) != first {
			return "~" + fsys.Identity(fi)
		}
		return first
	}
	var from int64
	if sk, seeks := f.(io.Seeker); p != nil && statErr == nil && seeks && p.Resumes(info, c.j.valgos) {
		if _, err := sk.Seek(p.At, io.SeekStart); err != nil {
			return hashing.Sums{}, 0, "", err
		}
		mh.Seed(p.States)
		from = p.At
	}
	sums, n, err := dest.HashOpen(ctx, f, from, v.task.size, bufs, mh, wait, progress)
	return sums, n, ident(), err
}

// newCardSide starts the card side of checkpointed file t (f is the
// card's file, opened, at its start; mh the card's hashers): the resume
// points of its copies (resume), and where the card is read from: from
// the middle when every active copy goes on from a recorded card state
// (resume.CardSide.FromTheMiddle), unless the card is read again whole
// (RereadCard: the whole prefix read again, and checked).
func (c *cardRun) newCardSide(ctx context.Context, t *fileTask, f fsys.File, mh *hashing.Multi) (*resume.CardSide, error) {
	cs := resume.NewCardSide(c.j.opts.CheckpointEvery, hashing.AllMarshalable(c.j.algos))
	pts := c.resume(ctx, t)
	if pts == nil {
		return cs, nil
	}
	nd := len(t.active)
	t.from, t.proofs = make([]int64, nd), make([]*resume.Proof, nd)
	for di, pt := range pts {
		t.from[di], t.proofs[di] = pt.At, pt.Proof
		t.resumeAt = max(t.resumeAt, pt.At)
	}
	cs.Resume(pts)
	if c.j.opts.RereadCard {
		return cs, nil
	}
	moved, err := cs.FromTheMiddle(pts, t.active, f, c.j.algos, mh)
	if moved {
		c.notReread.Add(cs.Start())
		c.notRereadFiles.Add(1)
	}
	return cs, err
}
