package offload

import (
	"context"
	"errors"
	"fmt"
	"github.com/dit-org/dit/internal/verdict"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
)

// finisher records each file once its writers are done, and hands the
// copies to the verifiers.
func (c *cardRun) finisher(ctx context.Context, in <-chan *fileTask, verifiers []chan vtask) {
	j := c.j
	for t := range in {
		t.wg.Wait()
		var sums hashing.Sums
		if t.readErr == nil {
			sums = <-t.sums
			c.checkKept(t, sums)
			c.checkHistory(t, sums)
			if msg := c.checkExpect(t, sums); msg != "" {
				c.dropWritten(t)
				t.readErr = errors.New(msg)
			}
		}
		f := &catalog.File{CardID: c.rec.ID, Rel: t.plan.ent.Rel, Size: t.size, Mtime: t.mtime, Sums: sums,
			CopyStarted: t.started, CopyFinished: t.copied, State: StateCopied}
		if t.plan.prev != nil && t.readErr == nil && allModeDone(t.plan) {
			f.CopyStarted, f.CopyFinished = t.plan.prev.CopyStarted, t.plan.prev.CopyFinished
		}
		t.rec = f
		if t.readErr != nil {
			if errors.Is(t.readErr, context.Canceled) {
				// Interrupted: the file stays pending for a resume.
				continue
			}
			f.State, f.Error = StateFailed, t.readErr.Error()
			for di := range t.results {
				if t.results[di].state == "" || t.active[di] {
					// A copy of ours already there stays ours (a later run
					// may still replace it).
					dp := t.plan.dests[di]
					own := dp.mode == modeCompare && dp.replaceOwn
					t.results[di] = destResult{state: StateFailed, rel: t.results[di].rel, written: own, err: "not copied: " + t.readErr.Error()}
				}
			}
		}
		j.cat.PutFile(f)
		if c.partials[f.Rel] != nil || t.resumeAt > 0 || (j.opts.CheckpointEvery > 0 && t.size >= 2*j.opts.CheckpointEvery) {
			j.cat.DeletePartials(c.rec.ID, f.Rel) // copied (or failed): no resume from the middle any more
		}
		var todo []vtask
		for di, r := range t.results {
			cp := &catalog.Copy{DestID: c.dests[di].rec.ID, Path: r.rel, State: r.state, Written: r.written, Error: r.err}
			if dp := t.plan.dests[di]; dp.mode == modeDone && r.state == StateVerified && dp.prev != nil {
				// Verified by an earlier run: keep when and how.
				cp.VerifyAlgos, cp.VerifiedAt, cp.Identity = dp.prev.VerifyAlgos, dp.prev.VerifiedAt, dp.prev.Identity
			} else if dp.mode == modeSealed && r.state == StateVerified {
				cp.VerifiedAt = j.opts.Now() // the chain checked now (sealedChain)
			}
			j.cat.PutCopy(c.rec.ID, f.Rel, cp)
			if (r.state == StateCopied || r.state == StatePresent) && j.opts.Verify != VerifyNone {
				todo = append(todo, vtask{task: t, di: di, path: filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel))})
			}
		}
		if len(todo) > 0 && j.opts.Verify == VerifySourceDest {
			todo = append(todo, vtask{task: t, di: -1, path: filepath.Join(c.scan.Root, filepath.FromSlash(f.Rel))})
		}
		if len(todo) == 0 {
			c.finalize(t)
			continue
		}
		c.touched.Store(true)
		c.mu.Lock()
		if c.verifyAt.IsZero() {
			c.verifyAt = j.opts.Now()
		}
		c.mu.Unlock()
		t.vpending = len(todo)
		for _, v := range todo {
			idx := v.di
			if idx < 0 {
				idx = len(c.dests)
			}
			select {
			case verifiers[idx] <- v:
			case <-ctx.Done():
			}
		}
	}
}

// checkKept compares a file read again on resume (another destination
// needed it) with the hashes its kept copies were verified against. Same
// size and time but other bytes: an unstable card or reader, or another
// card at the same path. A kept copy was never compared with the new
// hashes, so it is not verified against them, and the file fails.
func (c *cardRun) checkKept(t *fileTask, sums hashing.Sums) {
	prev := t.plan.prev
	if prev == nil {
		return
	}
	for di := range t.results {
		dp := t.plan.dests[di]
		if dp.mode != modeDone || t.active[di] {
			continue
		}
		if _, bad, ok := sums.Compare(prev.Sums); !ok {
			msg := fmt.Sprintf("the card's file reads differently now (%s %s) than when this job verified its copy at %s (%s %s), under the same size and time: an unstable card or reader, or another card at %s? The earlier copy is kept",
				bad, sums.Get(bad), dp.target(), bad, prev.Sums.Get(bad), c.scan.Root)
			t.results[di] = destResult{state: StateFailed, rel: dp.rel, written: dp.prev != nil && dp.prev.Written, err: msg}
			t.srcErr, t.unstable = msg, true
		}
	}
}

// checkHistory compares a file read from the card with the hashes the
// card's own ASC MHL history records for it (an earlier hop: the camera,
// another tool). A difference means the card changed since that hop, or
// reads wrong: a finding the DIT must act on, so the file fails (the card
// is not safe to format), naming both hashes.
func (c *cardRun) checkHistory(t *fileTask, sums hashing.Sums) {
	r := c.history.Get(t.plan.ent.Rel)
	if r == nil {
		return
	}
	for _, a := range hashing.All {
		recorded, ok := r.Values[a]
		if got := sums.Get(a); !ok || got == "" || got == recorded {
			continue
		}
		t.srcErr = fmt.Sprintf("differs from the card's own ASC MHL history (an earlier hop, generation %d): %s recorded %s, read now %s: the card changed since, or reads wrong; it is not safe to format: check the card and the earlier copies",
			r.FirstSeq, a, recorded, sums.Get(a))
		return
	}
}

// historyMissing counts the files the card's own ASC MHL history records
// (and did not record as failed) that the card does not have now (left
// out on purpose with --ignore excepted), and names the first few in
// path order (at most shown: a card that lost every file of a history
// of a million names five, not a million).
func (c *cardRun) historyMissing(shown int) (first []string, n int) {
	if c.history == nil {
		return nil, 0
	}
	var ign *ignore.Matcher
	if len(c.j.opts.Ignore) > 0 {
		ign = ignore.New(c.j.opts.Ignore)
	}
	for r := range c.history.All() {
		rel := r.Path
		if c.list.has(rel) || r.LastFailed || (ign != nil && ign.Match(rel, false)) {
			continue
		}
		n++
		name := ascmhl.DisplayName(rel)
		at, _ := slices.BinarySearch(first, name)
		if at < shown {
			first = slices.Insert(first, at, name)
			first = first[:min(len(first), shown)]
		}
	}
	return first, n
}

func allModeDone(fp *filePlan) bool {
	for _, d := range fp.dests {
		if d.mode != modeDone {
			return false
		}
	}
	return true
}

// finalize records a file's final state and tells the front ends.
func (c *cardRun) finalize(t *fileTask) {
	j := c.j
	f := t.rec
	if f.State != StateFailed {
		all := true
		failed := false
		var why []string
		for _, r := range t.results {
			all = all && r.state == StateVerified
			if r.state == StateFailed || r.state == StateSkipped {
				failed = true
				if r.err != "" {
					why = append(why, r.err)
				}
			}
		}
		switch {
		case t.srcErr != "":
			f.State, f.Error = StateFailed, t.srcErr
			// The copies hold what the first read gave: equal to hashes the
			// card did not give again, so none of them is verified.
			for di, r := range t.results {
				if r.state != StateVerified {
					continue
				}
				msg := "not verified: " + t.srcErr
				if t.unstable && t.active[di] && r.written {
					// Written now from a read the card did not give
					// again: it does not keep the card's file name.
					msg += c.asideNote(t, filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel)))
				}
				t.results[di].state, t.results[di].err = StateFailed, msg
				j.cat.PutCopy(c.rec.ID, f.Rel, &catalog.Copy{DestID: c.dests[di].rec.ID, Path: r.rel, State: StateFailed,
					Written: r.written, Error: msg})
			}
			t.vmu.Lock()
			if len(t.aside) > 0 {
				f.Error += "; the copies that did not verify were moved aside to " + strings.Join(t.aside, ", ")
			}
			t.vmu.Unlock()
		case failed:
			f.State, f.Error = StateFailed, strings.Join(why, "; ")
		case all:
			f.State = StateVerified
		default:
			f.State = StateCopied
		}
		j.cat.PutFile(f)
	}
	if f.State == StateVerified && crashpoint.On() {
		if j.cat.Flush() == nil {
			crashpoint.Hit(fmt.Sprintf("file: verified, run %d", max(c.rec.Hop, 1)))
		}
	}
	if f.State == StateFailed {
		c.filesFailed.Add(1)
	}
	for di, r := range t.results {
		if r.state == StateFailed || r.state == StateSkipped {
			c.destFailed[di].Add(1)
		}
	}
	c.filesDone.Add(1)
	ev := Event{Type: EvFile, Card: c.label(), Hop: hopOf(c.rec), Path: f.Rel, State: verdict.State(f.State), Message: f.Error}
	for di, r := range t.results {
		ev.Copies = append(ev.Copies, copyOf(c.dests[di].root, r))
	}
	j.emit(ev)
	c.planDone(t.plan)
}
