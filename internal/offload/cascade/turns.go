package cascade

import "context"

// Turns is the gate of Options.ThenParallel: at most n second runs read
// their first copies at once. A second run takes a turn before it reads
// and hands it on once it has read the first copy (its read-back goes
// on). The first runs never wait for a turn.
type Turns struct {
	sem chan struct{}
}

// NewTurns is a gate of n turns (at least one).
func NewTurns(n int) *Turns { return &Turns{sem: make(chan struct{}, max(n, 1))} }

// Wait holds until a turn is free and returns the func that hands it on,
// or nil if ctx ended first. A nil gate never holds.
func (t *Turns) Wait(ctx context.Context) (release func()) {
	if t == nil {
		return func() {}
	}
	select {
	case t.sem <- struct{}{}:
		return func() { <-t.sem }
	case <-ctx.Done():
		return nil
	}
}
