package inorder

// Pool runs works on up to workers goroutines a group, and what follows
// each (then), and what is queued with Later, on the caller's goroutine
// in the order handed in. It is used from one goroutine.
type Pool struct {
	free []chan int // a group's free slots
	seq  []*step
	most int  // steps held at most
	in   bool // running a step: what it queues runs at once, in its place
	high int  // most steps held at once
	wake chan struct{}

	// OnFull, if set (tests), is called each time Go waits because the
	// pool holds its most steps.
	OnFull func()
	// OnWake, if set, is called on the caller's goroutine, while it
	// waits in the pool, after Wake was called (once for any number of
	// Wakes since the last call).
	OnWake func()
}

// step is one thing to run in order: then, once done is closed (a
// work's end), or at once (done nil).
type step struct {
	done chan struct{}
	then func() error
}

// New is a pool of groups groups of workers workers each (at least 1),
// holding at most maxQueued steps (at least 1).
func New(groups, workers, maxQueued int) *Pool {
	p := &Pool{most: max(maxQueued, 1), wake: make(chan struct{}, 1)}
	for range max(groups, 1) {
		c := make(chan int, max(workers, 1))
		for i := range max(workers, 1) {
			c <- i
		}
		p.free = append(p.free, c)
	}
	return p
}

// Limit lets group run at most n works at once (at least 1, at most
// the pool's workers): a spinning disk's group reads one file at a time.
// Call it before the first Go.
func (p *Pool) Limit(group, n int) {
	for len(p.free[group]) > max(n, 1) {
		<-p.free[group]
	}
}

// Free is how many of group's slots are free now.
func (p *Pool) Free(group int) int { return len(p.free[group]) }

// Go runs work on a goroutine of its own once one of group's slots is
// free (slot: which, 0 to workers-1; the slot is the work's until it
// returns), and queues then to run after it, in order, on the caller's
// goroutine. While it waits, the steps that are done run. The error is
// then's of a step run meanwhile (or a Later's): the pool then waits for
// the works under way and drops what is queued.
func (p *Pool) Go(group int, work func(slot int), then func() error) error {
	for len(p.seq) >= p.most && !p.in {
		if p.OnFull != nil {
			p.OnFull()
		}
		if d := p.firstDone(); d != nil {
			p.await(d)
		}
		if err := p.run(false); err != nil {
			return err
		}
	}
	slot := -1
	for slot < 0 {
		select {
		case slot = <-p.free[group]:
		case <-p.firstDone():
			if err := p.run(false); err != nil {
				return err
			}
		case <-p.wake:
			p.woken()
		}
	}
	s := &step{done: make(chan struct{}), then: then}
	p.push(s)
	go func() {
		work(slot)
		p.free[group] <- slot
		close(s.done)
	}()
	return p.run(false)
}

// Later runs f now when nothing is queued (or from a step, in its
// place), returning its error, else after what is queued.
func (p *Pool) Later(f func() error) error {
	if len(p.seq) == 0 || p.in {
		return f()
	}
	p.push(&step{then: f})
	return nil
}

// Finish runs every step, waiting for the works.
func (p *Pool) Finish() error { return p.run(true) }

// Stop waits for the works under way and drops every step queued,
// running none (a caller that stops on an error of its own).
func (p *Pool) Stop() {
	for _, q := range p.seq {
		if q.done != nil {
			<-q.done
		}
	}
	p.seq = nil
}

// High is the most steps the pool held at once.
func (p *Pool) High() int { return p.high }

// Wake asks for OnWake on the caller's goroutine (from any goroutine;
// it never blocks).
func (p *Pool) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *Pool) woken() {
	if p.OnWake != nil {
		p.OnWake()
	}
}

// await waits for d, running OnWake as asked meanwhile.
func (p *Pool) await(d <-chan struct{}) {
	for {
		select {
		case <-d:
			return
		case <-p.wake:
			p.woken()
		}
	}
}

// firstDone is the done channel of the first step (nil, which never
// fires: none, or one to run at once).
func (p *Pool) firstDone() <-chan struct{} {
	if len(p.seq) == 0 {
		return nil
	}
	return p.seq[0].done
}

func (p *Pool) push(s *step) {
	p.seq = append(p.seq, s)
	p.high = max(p.high, len(p.seq))
}

// run runs the steps in order while they are done (wait: waiting for
// each, until none is left). On an error it waits for the works under
// way, so no goroutine reads on after, and drops what is queued.
func (p *Pool) run(wait bool) error {
	for len(p.seq) > 0 {
		s := p.seq[0]
		if s.done != nil {
			if wait {
				p.await(s.done)
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
		err := s.then()
		p.in = false
		if err != nil {
			p.Stop()
			return err
		}
	}
	return nil
}
