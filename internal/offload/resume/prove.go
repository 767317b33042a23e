package resume

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

// A Point is where one copy of a file goes on from in a mid-file resume,
// and the digest the card's prefix must have there.
type Point struct {
	At     int64
	Digest string
	State  string // the card side recorded there ([catalog.CardState] text, "" none)
	// Proof: the copy's prefix as read back to prove it (nil: its
	// verification reads it whole).
	Proof *Proof
}

// A Proof is what the read of a kept prefix leaves for its copy's
// verification: the temp's identity as read, and the verification
// algorithms' hashers over its first At bytes, as read back from the
// medium.
type Proof struct {
	At     int64
	Info   fs.FileInfo
	States hashing.States
}

// Resumes reports whether the read-back of a copy (its algorithms:
// algos) whose file is info now can go on from proof p rather than read
// the copy whole: the very file read then (not replaced, nor written
// again), its hashers saved for every algorithm, and a point a read can
// seek to on any medium (a multiple of 4096).
func (p *Proof) Resumes(info fs.FileInfo, algos []hashing.Algo) bool {
	return p != nil && p.States.Covers(algos) && p.At%4096 == 0 && os.SameFile(info, p.Info)
}

// A Reading is how a kept temp is read back to prove it.
type Reading struct {
	// Verify are the copy's verification algorithms, whose hashers the
	// proof keeps (nil: the copy is not verified).
	Verify []hashing.Algo
	// Block is the read's buffer (none: one of 1 MiB).
	Block []byte
	// Wait, if set, is called before each read of n bytes (the
	// limiter); an error ends the read, proving nothing.
	Wait func(n int) error
	// Read, if set, counts the n bytes read (the copy's read-back).
	Read func(n int)
}

// Prove reads kept temp f (checkpoint q's) back, up to its last
// checkpoint, and returns the last checkpoint whose digest its bytes
// still have (a byte changed after the earlier checkpoint leaves that
// one; none: the zero Point), with the read's verification hashers at
// that point (Point.Proof).
func Prove(ctx context.Context, f fsys.File, q *catalog.Partial, r Reading) Point {
	var best Point
	info, err := f.Stat()
	if err != nil {
		return best
	}
	h := xxh3.New()
	var vs hashing.States // nil: nothing verified
	if r.Verify != nil {
		vs = hashing.NewStates(r.Verify)
	}
	b := r.Block
	if len(b) == 0 {
		b = make([]byte, 1<<20)
	}
	var done int64
	for _, off := range []int64{q.PrevOffset, q.Offset} {
		if off <= done || q.At(off) == "" {
			continue
		}
		for done < off {
			if ctx.Err() != nil {
				return Point{}
			}
			want := min(int64(len(b)), off-done)
			if r.Wait != nil {
				if err := r.Wait(int(want)); err != nil {
					return Point{}
				}
			}
			k, err := io.ReadFull(f, b[:want])
			h.Write(b[:k])
			vs.Write(b[:k])
			done += int64(k)
			if r.Read != nil {
				r.Read(k)
			}
			if err != nil {
				return best
			}
		}
		if d := fmt.Sprintf("%016x", h.Sum64()); d == q.At(off) {
			best = Point{At: off, Digest: d, State: q.StateAt(off)}
			if vs != nil {
				// The states go on hashing to the next checkpoint: the
				// proof keeps its own (none if they cannot be cloned).
				p := &Proof{At: off, Info: info, States: vs}
				if off != q.Offset {
					p.States = vs.Clone()
				}
				if p.States != nil {
					best.Proof = p
				}
			}
		}
	}
	return best
}
