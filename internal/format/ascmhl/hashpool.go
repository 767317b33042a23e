package ascmhl

import (
	"context"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/hashing/inorder"
)

// HashWorkers is how many files Verify and Create hash at once, each
// read into a buffer of its own (HashWorkers x 1 MiB): enough streams
// for the process's MD5 lanes (internal/hashing/lanes hashes three or
// more streams at once in one core's vector lanes), few enough that a
// spinning disk is not read in many places at once.
const HashWorkers = 4

// MaxQueued is how many steps (files hashed or being hashed, and what is
// queued between them) a pool holds at once: a large file at the front
// keeps the small ones after it waiting for their turn, so without a
// cap they would pile up, each with its hashes, for as long as it
// reads. With it the files held at once are a fixed number, not a
// share of the card.
const MaxQueued = 256

// hashPool hashes files on up to HashWorkers goroutines and runs what
// follows each hash, and anything queued behind it (later), on the
// caller's goroutine in the order it was handed in (internal/hashing/
// inorder): the findings come in the order a file-by-file check gives
// them.
type hashPool struct {
	*inorder.Pool
	ctx  context.Context
	st   Store
	bufs [][]byte // a slot's
}

func newHashPool(ctx context.Context, st Store) *hashPool {
	p := &hashPool{Pool: inorder.New(1, HashWorkers, MaxQueued), ctx: ctx, st: st}
	p.OnFull = func() {
		if testPoolFull != nil {
			testPoolFull()
		}
	}
	for range HashWorkers {
		p.bufs = append(p.bufs, make([]byte, 1<<20))
	}
	return p
}

// hash reads name with algos on a goroutine of the pool (waiting for a
// free one) and queues then for its result. The error is then's of a
// step run meanwhile.
func (p *hashPool) hash(name string, algos []hashing.Algo, then func(map[hashing.Algo]string, int64, error) error) error {
	var sums map[hashing.Algo]string
	var n int64
	var err error
	return p.Go(0, func(slot int) {
		sums, n, err = hashFile(p.ctx, p.st, name, algos, p.bufs[slot])
	}, func() error { return then(sums, n, err) })
}

// testPoolFull, when set (tests), is called each time hash waits because
// the pool holds MaxQueued steps.
var testPoolFull func()

// later runs f now when nothing is queued (or from a step, in its
// place), else after what is.
func (p *hashPool) later(f func()) {
	p.Later(func() error { f(); return nil })
}

// finish runs every step, waiting for the hashes.
func (p *hashPool) finish() error { return p.Finish() }
