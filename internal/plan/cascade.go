package plan

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/dit-org/dit/internal/units"
)

// SecondRunSuffix names a card's second run in a cascade's plan.
const SecondRunSuffix = " (2nd run)"

// Cascade is the plan of a cascading copy (destinations of run 2): each
// card is read once to the run-1 destinations; when it is copied there it
// is free (it may leave the reader), and its second run copies the first
// copy, read from FirstCopy, to the run-2 destinations, at most Parallel
// cards at once, in the order the cards became free. The card is safe to
// format when its second run is copied and read back. A run ends when its
// last file (Source.LastFile) is read back from every destination of the
// run at its read rate, after the copy. Times are seconds from the start,
// played forward with the same budgets as the plan, re-planned at every
// start and end of a run (CardPlan.FreeSeconds, SafeSeconds); the next
// second run starts when one is copied (its read-back goes on). A card
// whose file count is known pays each run's destinations' per-file and
// fixed costs (Costs): its files along its bytes, its fixed costs after
// its last file is read back, before it is free (run 1: the first copies
// sealed) and safe (run 2).
type Cascade struct {
	FirstCopy string   `json:"first_copy"`
	Then      []string `json:"then"`
	Parallel  int      `json:"then_parallel"`
	// LastFreeSeconds: every card is free; LastSafeSeconds: every card is
	// safe to format (nil: a card's size is unknown).
	LastFreeSeconds *float64 `json:"last_card_free_s"`
	LastSafeSeconds *float64 `json:"last_safe_to_format_s"`
	// While first and second runs go together, FirstCopy writes
	// OverlapWrite bytes/s of first copies and reads OverlapRead (second
	// runs and read-back), of WriteCapacity and ReadCapacity.
	OverlapWrite  float64 `json:"overlap_write_bytes_per_s"`
	OverlapRead   float64 `json:"overlap_read_bytes_per_s"`
	WriteCapacity float64 `json:"write_capacity_bytes_per_s"`
	ReadCapacity  float64 `json:"read_capacity_bytes_per_s"`
	// Bottleneck says in words what holds the cascade back, e.g.
	// "destination s1 limits the second run: the last card is safe to
	// format 41 min after it is free".
	Bottleneck string `json:"bottleneck"`
}

// cascade plays a cascade forward and fills the cards' free and safe
// times and res.Cascade.
func cascade(t *Topology, o Options, res *Result) {
	first := -1
	var then []string
	for i, d := range t.Destinations {
		switch {
		case d.Run == 2:
			then = append(then, d.Name)
		case first < 0:
			first = i
		}
	}
	if len(then) == 0 || first < 0 {
		return
	}
	fd := t.Dest(first)
	c := &Cascade{FirstCopy: fd.Name, Then: then, Parallel: max(o.ThenParallel, 1)}
	res.Cascade = c
	for i := range t.Sources {
		if t.Sources[i].Size <= 0 {
			c.Bottleneck = "a card's size is unknown: no times"
			return
		}
	}
	sim := newCascadeSim(t, o, res, fd)
	if why := sim.run(); why != "" {
		c.Bottleneck = why
		return
	}
	sim.conclude(then)
}

// cascadeSim is a cascade played forward: per card, the bytes left of
// each run, when it became free and safe; the cards free and waiting for
// a second run; the cards whose first run is copied and whose last file
// is being read back (pendingFree: when they will be free).
type cascadeSim struct {
	t   *Topology
	o   Options
	res *Result
	c   *Cascade
	fd  Destination // the first copy's destination
	n   int

	left1, left2           []work
	done1, done2, started2 []bool
	free, safe             []float64
	queue                  []int
	pendingFree            map[int]float64
	now                    float64
	lastLimit              string // what last limited a second run
	overlapSeen            bool
}

// cascadeStream is one stream of a step: card i's first or second run.
type cascadeStream struct {
	i      int
	second bool
}

func newCascadeSim(t *Topology, o Options, res *Result, fd Destination) *cascadeSim {
	n := len(t.Sources)
	s := &cascadeSim{t: t, o: o, res: res, c: res.Cascade, fd: fd, n: n,
		left1: make([]work, n), left2: make([]work, n),
		done1: make([]bool, n), done2: make([]bool, n), started2: make([]bool, n),
		free: make([]float64, n), safe: make([]float64, n), pendingFree: map[int]float64{}}
	c1, c2 := cardCosts(t, o, 1), cardCosts(t, o, 2)
	w1, w2 := runCapacity(t, 1), runCapacity(t, 2)
	for i, src := range t.Sources {
		s.left1[i] = work{bytes: float64(src.Size), over: overhead(src, c1, res.Cards[i].Rate, w1)}
		second := src
		second.Copying = false
		// The second run's rate is its destinations' (a shuttle, the
		// uplink) as a rule: its files' costs add to its bytes.
		s.left2[i] = work{bytes: float64(src.Size), over: overhead(second, c2, w2, w2)}
	}
	return s
}

// run plays the cascade step by step, re-planned at every start and end
// of a run. It returns why there are no times, or "".
func (s *cascadeSim) run() string {
	for step := 0; step < 8*s.n+8; step++ {
		s.releaseFree()
		s.startSecondRuns()
		sub, idx := s.streams()
		if len(idx) == 0 {
			if len(s.pendingFree) == 0 {
				break
			}
			next := math.Inf(1)
			for _, at := range s.pendingFree {
				next = min(next, at)
			}
			s.now = next
			continue
		}
		cons, err := build(sub, s.o, len(idx))
		if err != nil {
			return err.Error()
		}
		rates, limits := fill(cons, len(idx))
		s.noteRates(idx, cons, rates, limits)
		dt := math.Inf(1)
		for k, st := range idx {
			w := s.left1[st.i]
			if st.second {
				w = s.left2[st.i]
			}
			dt = min(dt, w.left(rates[k]))
		}
		for _, at := range s.pendingFree {
			dt = min(dt, at-s.now)
		}
		if math.IsInf(dt, 1) {
			return "a rate is unknown on the way of a run: no times"
		}
		s.advance(idx, rates, dt)
	}
	return ""
}

// after is the time from the last byte of card i's run to its end: its
// last file read back on the run's destinations (the slowest reading it
// at its read rate; what the read-back fell behind per file) and its
// fixed costs (sealing, cloud listings, the history's upload).
func (s *cascadeSim) after(i int, run int) float64 {
	src := s.t.Sources[i]
	return tail(s.t, s.o, src, run, fullRead) + fixedAfter(s.t, s.o, src, run)
}

// releaseFree queues the cards that are free by now for their second
// run, in the order they became free.
func (s *cascadeSim) releaseFree() {
	for i, at := range s.pendingFree {
		if at <= s.now+1e-9 {
			delete(s.pendingFree, i)
			s.free[i] = at
			s.queue = append(s.queue, i)
		}
	}
	if len(s.queue) > 1 {
		sortByFree(s.queue, s.free)
	}
}

// startSecondRuns starts queued second runs while fewer than Parallel go.
func (s *cascadeSim) startSecondRuns() {
	active2 := 0
	for i := range s.started2 {
		if s.started2[i] && !s.done2[i] {
			active2++
		}
	}
	for len(s.queue) > 0 && active2 < s.c.Parallel {
		s.started2[s.queue[0]] = true
		s.queue = s.queue[1:]
		active2++
	}
}

// streams is the topology of this step: the first runs still copying,
// then the second runs going, each reading the first copy.
func (s *cascadeSim) streams() (*Topology, []cascadeStream) {
	t := s.t
	sub := t.Clone()
	sub.Sources = nil
	var idx []cascadeStream
	for i := 0; i < s.n; i++ {
		if !s.done1[i] {
			sub.Sources = append(sub.Sources, t.Sources[i])
			idx = append(idx, cascadeStream{i, false})
		}
	}
	for i := 0; i < s.n; i++ {
		if s.started2[i] && !s.done2[i] {
			sub.Sources = append(sub.Sources, Source{Name: t.Sources[i].Name + SecondRunSuffix, Bus: s.fd.Bus,
				Size: t.Sources[i].Size, From: s.fd.Name})
			idx = append(idx, cascadeStream{i, true})
		}
	}
	return sub, idx
}

// noteRates records a step's rates: each card's second run's first rate
// and limit, what last limited a second run, and the first copy's load
// the first time both runs go together.
func (s *cascadeSim) noteRates(idx []cascadeStream, cons []constraint, rates []float64, limits []int) {
	firsts, seconds := false, false
	for k, st := range idx {
		if !st.second {
			firsts = true
			continue
		}
		seconds = true
		if s.res.Cards[st.i].SecondRate == 0 {
			s.res.Cards[st.i].SecondRate = rates[k]
			if limits[k] >= 0 {
				s.res.Cards[st.i].SecondLimitedBy = cons[limits[k]].id
			}
		}
		if limits[k] >= 0 {
			s.lastLimit = cons[limits[k]].id
		}
	}
	if !firsts || !seconds || s.overlapSeen {
		return
	}
	s.overlapSeen = true
	c := s.c
	for k, st := range idx {
		if st.second {
			c.OverlapRead += rates[k]
		} else {
			c.OverlapWrite += rates[k]
		}
	}
	if s.o.Verify {
		c.OverlapRead += c.OverlapWrite
	}
	amp := WriteAmplification(s.fd.Blades, s.fd.RAID)
	if s.fd.Write > 0 {
		c.WriteCapacity = s.fd.Write / amp
	}
	c.ReadCapacity = s.fd.Read
}

// advance moves the streams dt seconds on: a first run copied makes its
// card free once its last file is read back, a second run copied makes
// it safe then.
func (s *cascadeSim) advance(idx []cascadeStream, rates []float64, dt float64) {
	s.now += dt
	for k, st := range idx {
		size := float64(s.t.Sources[st.i].Size)
		if st.second {
			s.left2[st.i] = s.left2[st.i].advance(rates[k], dt)
			if s.left2[st.i].done(size) {
				s.done2[st.i], s.safe[st.i] = true, s.now+s.after(st.i, 2)
			}
			continue
		}
		s.left1[st.i] = s.left1[st.i].advance(rates[k], dt)
		if s.left1[st.i].done(size) {
			s.done1[st.i] = true
			s.pendingFree[st.i] = s.now + s.after(st.i, 1)
		}
	}
}

// conclude fills each card's free and safe times, the cascade's last
// ones and its bottleneck in words (then: the run-2 destinations).
func (s *cascadeSim) conclude(then []string) {
	c, t := s.c, s.t
	var lastFree, lastSafe float64
	last := -1
	for i := 0; i < s.n; i++ {
		if !s.done2[i] {
			c.Bottleneck = "the cascade does not end in the plan"
			return
		}
		f, sf := s.free[i], s.safe[i]
		s.res.Cards[i].FreeSeconds, s.res.Cards[i].SafeSeconds = &f, &sf
		lastFree = max(lastFree, f)
		if sf >= lastSafe {
			lastSafe, last = sf, i
		}
	}
	c.LastFreeSeconds, c.LastSafeSeconds = &lastFree, &lastSafe
	gap := time.Duration((s.safe[last] - s.free[last]) * float64(time.Second))
	who := LimitWords(s.lastLimit)
	if s.lastLimit == LimitMedia {
		who = "reading the first copy on " + s.fd.Name
	}
	after := fmt.Sprintf("the last card (%s) is safe to format %s after it is free", t.Sources[last].Name, units.FormatDuration(gap))
	c.Bottleneck = fmt.Sprintf("%s limits the second run: %s", who, after)
	for _, name := range then {
		if s.lastLimit == destPrefix+name {
			c.Bottleneck = fmt.Sprintf("shuttles limit: %s (%s holds the second run)", after, who)
		}
	}
}

// sortByFree orders cards waiting for their second run by the time they
// became free (then by their order).
func sortByFree(q []int, free []float64) {
	sort.SliceStable(q, func(a, b int) bool {
		if free[q[a]] != free[q[b]] {
			return free[q[a]] < free[q[b]]
		}
		return q[a] < q[b]
	})
}
