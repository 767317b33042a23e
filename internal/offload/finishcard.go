package offload

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/source"
)

// fatEpoch is just after the earliest time a FAT or exFAT volume can
// record (1980-01-01, local time): a card root before it has no real time
// of its own.
var fatEpoch = time.Date(1980, 1, 2, 0, 0, 0, 0, time.UTC)

// finishCard sets folder mtimes and the card's final state.
func (c *cardRun) finishCard(ctx context.Context) {
	j := c.j
	now := j.opts.Now()
	if j.opts.Verify != VerifyNone && !c.rec.VerifyStarted.IsZero() && (c.rec.VerifyFinished.IsZero() || c.bytesVerif.Load() > 0) {
		c.rec.VerifyFinished = now
	}
	if !c.storeRun() {
		c.setFolderTimes()
	}
	final := c.verdict(ctx)
	c.releasePlan()
	if final == "" {
		c.setDone()
		c.current.Store("")
		j.cat.UpdateCard(c.rec)
		return
	}
	// Copied and verified, now sealed: the card's hash lists are written
	// on every destination before it may read "verified" (safe to format).
	// A card sealed in an earlier run of the job that this run did not
	// touch is not sealed again (a resume with nothing to do writes
	// nothing).
	sealedBefore := c.prevState == StateVerified || c.prevState == StateCopied || c.prevState == StateFailed
	// A cloud run is sealed in the cloud: its history staged, uploaded
	// and verified (storeseal.go).
	if j.opts.Seal == nil || (sealedBefore && !c.touched.Load()) {
		c.rec.State = final
	} else {
		c.sealCard(ctx, final)
	}
	if c.rec.State == StateVerified && (c.rec.DoneAt.IsZero() || c.touched.Load() || c.resealed) {
		c.rec.DoneAt = j.opts.Now()
	}
	c.setDone()
	c.current.Store("")
	j.cat.UpdateCard(c.rec)
	if err := j.cat.Flush(); err == nil && c.rec.State != catalog.CardSealing {
		crashpoint.Hit("card: sealed")
	}
}

// releasePlan lets go of what the card's run held per file (its scan, its
// plan, the earlier run's records and the card's names), once every file
// reached its final state and the verdict is read: the seal and the
// job's end read the card's files from the catalog, a file at a time, so
// a card of a million frames is not held while it is sealed and the next
// cards run. A cloud run keeps of it the entries of the card's ASC MHL
// history, which its seal stages (stageCardHistory).
func (c *cardRun) releasePlan() {
	if c.storeRun() && c.list != nil {
		c.cardHistory = nil
		for i := range c.list.len() {
			if e := c.list.entry(i); strings.HasPrefix(e.Rel, ascmhlPrefix) {
				c.cardHistory = append(c.cardHistory, e)
			}
		}
	}
	if c.list != nil {
		c.list.held.Release()
	}
	c.list, c.prev, c.resumable = nil, nil, nil
	c.scan.Files = nil
}

// setFolderTimes gives the card's folders on every destination their
// times on the card, deepest first.
func (c *cardRun) setFolderTimes() {
	j := c.j
	dirs := append([]source.Entry(nil), c.scan.Dirs...)
	sort.Slice(dirs, func(a, b int) bool { return strings.Count(dirs[a].Rel, "/") > strings.Count(dirs[b].Rel, "/") })
	for _, d := range c.dests {
		for _, dir := range dirs {
			p := filepath.Join(d.root, filepath.FromSlash(c.out), filepath.FromSlash(dir.Rel))
			j.opts.FS.Chtimes(p, dir.Mtime, dir.Mtime)
		}
		// The card folder is the card's root: it gets the root's time too,
		// unless the card's file system has none (FAT and exFAT roots
		// report 1970 or 1980): then it keeps the time of the copy.
		if rt := c.scan.Mtime; rt.After(fatEpoch) {
			j.opts.FS.Chtimes(filepath.Join(d.root, filepath.FromSlash(c.out)), rt, rt)
		}
	}
}

// verdict is the card's final state before its seal (failed, copied or
// verified, with its error), or "" for an interrupted run (its state
// "interrupted" then).
func (c *cardRun) verdict(ctx context.Context) string {
	j := c.j
	var final string
	missing, nMissing := c.historyMissing(5)
	// The card's history is not read again in this run (the seal reads
	// the destinations' own; a retried card's run loads it anew): let
	// go of its index before the seal loads theirs.
	c.history = nil
	lost, lostErr := c.expectMissing()
	unreadable := c.unreadable()
	switch {
	case ctx.Err() != nil:
		c.rec.State = "interrupted"
	case lostErr != nil:
		// Whether the first copy lost files of the card is not known.
		final = StateFailed
		c.rec.Error = lostErr.Error() + ": whether the first copy lost files of the card is not known, so the card is NOT safe to format: resume the job once the catalog reads"
	case len(lost) > 0:
		final = StateFailed
		c.failLostFirstCopies(lost)
		c.rec.Error = cascade.MissingError(DisplayPath(c.from.dests[0].root, c.out), lost)
	case nMissing > 0:
		final = StateFailed
		shown := missing
		if nMissing > len(shown) {
			shown = append(shown[:len(shown):len(shown)], fmt.Sprintf("and %d more", nMissing-len(shown)))
		}
		c.rec.Error = fmt.Sprintf("%d file(s) the card's own ASC MHL history (an earlier hop) lists are not on the card: %s: the card lost them since, and its history will not verify on the copies; it is not safe to format: check the card and the earlier copies",
			nMissing, strings.Join(shown, ", "))
	case c.cardGone() != "":
		final, c.rec.Error = StateFailed, c.cardGone()
	case c.filesFailed.Load() > 0:
		final = StateFailed
		c.rec.Error = fmt.Sprintf("%d file(s) failed", c.filesFailed.Load())
	case len(unreadable) > 0:
		// What could not be read was not copied: the card is not whole
		// on any destination, whatever was verified.
		u := unreadable
		shown := u
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(u)-5))
		}
		final = StateFailed
		c.rec.Error = fmt.Sprintf("%d entr(ies) on the card could not be read and were not copied: %s: it is NOT safe to format: make them readable (permissions, a failing card) and offload it again",
			len(u), strings.Join(shown, ", "))
	case j.opts.Verify == VerifyNone:
		final = StateCopied
	default:
		final = StateVerified
	}
	return final
}

// sealCard writes the card's hash lists on every destination (it is
// "sealing" meanwhile, recorded first): it takes its final state only
// once they are all written.
func (c *cardRun) sealCard(ctx context.Context, final string) {
	j := c.j
	if c.rec.Sealed.IsZero() || c.touched.Load() {
		// A new seal time, hence a new generation; an unfinished seal
		// of an untouched card keeps its time and is redone as itself.
		c.rec.Sealed = j.opts.Now()
	}
	c.rec.State, c.resealed = catalog.CardSealing, true
	c.phase.Store("sealing")
	j.cat.UpdateCard(c.rec)
	if err := j.cat.Flush(); err == nil {
		crashpoint.Hit("card: sealing recorded")
	}
	problems := c.seal(ctx)
	// A card whose lists are not all written stays sealing, whatever
	// else happened to it: a resume writes them (a card that ended
	// failed, verified or copied only once they are written, so a
	// resume with nothing to copy never takes it as sealed).
	switch {
	case len(problems) == 0:
		c.rec.State = final
	case ctx.Err() != nil:
	case final == StateFailed && c.rec.Error != "":
		c.rec.Error += "; " + strings.Join(problems, "; ")
	default:
		c.rec.Error = strings.Join(problems, "; ")
	}
}

// unreadable lists the card's entries its scan could not read.
func (c *cardRun) unreadable() []string {
	var out []string
	for s := range c.scan.Skipped.All() {
		if s.Kind == "unreadable" {
			out = append(out, s.Rel)
		}
	}
	return out
}

// setDone ends the run's phases (phase "done", at doneAt).
func (c *cardRun) setDone() {
	c.doneAt.Store(c.j.opts.Now().UnixNano())
	c.phase.Store("done")
	c.vcurrent.Store("")
}
