package ui

import (
	"context"
	"sync"

	"github.com/dit-org/dit/internal/offload"
)

// pauser is the job's offload.Limiter: while paused, every block read from
// a card, written to a destination or read back for verification waits;
// otherwise it defers to the inner limiter (the planner's scheduler), if
// any. Waits end with the job's context, so cancelling a paused job works.
type pauser struct {
	inner offload.Limiter

	mu     sync.Mutex
	paused bool
	resume chan struct{} // closed on Resume
	// held counts, per card, its reads waiting on the pause: a card whose
	// read is held copies nothing more until Resume (the engine waits
	// before each block it reads).
	held map[int]int
}

var _ offload.Limiter = (*pauser)(nil)

func newPauser(inner offload.Limiter) *pauser {
	return &pauser{inner: inner, held: map[int]int{}}
}

// Pause makes reads and writes wait until Resume.
func (p *pauser) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused {
		p.paused = true
		p.resume = make(chan struct{})
	}
}

// Resume lets reads and writes go on.
func (p *pauser) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		p.paused = false
		close(p.resume)
	}
}

// Paused reports whether the job is paused.
func (p *pauser) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused
}

// ReadHeld reports whether a read of card is waiting on the pause.
func (p *pauser) ReadHeld(card int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[card] > 0
}

// wait holds the caller while paused; readCard is the card of a read
// (-1: a write or a read-back).
func (p *pauser) wait(ctx context.Context, readCard int) error {
	p.mu.Lock()
	paused, ch := p.paused, p.resume
	if paused && readCard >= 0 {
		p.held[readCard]++
		defer func() {
			p.mu.Lock()
			p.held[readCard]--
			p.mu.Unlock()
		}()
	}
	p.mu.Unlock()
	if !paused {
		return ctx.Err()
	}
	select {
	case <-ch:
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitRead implements offload.Limiter.
func (p *pauser) WaitRead(ctx context.Context, card int, n int) error {
	if err := p.wait(ctx, card); err != nil {
		return err
	}
	if p.inner != nil {
		return p.inner.WaitRead(ctx, card, n)
	}
	return nil
}

// WaitWrite implements offload.Limiter.
func (p *pauser) WaitWrite(ctx context.Context, card, dest int, n int) error {
	if err := p.wait(ctx, -1); err != nil {
		return err
	}
	if p.inner != nil {
		return p.inner.WaitWrite(ctx, card, dest, n)
	}
	return nil
}

// WaitVerify implements offload.Limiter.
func (p *pauser) WaitVerify(ctx context.Context, card, dest int, n int) error {
	if err := p.wait(ctx, -1); err != nil {
		return err
	}
	if p.inner != nil {
		return p.inner.WaitVerify(ctx, card, dest, n)
	}
	return nil
}
