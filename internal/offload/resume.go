package offload

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
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
	state  string // the card side recorded there ([catalog.CardState] text, "" none)
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
			best = resumePoint{at: off, digest: d, state: q.StateAt(off)}
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
	var p *proofRead
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
	if p != nil && p.states.Covers(c.j.valgos) && p.at%4096 == 0 {
		if sk, seeks := f.(io.Seeker); statErr == nil && seeks && os.SameFile(info, p.info) {
			if _, err := sk.Seek(p.at, io.SeekStart); err != nil {
				return hashing.Sums{}, 0, "", err
			}
			mh.Seed(p.states)
			from = p.at
		}
	}
	sums, n, err := dest.HashOpen(ctx, f, from, v.task.size, bufs, mh, wait, progress)
	return sums, n, ident(), err
}

// Mid-file resume, the card side. While a big file is copied, each
// checkpoint records the xxh3-64 of the card's prefix, and (when every
// hash algorithm of the job can save its state) the hashers' saved
// states there and the xxh3-64 of the card's bytes since the checkpoint
// before (the span). A resume whose copies all go on from a checkpoint
// with such a state reads the card's file from the lowest one's span on:
// the span is read again and must hash as recorded (the card's file is
// still the one the kept parts came from, as far as that sample shows),
// the hashers are restored to the checkpoint's states and fed the rest,
// and each copy gets the bytes from its own point on. Otherwise (a copy
// from the start, an algorithm without a saved state, a row of an older
// dit) the card's file is read from the start and its whole prefix must
// hash as each checkpoint recorded.

// ckState is the card side of one checkpoint, shared by the writers that
// record it: the hashers' saved states (a Multi snapshot, nil: the job's
// hashers cannot save theirs) and the span's digest.
type ckState struct {
	once     sync.Once
	snap     *hashing.Snapshot
	spanFrom int64
	span     string
	text     string
}

// encoded is the state in the catalog's text form ("" none).
func (s *ckState) encoded() string {
	if s == nil || s.snap == nil {
		return ""
	}
	s.once.Do(func() {
		states, err := s.snap.Wait()
		if err != nil {
			return
		}
		s.text = (&catalog.CardState{SpanFrom: s.spanFrom, Span: s.span, Hashers: states}).Encode()
	})
	return s.text
}

// cardCheck is a check of the card's bytes at a copy's resume point.
type cardCheck struct {
	at     int64
	digest string // xxh3-64 of the card's first at bytes (read from the start)
	// read from the middle: xxh3-64 of the bytes from spanFrom to at.
	spanFrom int64
	span     string
	h        *xxh3.Hasher
}

// cardSide follows the card's side of a checkpointed file's copy.
type cardSide struct {
	every    int64
	full     *xxh3.Hasher // the card's prefix; nil: read from the middle (no new checkpoints then)
	span     *xxh3.Hasher // the bytes since the last checkpoint
	spanFrom int64
	nextCk   int64
	states   bool        // checkpoints save the hashers' states
	checks   []cardCheck // ascending
	start    int64       // the card's file is read from here
	feed     int64       // the hashers and the writers get the bytes from here
}

// newCardSide starts the card side of checkpointed file t (f is the
// card's file, opened, at its start; mh the card's hashers): the resume
// points of its copies (resume), and where the card is read from.
func (c *cardRun) newCardSide(ctx context.Context, t *fileTask, f fsys.File, mh *hashing.Multi) (*cardSide, error) {
	every := c.j.opts.CheckpointEvery
	cs := &cardSide{every: every, full: xxh3.New(), span: xxh3.New(), nextCk: every, states: hashing.AllMarshalable(c.j.algos)}
	pts := c.resume(ctx, t)
	if pts == nil {
		return cs, nil
	}
	nd := len(t.active)
	t.from, t.proofs = make([]int64, nd), make([]*proofRead, nd)
	for di, pt := range pts {
		t.from[di], t.proofs[di] = pt.at, pt.proof
		t.resumeAt = max(t.resumeAt, pt.at)
		if pt.at > 0 {
			cs.checks = append(cs.checks, cardCheck{at: pt.at, digest: pt.digest})
		}
	}
	sort.Slice(cs.checks, func(a, b int) bool { return cs.checks[a].at < cs.checks[b].at })
	if cs.states {
		return cs, c.fromTheMiddle(t, pts, f, mh, cs)
	}
	return cs, nil
}

// fromTheMiddle sets cs to read the card's file from the middle when
// every active copy goes on from a checkpoint whose card side is
// recorded (and f can seek): the hashers restored to the lowest one's
// states, the card read from its span on. An error: f could not be put
// back to its start after a failed seek.
func (c *cardRun) fromTheMiddle(t *fileTask, pts []resumePoint, f fsys.File, mh *hashing.Multi, cs *cardSide) error {
	if c.j.opts.RereadCard {
		return nil // the whole prefix read again, and checked
	}
	var low *resumePoint
	for di := range pts {
		if !t.active[di] {
			continue
		}
		if pts[di].at == 0 {
			return nil // a copy from the start: the card is read from the start
		}
		if low == nil || pts[di].at < low.at {
			low = &pts[di]
		}
	}
	sk, ok := f.(io.Seeker)
	if low == nil || !ok {
		return nil
	}
	ls, err := catalog.ParseCardState(low.state)
	if err != nil || ls == nil || ls.SpanFrom >= low.at {
		return nil
	}
	states := hashing.States{}
	for _, a := range c.j.algos {
		if states[a], err = hashing.Unmarshal(a, ls.Hashers[a]); err != nil {
			return nil
		}
	}
	var checks []cardCheck
	for _, ck := range cs.checks {
		for _, pt := range pts {
			if pt.at != ck.at || pt.state == "" {
				continue
			}
			if s, err := catalog.ParseCardState(pt.state); err == nil && s != nil && s.SpanFrom < ck.at && s.SpanFrom >= ls.SpanFrom {
				checks = append(checks, cardCheck{at: ck.at, spanFrom: s.SpanFrom, span: s.Span, h: xxh3.New()})
				break
			}
		}
	}
	if _, err := sk.Seek(ls.SpanFrom, io.SeekStart); err != nil {
		// Where the file is now is not known: read from the start.
		_, err = sk.Seek(0, io.SeekStart)
		return err
	}
	mh.Seed(states)
	cs.full, cs.checks, cs.start, cs.feed = nil, checks, ls.SpanFrom, low.at
	c.notReread.Add(ls.SpanFrom)
	c.notRereadFiles.Add(1)
	return nil
}

// see takes the card's bytes b at offset off and returns the resume
// point whose check they fail (0: none failed).
func (cs *cardSide) see(off int64, b []byte) int64 {
	end := off + int64(len(b))
	if cs.full != nil {
		pos := 0
		for len(cs.checks) > 0 && cs.checks[0].at <= end {
			cut := int(cs.checks[0].at - off)
			cs.full.Write(b[pos:cut])
			pos = cut
			if fmt.Sprintf("%016x", cs.full.Sum64()) != cs.checks[0].digest {
				return cs.checks[0].at
			}
			cs.checks = cs.checks[1:]
		}
		cs.full.Write(b[pos:])
		cs.span.Write(b)
		return 0
	}
	for i := range cs.checks { // spans may overlap
		ck := &cs.checks[i]
		if lo, hi := max(ck.spanFrom, off), min(ck.at, end); lo < hi {
			ck.h.Write(b[lo-off : hi-off])
		}
	}
	for len(cs.checks) > 0 && cs.checks[0].at <= end {
		if fmt.Sprintf("%016x", cs.checks[0].h.Sum64()) != cs.checks[0].span {
			return cs.checks[0].at
		}
		cs.checks = cs.checks[1:]
	}
	return 0
}

// checkpoint returns the checkpoint due once the card's first total
// bytes (of size) are read and handed on, if one is: its digest and card
// side (mh's states at that point in the stream).
func (cs *cardSide) checkpoint(total, size int64, mh *hashing.Multi) (string, *ckState, bool) {
	if cs == nil || cs.full == nil || total < cs.nextCk || total >= size {
		return "", nil, false
	}
	st := &ckState{spanFrom: cs.spanFrom, span: fmt.Sprintf("%016x", cs.span.Sum64())}
	if cs.states {
		st.snap = mh.Snapshot()
	}
	cs.span.Reset()
	cs.spanFrom = total
	cs.nextCk = (total/cs.every + 1) * cs.every
	return fmt.Sprintf("%016x", cs.full.Sum64()), st, true
}
