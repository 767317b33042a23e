package hashing

import (
	"hash"
	"sync"
)

// Multi computes several hashes of one byte stream in one pass, each
// algorithm on its own goroutine.
//
// The caller owns the blocks: Write hands a block to every algorithm and
// returns at once; release is called exactly once, when the last algorithm
// has consumed the block, so the caller can return the buffer to its pool.
// Blocks are hashed in the order they were written. Sum waits for every
// pending block and resets the hashers for the next file. A Multi is used by
// one producer goroutine at a time; Close stops the goroutines.
type Multi struct {
	algos   []Algo
	workers []*worker
	pending sync.WaitGroup
}

type block struct {
	p    []byte
	done *blockDone
	sum  *sumCollector // set on the end-of-stream marker of Finish
	snap *Snapshot     // set on the marker of Snapshot
}

type sumCollector struct {
	mu   sync.Mutex
	n    int
	sums Sums
	out  chan Sums
}

type blockDone struct {
	mu      sync.Mutex
	n       int
	release func()
}

func (d *blockDone) finish() {
	d.mu.Lock()
	d.n--
	last := d.n == 0
	d.mu.Unlock()
	if last && d.release != nil {
		d.release()
	}
}

type worker struct {
	algo Algo
	h    hash.Hash
	in   chan block
	wg   *sync.WaitGroup
}

func (w *worker) run() {
	for b := range w.in {
		if b.snap != nil {
			b.snap.take(w.algo, w.h)
			w.wg.Done()
			continue
		}
		if b.sum != nil {
			v := Encode(w.algo, w.h.Sum(nil))
			w.h.Reset()
			b.sum.mu.Lock()
			b.sum.sums[w.algo] = v
			b.sum.n--
			if b.sum.n == 0 {
				b.sum.out <- b.sum.sums
			}
			b.sum.mu.Unlock()
			w.wg.Done()
			continue
		}
		w.h.Write(b.p)
		b.done.finish()
		w.wg.Done()
	}
}

// NewMulti starts one goroutine per algorithm. queue is how many blocks
// each algorithm may have waiting; the caller's buffer pool bounds memory.
func NewMulti(algos []Algo, queue int) *Multi {
	if queue < 1 {
		queue = 1
	}
	m := &Multi{algos: algos}
	// Slowest first: it gets its block soonest.
	for _, a := range SortBySpeed(algos) {
		w := &worker{algo: a, h: a.New(), in: make(chan block, queue), wg: &m.pending}
		m.workers = append(m.workers, w)
		go w.run()
	}
	return m
}

// Algos returns the algorithms this Multi computes.
func (m *Multi) Algos() []Algo { return m.algos }

// Write queues p for every algorithm. release (may be nil) is called once
// when all have hashed p. p must not be modified until then.
func (m *Multi) Write(p []byte, release func()) {
	d := &blockDone{n: len(m.workers), release: release}
	m.pending.Add(len(m.workers))
	for _, w := range m.workers {
		w.in <- block{p: p, done: d}
	}
}

// Finish marks the end of one stream without waiting: the returned channel
// delivers the digests of everything written since the previous Finish,
// Sum or Reset once every algorithm has caught up. The hashers restart
// from empty for the next stream, so the producer can go straight on.
func (m *Multi) Finish() <-chan Sums {
	c := &sumCollector{n: len(m.workers), out: make(chan Sums, 1)}
	m.pending.Add(len(m.workers))
	for _, w := range m.workers {
		w.in <- block{sum: c}
	}
	return c.out
}

// Sum waits for all queued blocks, returns the digests of everything
// written since the last Sum (or Reset), and resets the hashers.
func (m *Multi) Sum() Sums {
	m.pending.Wait()
	var s Sums
	for _, w := range m.workers {
		s[w.algo] = Encode(w.algo, w.h.Sum(nil))
		w.h.Reset()
	}
	return s
}

// Reset waits for queued blocks and discards their state.
func (m *Multi) Reset() {
	m.pending.Wait()
	for _, w := range m.workers {
		w.h.Reset()
	}
}

// Close waits for queued blocks and stops the goroutines.
func (m *Multi) Close() {
	m.pending.Wait()
	for _, w := range m.workers {
		close(w.in)
	}
}

// Seed waits for queued blocks, then gives the algorithms of s the
// hashers of s, in their state, for the stream that follows (a stream
// that goes on from a prefix hashed elsewhere). The Multi owns them from
// then on: Sum, Finish and Reset reset them for the next stream.
func (m *Multi) Seed(s States) {
	m.pending.Wait()
	for _, w := range m.workers {
		if h := s[w.algo]; h != nil {
			w.h = h
		}
	}
}

// Snapshot is the saved state of every algorithm of a Multi at one point
// of a stream (Marshal), for a mid-file resume.
type Snapshot struct {
	mu     sync.Mutex
	n      int
	states map[Algo][]byte
	err    error
	done   chan struct{}
}

func (s *Snapshot) take(a Algo, h hash.Hash) {
	b, err := Marshal(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.err == nil {
		s.err = err
	}
	s.states[a] = b
	s.n--
	if s.n == 0 {
		close(s.done)
	}
}

// Wait returns the saved states once every algorithm has reached the
// point (an error if one cannot save its state).
func (s *Snapshot) Wait() (map[Algo][]byte, error) {
	<-s.done
	return s.states, s.err
}

// Snapshot marks the current point of the stream without waiting: each
// algorithm saves its state there when it has hashed everything written
// before, and the stream goes on.
func (m *Multi) Snapshot() *Snapshot {
	s := &Snapshot{n: len(m.workers), states: map[Algo][]byte{}, done: make(chan struct{})}
	if s.n == 0 {
		close(s.done)
		return s
	}
	m.pending.Add(len(m.workers))
	for _, w := range m.workers {
		w.in <- block{snap: s}
	}
	return s
}
