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
// first use.
type pool struct {
	free  chan *buffer
	made  atomic.Int32
	count int32
	size  int
}

func newPool(count, size int) *pool {
	return &pool{free: make(chan *buffer, count), count: int32(count), size: size}
}

func (p *pool) get(ctx context.Context) (*buffer, error) {
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
