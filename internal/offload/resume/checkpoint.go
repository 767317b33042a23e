package resume

import (
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

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

// A Checkpoint is the card side of one checkpoint, shared by the writers
// that record it: the hashers' saved states (a Multi snapshot, nil: the
// job's hashers cannot save theirs) and the span's digest.
type Checkpoint struct {
	once     sync.Once
	snap     *hashing.Snapshot
	spanFrom int64
	span     string
	text     string
}

// Encoded is the checkpoint in the catalog's text form
// ([catalog.CardState]; "" none: no checkpoint, or hashers that cannot
// save their states). The states are waited for once.
func (s *Checkpoint) Encoded() string {
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

// check is a check of the card's bytes at a copy's resume point.
type check struct {
	at     int64
	digest string // xxh3-64 of the card's first at bytes (read from the start)
	// read from the middle: xxh3-64 of the bytes from spanFrom to at.
	spanFrom int64
	span     string
	h        *xxh3.Hasher
}

// A CardSide follows the card's side of a checkpointed file's copy: the
// checkpoints due as it is read (Checkpoint), and, in a resume, the
// checks of the card's bytes against the copies' resume points (See).
type CardSide struct {
	every    int64
	full     *xxh3.Hasher // the card's prefix; nil: read from the middle (no new checkpoints then)
	span     *xxh3.Hasher // the bytes since the last checkpoint
	spanFrom int64
	nextCk   int64
	states   bool    // checkpoints save the hashers' states
	checks   []check // ascending
	start    int64   // the card's file is read from here
	feed     int64   // the hashers and the writers get the bytes from here
}

// NewCardSide starts the card side of a file checkpointed every every
// bytes; states: the job's hashers can save their states (every one of
// its algorithms: hashing.AllMarshalable), which the checkpoints then
// record. The card is read from its start.
func NewCardSide(every int64, states bool) *CardSide {
	return &CardSide{every: every, full: xxh3.New(), span: xxh3.New(), nextCk: every, states: states}
}

// Start is where the card's file is read from; Feed where the hashers
// and the writers get its bytes from (Start, or a resume point after it:
// the span between is read only to be checked).
func (cs *CardSide) Start() int64 { return cs.start }

// Feed: see Start.
func (cs *CardSide) Feed() int64 { return cs.feed }

// Resume sets the checks of a resume: the card's prefix must hash, at
// each copy's resume point (pts, one a copy; 0: the copy starts over),
// as the checkpoint recorded there.
func (cs *CardSide) Resume(pts []Point) {
	for _, pt := range pts {
		if pt.At > 0 {
			cs.checks = append(cs.checks, check{at: pt.At, digest: pt.Digest})
		}
	}
	sort.Slice(cs.checks, func(a, b int) bool { return cs.checks[a].at < cs.checks[b].at })
}

// FromTheMiddle sets cs to read the card's file from the middle when
// every active copy goes on from a checkpoint whose card side is
// recorded (and f can seek): mh's hashers restored to the lowest one's
// states (their algorithms: algos), the card read from its span on
// (Start), each later point checked by its own span. It reports whether
// it did; an error: f could not be put back to its start after a failed
// seek. Call it after Resume, with the same points.
func (cs *CardSide) FromTheMiddle(pts []Point, active []bool, f fsys.File, algos []hashing.Algo, mh *hashing.Multi) (bool, error) {
	if !cs.states {
		return false, nil
	}
	var low *Point
	for di := range pts {
		if !active[di] {
			continue
		}
		if pts[di].At == 0 {
			return false, nil // a copy from the start: the card is read from the start
		}
		if low == nil || pts[di].At < low.At {
			low = &pts[di]
		}
	}
	sk, ok := f.(io.Seeker)
	if low == nil || !ok {
		return false, nil
	}
	ls, err := catalog.ParseCardState(low.State)
	if err != nil || ls == nil || ls.SpanFrom >= low.At {
		return false, nil
	}
	states := hashing.States{}
	for _, a := range algos {
		if states[a], err = hashing.Unmarshal(a, ls.Hashers[a]); err != nil {
			return false, nil
		}
	}
	var checks []check
	for _, ck := range cs.checks {
		for _, pt := range pts {
			if pt.At != ck.at || pt.State == "" {
				continue
			}
			if s, err := catalog.ParseCardState(pt.State); err == nil && s != nil && s.SpanFrom < ck.at && s.SpanFrom >= ls.SpanFrom {
				checks = append(checks, check{at: ck.at, spanFrom: s.SpanFrom, span: s.Span, h: xxh3.New()})
				break
			}
		}
	}
	if _, err := sk.Seek(ls.SpanFrom, io.SeekStart); err != nil {
		// Where the file is now is not known: read from the start.
		_, err = sk.Seek(0, io.SeekStart)
		return false, err
	}
	mh.Seed(states)
	cs.full, cs.checks, cs.start, cs.feed = nil, checks, ls.SpanFrom, low.At
	return true, nil
}

// See takes the card's bytes b at offset off and returns the resume
// point whose check they fail (0: none failed): the card's file is then
// not the one the kept parts came from.
func (cs *CardSide) See(off int64, b []byte) int64 {
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

// Checkpoint returns the checkpoint due once the card's first total
// bytes (of size) are read and handed on, if one is: the xxh3-64 of the
// card's prefix and its card side (mh's states at that point in the
// stream). A card read from the middle makes none.
func (cs *CardSide) Checkpoint(total, size int64, mh *hashing.Multi) (string, *Checkpoint, bool) {
	if cs == nil || cs.full == nil || total < cs.nextCk || total >= size {
		return "", nil, false
	}
	st := &Checkpoint{spanFrom: cs.spanFrom, span: fmt.Sprintf("%016x", cs.span.Sum64())}
	if cs.states {
		st.snap = mh.Snapshot()
	}
	cs.span.Reset()
	cs.spanFrom = total
	cs.nextCk = (total/cs.every + 1) * cs.every
	return fmt.Sprintf("%016x", cs.full.Sum64()), st, true
}
