package offload

import (
	"context"
	"sync/atomic"
)

// buffer is one block of a card's pool. refs counts the consumers (the
// hashers and each destination writer) still holding it.
type buffer struct {
	b    []byte
	refs atomic.Int32
	pool *pool
}

func (b *buffer) release() {
	if b.refs.Add(-1) == 0 {
		b.pool.put(b)
	}
}

// pool is a fixed set of large buffers: memory per card is bounded by
// size*count whatever the file and card sizes. Buffers are allocated on
// first use. Files of smallBlock or less are read into a set of their
// own, as many of smallBlock each (a card of frames and sidecars of a
// few kB would otherwise hold a whole block each: 32 MiB for a few
// hundred kB read ahead).
type pool struct {
	free  chan *buffer
	made  atomic.Int32
	count int32
	size  int
	small *pool
}

// smallBlock is the size of a small file's buffer.
const smallBlock = 16 << 10

func newPool(count, size int) *pool {
	p := &pool{free: make(chan *buffer, count), count: int32(count), size: size}
	if size > smallBlock {
		p.small = &pool{free: make(chan *buffer, count), count: int32(count), size: smallBlock}
	}
	return p
}

// get is a buffer for the next block of a file of which left bytes are
// left to read (as the scan found it: a file grown since goes on in
// more blocks); a buffer goes back to its own pool (buffer.pool).
func (p *pool) get(ctx context.Context, left int64) (*buffer, error) {
	if p.small != nil && left <= smallBlock {
		p = p.small
	}
	select {
	case b := <-p.free:
		return b, nil
	default:
	}
	if p.made.Add(1) <= p.count {
		return &buffer{b: make([]byte, p.size), pool: p}, nil
	}
	p.made.Add(-1)
	select {
	case b := <-p.free:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pool) put(b *buffer) { p.free <- b }
