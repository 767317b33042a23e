package live

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// The model in virtual time: cards played forward by a simulator of the
// engine's pipeline (a card read file by file at its medium's rate with a
// cost per file, each copy read back as it lands at its destination's
// rate with a cost per file, then the run's hash lists written, a
// cascade's second run started when its card is free, one at a time),
// ticked once a (virtual) second like the engine's sampler. Every
// estimate is compared with what then really happened.

type simRun struct {
	label              string
	hop                int
	files              []int64
	rate, perFile      float64 // read: bytes/s, seconds a file
	vrate, vPer        float64 // read-back, each destination: bytes/s, seconds a file
	vrateCopying       float64 // read-back while the card is copied, if held lower (0: vrate)
	dests              int
	fixed              float64 // sealing, seconds
	stallFrom, stallTo float64
	stallCause         string

	phase    Phase
	fi       int
	spent    float64 // seconds into the current file
	copiedB  int64
	copiedF  int
	vq       [][]int // each destination's files waiting to be read back
	vspent   []float64
	verB     []int64
	verF     []int
	vbusy    []float64
	sealed   float64
	copiedAt float64 // when its last byte was read, -1 before
	endedAt  float64
	total    int64
}

func newSim(label string, hop int, files []int64, rate, perFile, vrate, vPer float64, dests int, fixed float64) *simRun {
	s := &simRun{label: label, hop: hop, files: files, rate: rate, perFile: perFile, vrate: vrate, vPer: vPer, dests: dests, fixed: fixed, phase: Queued, copiedAt: -1, endedAt: -1}
	s.vq, s.vspent, s.verB, s.verF = make([][]int, dests), make([]float64, dests), make([]int64, dests), make([]int, dests)
	s.vbusy = make([]float64, dests)
	for _, f := range files {
		s.total += f
	}
	return s
}

func (s *simRun) stalled(t float64) bool { return t >= s.stallFrom && t < s.stallTo }

// step plays dt seconds from t.
func (s *simRun) step(t, dt float64) {
	if s.phase == Queued || s.phase == Done || s.stalled(t) {
		return
	}
	if s.phase == Copying {
		left := dt
		for left > 0 && s.fi < len(s.files) {
			cost := s.perFile + float64(s.files[s.fi])/s.rate
			use := min(left, cost-s.spent)
			s.spent += use
			left -= use
			if s.spent >= cost-1e-12 {
				s.copiedB += s.files[s.fi]
				s.copiedF++
				for d := range s.vq {
					s.vq[d] = append(s.vq[d], s.fi)
				}
				s.fi++
				s.spent = 0
			}
		}
	}
	for d := range s.vq {
		left := dt
		for left > 0 && len(s.vq[d]) > 0 {
			f := s.files[s.vq[d][0]]
			vr := s.vrate
			if s.phase == Copying && s.vrateCopying > 0 {
				vr = s.vrateCopying
			}
			cost := s.vPer + float64(f)/vr
			use := min(left, cost-s.vspent[d])
			s.vspent[d] += use
			s.vbusy[d] += use
			left -= use
			if s.vspent[d] >= cost-1e-12 {
				s.verB[d] += f
				s.verF[d]++
				s.vq[d] = s.vq[d][1:]
				s.vspent[d] = 0
			}
		}
	}
	switch {
	case s.phase == Copying && s.fi == len(s.files):
		s.phase, s.copiedAt = Verifying, t+dt
	case s.phase == Verifying && s.verifiedAll():
		s.phase = Sealing
	case s.phase == Sealing:
		s.sealed += dt
		if s.sealed >= s.fixed {
			s.phase, s.endedAt = Done, t+dt
		}
	}
}

func (s *simRun) verifiedAll() bool {
	for d := range s.vq {
		if s.verF[d] < len(s.files) {
			return false
		}
	}
	return true
}

// bytesIn is the bytes of the current file read so far (the engine
// counts blocks as they are read).
func (s *simRun) bytesIn() int64 {
	if s.phase != Copying || s.fi >= len(s.files) {
		return 0
	}
	over := s.spent - s.perFile
	if over <= 0 {
		return 0
	}
	return min(int64(over*s.rate), s.files[s.fi])
}

func (s *simRun) counters(t float64) Counters {
	c := Counters{Key: s, Label: s.label, Hop: s.hop, Phase: s.phase, Files: len(s.files), FilesToCopy: len(s.files), Bytes: s.total,
		FilesCopied: s.copiedF, BytesCopied: s.copiedB + s.bytesIn(), FilesDone: 0,
		VerifyFiles: len(s.files) * s.dests, VerifyTotal: s.total * int64(s.dests)}
	for d := 0; d < s.dests; d++ {
		c.FilesVerified += s.verF[d]
		c.BytesVerified += s.verB[d]
		dc := DestCounters{Dest: fmt.Sprintf("d%d", d+1), State: DestWriting, Bytes: s.total, BytesWritten: c.BytesCopied,
			VerifyTotal: s.total, BytesVerified: s.verB[d], VerifyFiles: len(s.files), FilesVerified: s.verF[d],
			VerifyBusy: time.Duration(s.vbusy[d] * float64(time.Second))}
		if t >= s.stallFrom && t <= s.stallTo && d == 0 {
			dc.LastError, dc.Retry, dc.RetryOf = s.stallCause, 1+int(t-s.stallFrom)/10, 10
		}
		c.Dests = append(c.Dests, dc)
	}
	return c
}

// simJob plays cards (and their second runs) to the end.
type simJob struct {
	runs    []*simRun
	seconds map[string]*simRun // a card's second run, started when it is free
	slots   int
}

type tick struct {
	t float64
	p Progress
}

// truth is when a card really was copied (its first run's last byte
// read), free (its first run ended: a cascade's card may leave the
// reader) and safe to format (its last run ended), in seconds from the
// job's start.
type truth struct{ copied, free, safe float64 }

func (j *simJob) play(t *testing.T, m *Model, start time.Time) (ticks []tick, real map[string]truth, end float64) {
	const dt = 0.01
	real = map[string]truth{}
	for _, r := range j.runs {
		r.phase = Copying
	}
	var active []*simRun
	active = append(active, j.runs...)
	for step := 1; ; step++ {
		now := float64(step-1) * dt
		for _, r := range active {
			r.step(now, dt)
		}
		// Second runs: started when their card is free, ThenSlots at once.
		busy := 0
		for _, r := range active {
			if r.hop == 2 && r.phase == Copying {
				busy++
			}
		}
		for _, r := range j.runs {
			s := j.seconds[r.label]
			if s == nil || r.phase != Done {
				continue
			}
			if !containsRun(active, s) {
				active = append(active, s)
			}
			if s.phase == Queued && busy < j.slots {
				s.phase = Copying
				busy++
			}
		}
		at := float64(step) * dt
		if step%100 == 0 {
			var cs []Counters
			for _, r := range active {
				cs = append(cs, r.counters(at))
			}
			p := m.Tick(start.Add(time.Duration(at*float64(time.Second))), cs)
			ticks = append(ticks, tick{at, p})
		}
		all := true
		for _, r := range j.runs {
			last := r
			if s := j.seconds[r.label]; s != nil {
				last = s
			}
			if last.phase == Done {
				if _, ok := real[r.label]; !ok {
					real[r.label] = truth{copied: r.copiedAt, free: r.endedAt, safe: last.endedAt}
				}
			} else {
				all = false
			}
		}
		if all {
			return ticks, real, at
		}
		if at > 3600 {
			t.Fatal("the simulation did not end")
		}
	}
}

func containsRun(rs []*simRun, r *simRun) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func sizes(n int, size int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = size
	}
	return out
}

// checkETAs asserts every estimate from 10 % of the job onward: the
// job's and each card's time until safe to format, until copied and
// until free (a cascade's first run ended), within 15 % of the
// real time left (or of 1.5 s, when less than a few seconds are left);
// unknown while a card is stalled; and no progress figure above 100 %.
func checkETAs(t *testing.T, ticks []tick, real map[string]truth, end float64) {
	t.Helper()
	bad := 0
	near := func(e Estimate, left float64) bool {
		return e.Known && math.Abs(e.Seconds-left) <= max(0.15*left, 1.5)
	}
	for _, tk := range ticks {
		for _, c := range tk.p.Cards {
			if c.BytesCopied > c.Bytes || c.BytesVerified > c.VerifyTotal || c.Percent() > 100 {
				t.Fatalf("t=%.0f %s: progress above 100%%: %+v", tk.t, c.Label, c)
			}
			if c.Stall != nil && (c.ETA.Safe.Known || c.ETA.CardFree.Known || c.ETA.Copied.Known) {
				t.Fatalf("t=%.0f %s: stalled (%s) with an ETA %+v", tk.t, c.Label, c.Stall, c.ETA)
			}
		}
		if tk.t < 0.1*end || tk.t >= end {
			continue
		}
		stalled := tk.p.Job.Stalled > 0
		job := tk.p.Job.ETA.Safe
		if stalled {
			if job.Known || tk.p.Job.ETA.CardFree.Known {
				t.Fatalf("t=%.0f: a card is stalled but the job's ETA is %+v", tk.t, tk.p.Job.ETA)
			}
			continue
		}
		if left := end - tk.t; !near(job, left) {
			bad++
			t.Errorf("t=%.0f of %.0f: job safe ETA %v, really %.1fs", tk.t, end, job, left)
		}
		// The job's copied and free: its last card's.
		var copied, free float64
		for _, r := range real {
			copied, free = max(copied, r.copied), max(free, r.free)
		}
		for _, e := range []struct {
			what string
			est  Estimate
			at   float64
		}{{"copied", tk.p.Job.ETA.Copied, copied}, {"free", tk.p.Job.ETA.CardFree, free}} {
			if left := e.at - tk.t; left > 0 && !near(e.est, left) {
				bad++
				t.Errorf("t=%.0f: job %s ETA %v, really %.1fs", tk.t, e.what, e.est, left)
			}
		}
		for _, c := range tk.p.Cards {
			if c.Hop == 2 || c.Stall != nil {
				continue
			}
			r := real[c.Label]
			for _, e := range []struct {
				what string
				est  Estimate
				at   float64
			}{{"copied", c.ETA.Copied, r.copied}, {"free", c.ETA.CardFree, r.free}, {"safe", c.ETA.Safe, r.safe}} {
				left := e.at - tk.t
				if left <= 0 {
					continue
				}
				if !near(e.est, left) {
					bad++
					t.Errorf("t=%.0f: card %s %s ETA %v, really %.1fs", tk.t, c.Label, e.what, e.est, left)
				}
			}
		}
		if bad > 10 {
			t.Fatal("too many")
		}
	}
}
