package offload

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/verdict"
)

func (j *Job) emit(e Event) {
	e.JobID = j.rec.ID
	if e.Time.IsZero() {
		e.Time = j.opts.Now()
	}
	j.opts.OnEvent(e)
}

// Run offloads every card at once, each through its own pipeline, and
// returns the job's summary. Cancelling ctx stops cleanly: temps are
// removed, nothing unverified is reported verified, and the job can be
// resumed. Run releases the destination locks when it returns.
func (j *Job) Run(ctx context.Context) (*Summary, error) {
	defer j.Close()
	run, err := j.cat.StartRun(j.rec.ID, j.opts.Now())
	if err != nil {
		return nil, err
	}
	j.model.Store(j.newModel(j.opts.Now()))
	j.emit(Event{Type: EvJobStarted, Schema: EventSchema, Message: j.rec.Name})
	stop := make(chan struct{})
	var swg sync.WaitGroup
	swg.Add(1)
	go func() {
		defer swg.Done()
		j.sampler(stop)
	}()
	j.runMu.Lock()
	j.runCtx = ctx
	for _, c := range j.cardList() {
		j.startCard(c)
	}
	j.runMu.Unlock()
	// Wait for every card, including cards added while the job runs.
	for {
		j.runWG.Wait()
		j.runMu.Lock()
		if j.running == 0 {
			j.finishing = true
			j.runMu.Unlock()
			break
		}
		j.runMu.Unlock()
	}
	close(stop)
	swg.Wait()
	// Copied, verified and sealed; then reported: the job is "finishing"
	// until its reports are written, and only then "done".
	state := catalog.JobFinishing
	if ctx.Err() != nil {
		state = catalog.JobInterrupted
	}
	touched := false
	for _, c := range j.cardList() {
		touched = touched || c.touched.Load() || c.rec.State != c.prevState || c.resealed
	}
	if j.wasDone && state == catalog.JobFinishing && !touched {
		// A resume of a done job that found nothing to do changes
		// nothing: no run, the job's finish time and state as they were.
		if err := j.cat.UndoRun(j.rec.ID, run, &j.before); err != nil {
			return nil, err
		}
		s, err := LoadSummary(j.cat, j.rec.ID)
		if err != nil {
			return nil, err
		}
		s.NothingToDo, s.Resumed = true, j.resumeNote()
		j.warnMu.Lock()
		s.Warnings = append(append(s.Warnings, j.warnings...), j.arrayWarnings()...)
		j.warnMu.Unlock()
		return s, nil
	}
	report := j.opts.AfterJob != nil && state == catalog.JobFinishing && (!j.wasDone || touched)
	if !report && state == catalog.JobFinishing {
		state = catalog.JobDone
	}
	finished := j.opts.Now()
	if err := j.cat.EndRun(j.rec.ID, run, finished); err != nil {
		return nil, err
	}
	if err := j.cat.SetJobState(j.rec.ID, state, finished, ""); err != nil {
		return nil, err
	}
	if err := j.cat.Flush(); err != nil {
		return nil, err
	}
	s, err := LoadSummary(j.cat, j.rec.ID)
	if err != nil {
		return nil, err
	}
	warnings := j.arrayWarnings()
	if report {
		crashpoint.Hit("job: finishing recorded")
		j.emitDecided(s, warnings)
		err := j.afterJob(ctx, s)
		switch {
		case err != nil && ctx.Err() != nil:
			msg := fmt.Sprintf("interrupted while the reports were written: the copies and hash lists are recorded; %s writes the reports", j.ResumeCommand())
			j.emit(Event{Type: EvWarning, Message: msg})
			warnings = append(warnings, msg)
			if err := j.cat.SetJobState(j.rec.ID, catalog.JobInterrupted, finished, msg); err != nil {
				return nil, err
			}
		case err != nil:
			// The copies are what they are: the job ends in its real
			// state, with the reports' failure recorded; a resume writes
			// them again (see Resume).
			msg := fmt.Sprintf("%s%s: %s writes them again", ReportsNotWritten, strings.ReplaceAll(err.Error(), "\n", "; "), j.ResumeCommand())
			j.emit(Event{Type: EvWarning, Message: msg})
			warnings = append(warnings, msg)
			if err := j.cat.SetJobState(j.rec.ID, catalog.JobDone, finished, msg); err != nil {
				return nil, err
			}
		default:
			if err := j.cat.SetJobState(j.rec.ID, catalog.JobDone, finished, ""); err != nil {
				return nil, err
			}
			crashpoint.Hit("job: done recorded")
		}
		if s, err = LoadSummary(j.cat, j.rec.ID); err != nil {
			return nil, err
		}
	}
	j.warnMu.Lock()
	s.Warnings = append(append(s.Warnings, j.warnings...), warnings...)
	j.warnMu.Unlock()
	s.Resumed = j.resumeNote()
	return s, nil
}

// ReportsNotWritten starts the error of a job whose reports (some of
// their formats) could not be written: a resume writes them again.
const ReportsNotWritten = "reports not written: "

// afterJob calls Options.AfterJob; a panic in it is recovered and returned
// as an error (a report never crashes dit, and the job's locks are
// released as on any return).
func (j *Job) afterJob(ctx context.Context, s *Summary) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing the reports of job %d crashed: %v (a bug in dit: please report it)", j.rec.ID, p)
		}
	}()
	return j.opts.AfterJob(ctx, s, j.opts.FS)
}

// ResumeCommand is the command that resumes this job, as messages print it.
func (j *Job) ResumeCommand() string {
	cmd := fmt.Sprintf("dit offload --resume %d", j.rec.ID)
	if j.opts.ResumeArgs != "" {
		cmd += " " + j.opts.ResumeArgs
	}
	return cmd
}

// arrayNotable are the array events a DIT must hear of at the end of a job:
// a blade missing, returning bad data or damaged metadata, or taken out.
var arrayNotable = map[string]bool{"degraded": true, "repaired-on-read": true, "manifest": true,
	"superblock": true, "rejected": true, "quick-verify": true}

// arrayWarnings emits a warning for each notable event of the job's arrays
// (raid.Array.Events) and returns their texts for the summary.
func (j *Job) arrayWarnings() []string {
	const most = 10 // per array; then one line counts the rest
	var out []string
	for _, a := range j.arrays {
		sb := a.Superblock()
		n := 0
		for _, ev := range a.Events() {
			if !arrayNotable[ev.Kind] {
				continue
			}
			if n++; n > most {
				continue
			}
			msg := fmt.Sprintf("array %q: %s (%s): check it with dit array status and dit array scrub", sb.ArrayLabel, ev.Message, ev.Kind)
			j.emit(Event{Type: EvWarning, Time: ev.Time, Message: msg})
			out = append(out, msg)
		}
		if n > most {
			msg := fmt.Sprintf("array %q: %d more events like these: dit array status lists them", sb.ArrayLabel, n-most)
			j.emit(Event{Type: EvWarning, Message: msg})
			out = append(out, msg)
		}
	}
	return out
}

type rateState struct {
	copied, verif int64
	dw, dv        []int64
}

// sampler records a throughput sample per second per card and
// destination, feeds the live model (package live) and emits its
// snapshot as a progress event.
func (j *Job) sampler(stop <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// The last counts of each card run: by the run, not its place in the
	// list (a card taken up again, RetryCard, is a new run in the same
	// place whose counts start at zero: its bytes are new bytes moved).
	last := map[*cardRun]*rateState{}
	lastT := j.opts.Now()
	stalled := map[string]bool{}
	sample := func(final bool) {
		now := j.opts.Now()
		dt := now.Sub(lastT).Seconds()
		lastT = now
		if dt <= 0 {
			return
		}
		cards := j.cardList()
		// Runs RetryCard replaced: their bytes since the last sample,
		// once, then they are forgotten.
		retired := j.takeRetired()
		for _, c := range append(cards, retired...) {
			if c.destWritten != nil {
				j.putSamples(c, last, now, dt, final)
			}
		}
		for _, c := range retired {
			delete(last, c)
		}
		m := j.model.Load()
		if ps, ok := j.opts.Limiter.(interface{ Paused() bool }); ok {
			m.Pause(ps.Paused())
		}
		p := j.tickModel(m, now, cards, stalled)
		if !final {
			j.emit(Event{Type: EvProgress, Progress: &p})
		}
	}
	for {
		select {
		case <-tick.C:
			sample(false)
		case <-stop:
			sample(true)
			return
		}
	}
}

// putSamples records card c's throughput samples of the last dt seconds.
func (j *Job) putSamples(c *cardRun, last map[*cardRun]*rateState, now time.Time, dt float64, final bool) {
	l := last[c]
	first := l == nil
	if first {
		l = &rateState{dw: make([]int64, len(c.dests)), dv: make([]int64, len(c.dests))}
		last[c] = l
	}
	copied, verif := c.bytesCopied.Load(), c.bytesVerif.Load()
	phase, _ := c.phase.Load().(string)
	// The card's part of the interval: from when it started (if within
	// it) to when it ended (if within it).
	from, to := now.Add(-time.Duration(dt*float64(time.Second))), now
	if a := c.activeAt.Load(); a != 0 && a < to.UnixNano() && (a > from.UnixNano() || first) {
		// Its first sample reaches back to its start, also one before
		// the sampler's (a card started as the job began).
		from = time.Unix(0, a)
	}
	if d := c.doneAt.Load(); phase == "done" && d > from.UnixNano() && d < to.UnixNano() {
		to = time.Unix(0, d)
	}
	// The card's samples cover its part (where it was when); a
	// destination's stay at the whole tick, so that the cards' samples of
	// one second add up to the destination's rate.
	cdt := to.Sub(from).Seconds()
	if cdt <= 0 {
		to, cdt = now, dt
	}
	cr, vr := float64(copied-l.copied)/cdt, float64(verif-l.verif)/cdt
	// A resume of a done job writes no sample until it moves something
	// (one that finds nothing to do changes nothing).
	idle := j.wasDone && !c.touched.Load()
	if copied != l.copied || (phase == "copying" && !final && !idle) {
		j.cat.PutSample(j.rec.ID, catalog.Sample{CardID: c.rec.ID, T: to, Bytes: copied, Rate: cr, Phase: "copy", Seconds: cdt})
	}
	if verif != l.verif || (phase == "verifying" && !final && !idle) {
		j.cat.PutSample(j.rec.ID, catalog.Sample{CardID: c.rec.ID, T: to, Bytes: verif, Rate: vr, Phase: "verify", Seconds: cdt})
	}
	for di, d := range c.dests {
		w, v := c.destWritten[di].Load(), c.destVerif[di].Load()
		if w != l.dw[di] {
			j.cat.PutSample(j.rec.ID, catalog.Sample{CardID: c.rec.ID, DestID: d.rec.ID, T: now, Bytes: w, Rate: float64(w-l.dw[di]) / dt, Phase: "copy", Seconds: dt})
		}
		if v != l.dv[di] {
			j.cat.PutSample(j.rec.ID, catalog.Sample{CardID: c.rec.ID, DestID: d.rec.ID, T: now, Bytes: v, Rate: float64(v-l.dv[di]) / dt, Phase: "verify", Seconds: dt})
		}
		l.dw[di], l.dv[di] = w, v
	}
	l.copied, l.verif = copied, verif
}

func (c *cardRun) progress() CardProgress {
	phase, _ := c.phase.Load().(string)
	cur, _ := c.current.Load().(string)
	if phase == "verifying" {
		// The card is read: its current file is one being read back (the
		// first destination's that is reading; between files, the last).
		cur, _ = c.vcurrent.Load().(string)
		for di := range c.destCur {
			if f, _ := c.destCur[di].Load().(string); f != "" {
				cur = f
				break
			}
		}
	}
	cp := CardProgress{Label: c.label(), Hop: hopOf(c.rec), Phase: c.livePhase(), Files: c.cardCounts.files, FilesDone: int(c.filesDone.Load()),
		FilesFailed: int(c.filesFailed.Load()), Bytes: c.copyTotal, BytesCopied: c.bytesCopied.Load(),
		ReadBack: live.ReadBack{VerifyTotal: c.verifyTotal, BytesVerified: c.bytesVerif.Load()}, Current: cur}
	if cp.Hop != 2 {
		cp.Hop = 0
	}
	for di, d := range c.dests {
		dp := DestProgress{Dest: d.root, Bytes: c.destNeed[di], BytesWritten: c.destWritten[di].Load(),
			VerifyTotal: c.destVerifTotal[di], BytesVerified: c.destVerif[di].Load(), FilesFailed: int(c.destFailed[di].Load())}
		dp.Current, _ = c.destCur[di].Load().(string)
		dp.State = c.destState(di, phase, dp)
		cp.Dests = append(cp.Dests, dp)
	}
	return cp
}

// destState is the state of the card's copy on destination di. A file's
// failure there counts once the file is final (every copy of it read
// back): "verified" is said only once the run is done, and not where
// the card's hash lists could not be written (DestSealFailed).
func (c *cardRun) destState(di int, phase string, dp DestProgress) live.DestState {
	verify := c.j.opts.Verify != VerifyNone
	switch {
	case dp.FilesFailed > 0:
		return DestFailed
	case phase == "pending" || phase == "queued":
		return DestQueued
	case phase == "copying" && (dp.BytesWritten < dp.Bytes || !verify):
		return DestWriting
	case phase == "copying" || phase == "verifying":
		return DestVerifying
	case phase == "sealing":
		return DestSealing
	case di < len(c.lc.dests) && c.lc.dests[di].sealFailed.Load():
		return DestSealFailed
	case !verify:
		return DestCopied
	case dp.BytesVerified >= dp.VerifyTotal:
		return DestVerified
	}
	return DestUnverified
}

// Snapshot returns the job's live picture now: every run's counts as
// they are, with the rates, stalls and estimates of the live model's
// last tick (once a second).
func (j *Job) Snapshot() Progress {
	var cs []live.Counters
	now := j.opts.Now()
	for _, c := range j.cardList() {
		if c.destWritten != nil {
			cs = append(cs, c.counters(now))
		}
	}
	m := j.model.Load()
	if m == nil {
		m = live.NewModel(live.Config{}, now)
	}
	return m.Peek(cs)
}

// startCard runs one card's pipeline (runMu held).
func (j *Job) startCard(c *cardRun) {
	j.running++
	j.runWG.Add(1)
	go func() {
		defer j.runWG.Done()
		c.run(j.runCtx)
		c.ended.Store(true)
		close(c.ran)
		if !c.absent {
			j.emit(Event{Type: EvRunDone, Card: c.label(), Hop: hopOf(c.rec), State: verdict.State(c.rec.State), Message: c.rec.Error})
		}
		j.runMu.Lock()
		done := c.rec.Hop <= 1 && j.startSecond(c)
		// The card is done when the last of its runs in this process
		// ended (a resume runs both at once; a second run just started
		// ends it later), once.
		k := c
		if c.from != nil {
			k = c.from
		}
		h := j.secondOf(k)
		done = !done && k.ended.Load() && (h == nil || h.absent || h.ended.Load()) && !k.doneSent && (!k.absent || (h != nil && !h.absent))
		if done {
			k.doneSent = true
		}
		j.runMu.Unlock()
		if done {
			j.cardDone(c)
		}
		j.runMu.Lock()
		j.running--
		j.runMu.Unlock()
	}()
}

// cardDone tells the front ends the card of run c reached its end in this
// process, its verdict read back from the catalog (the read model): a
// safe_to_format event first when it is safe, then card_done.
func (j *Job) cardDone(c *cardRun) {
	k := c.rec
	if c.from != nil {
		k = c.from.rec
	}
	j.cat.Flush()
	cs, err := summary.EndedCard(j.cat, j.rec.ID, k.ID, j.runCtx != nil && j.runCtx.Err() != nil)
	if err != nil {
		j.emit(Event{Type: EvWarning, Card: k.Label, Message: "card's verdict not read from the catalog: " + err.Error()})
		j.emit(Event{Type: EvCardDone, Card: k.Label, State: verdict.Failed, Message: err.Error()})
		return
	}
	if cs.SafeToFormat {
		j.emit(Event{Type: EvSafeToFormat, Card: k.Label, Path: k.Path, Time: cs.SafeAt, Message: cs.Verdict})
	}
	msg := cs.Verdict
	if c.rec.Error != "" {
		msg += ": " + c.rec.Error
	}
	j.emit(Event{Type: EvCardDone, Card: k.Label, Path: k.Path, State: cs.Status, Message: msg, Summary: cs})
}

// takeRetired returns the card runs RetryCard replaced since the last
// call.
func (j *Job) takeRetired() []*cardRun {
	j.cardsMu.Lock()
	defer j.cardsMu.Unlock()
	r := j.retired
	j.retired = nil
	return r
}

// cardList is a snapshot of the job's cards (cards may be added while it
// runs).
func (j *Job) cardList() []*cardRun {
	j.cardsMu.RLock()
	defer j.cardsMu.RUnlock()
	return append([]*cardRun(nil), j.cards...)
}

// decided is s (a job whose every card has ended, its reports still to
// write) as the job will end: its state from its cards' verdicts alone
// (reports that fail leave the job done, with a warning), and the exit
// code that goes with it.
func decided(s *Summary) *Summary {
	d := *s
	states := make([]verdict.State, len(s.Cards))
	for i, c := range s.Cards {
		states[i] = c.Status
	}
	d.Status = verdict.JobState(verdict.Facts{}, states, false)
	d.State = catalog.JobDone // reports that fail leave it done, with a warning
	d.ExitCode = summary.ExitCode(d.Status, false)
	return &d
}

// emitDecided says job_decided: s (every card ended, the reports still to
// write) as the job will end, with the warnings so far (warnings: the
// arrays').
func (j *Job) emitDecided(s *Summary, warnings []string) {
	d := decided(s)
	j.warnMu.Lock()
	d.Warnings = append(append(append([]string(nil), s.Warnings...), j.warnings...), warnings...)
	j.warnMu.Unlock()
	d.Resumed = j.resumeNote()
	j.emit(Event{Type: EvDecided, Job: d})
}
