package ascmhl

import (
	"context"

	"github.com/dit-org/dit/internal/hashing"
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
// caller's goroutine in the order it was handed in: the findings come
// in the order a file-by-file check gives them.
type hashPool struct {
	ctx  context.Context
	st   Store
	bufs chan []byte
	seq  []*step
	in   bool // running a step: what it queues runs at once, in its place
	high int  // most steps held at once (tests)
}

// step is one thing to run in order: then, once done is closed (a
// file's hash, with its result), or at once (done nil).
type step struct {
	done chan struct{}
	sums map[hashing.Algo]string
	n    int64
	err  error
	then func(sums map[hashing.Algo]string, n int64, err error) error
}

func newHashPool(ctx context.Context, st Store) *hashPool {
	p := &hashPool{ctx: ctx, st: st, bufs: make(chan []byte, HashWorkers)}
	for range HashWorkers {
		p.bufs <- make([]byte, 1<<20)
	}
	return p
}

// hash reads name with algos on a goroutine of the pool (waiting for a
// free buffer) and queues then for its result. The error is then's of a
// step run meanwhile.
func (p *hashPool) hash(name string, algos []hashing.Algo, then func(map[hashing.Algo]string, int64, error) error) error {
	for len(p.seq) >= MaxQueued && !p.in {
		if testPoolFull != nil {
			testPoolFull()
		}
		if d := p.firstDone(); d != never {
			<-d
		}
		if err := p.run(false); err != nil {
			return err
		}
	}
	var buf []byte
	for buf == nil {
		select {
		case buf = <-p.bufs:
		case <-p.firstDone():
			if err := p.run(false); err != nil {
				return err
			}
		}
	}
	s := &step{done: make(chan struct{}), then: then}
	p.push(s)
	go func() {
		s.sums, s.n, s.err = hashFile(p.ctx, p.st, name, algos, buf)
		p.bufs <- buf
		close(s.done)
	}()
	return p.run(false)
}

var never = make(chan struct{})

// testPoolFull, when set (tests), is called each time hash waits because
// the pool holds MaxQueued steps.
var testPoolFull func()

// firstDone is the done channel of the first step (never: none).
func (p *hashPool) firstDone() <-chan struct{} {
	if len(p.seq) == 0 || p.seq[0].done == nil {
		return never
	}
	return p.seq[0].done
}

// later runs f now when nothing is queued (or from a step, in its
// place), else after what is.
func (p *hashPool) later(f func()) {
	if len(p.seq) == 0 || p.in {
		f()
		return
	}
	p.push(&step{then: func(map[hashing.Algo]string, int64, error) error { f(); return nil }})
}

func (p *hashPool) push(s *step) {
	p.seq = append(p.seq, s)
	p.high = max(p.high, len(p.seq))
}

// run runs the steps in order while they are done (wait: waiting for
// each, until none is left). On an error it waits for the hashes under
// way, so no goroutine reads on after.
func (p *hashPool) run(wait bool) error {
	for len(p.seq) > 0 {
		s := p.seq[0]
		if s.done != nil {
			if wait {
				<-s.done
			} else {
				select {
				case <-s.done:
				default:
					return nil
				}
			}
		}
		p.seq[0] = nil
		p.seq = p.seq[1:]
		p.in = true
		err := s.then(s.sums, s.n, s.err)
		p.in = false
		if err != nil {
			for _, q := range p.seq {
				if q.done != nil {
					<-q.done
				}
			}
			p.seq = nil
			return err
		}
	}
	return nil
}

// finish runs every step, waiting for the hashes.
func (p *hashPool) finish() error { return p.run(true) }
