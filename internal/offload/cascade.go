package offload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/source"
)

// A cascade (Options.Then) copies each card in two runs. The first run
// reads the card and writes the first destinations (hop 1), exactly as a
// job without a cascade; once the card is verified there it is "card
// free": one verified copy exists, the card may leave the reader (not be
// formatted). The second run (hop 2) reads that first copy, on the first
// first-run destination (through the array reader on a dit array, so a
// bad blade is repaired from parity, never copied), writes the later
// destinations, checks every file read against the hashes the card gave
// in the first run, and reads the copies back. The card is safe to format
// only once both runs verified it.
//
// The rules (which destination is which run's, the expectations and the
// check of a file against them, the files the first copy lost, the turn
// gate of ThenParallel, the words of each failure) are package
// cascade's; this file is the glue that applies them to the pipeline's
// card runs: a second run started, waited for and failed under the job's
// lock, and its failures recorded in the catalog.

// hopDests are the job's destinations of one run.
func (j *Job) hopDests(hop int) []*destination {
	var out []*destination
	for _, d := range j.dests {
		if d.rec.Run() == max(hop, 1) {
			out = append(out, d)
		}
	}
	return out
}

// cascade reports whether the job has a second run.
func (j *Job) cascade() bool { return len(j.hopDests(2)) > 0 }

// secondOf is the second run of hop-1 card c, if it has one yet.
func (j *Job) secondOf(c *cardRun) *cardRun {
	for _, o := range j.cardList() {
		if o.rec.Hop == 2 && o.rec.FromCard == c.rec.ID {
			return o
		}
	}
	return nil
}

// firstCopy is where the second run of c reads: its folder on the first
// first-run destination.
func (c *cardRun) firstCopy() string {
	return filepath.Join(c.dests[0].root, filepath.FromSlash(c.out))
}

// cardFree: the first run of c verified every file on every first-run
// destination and wrote its hash lists.
func (c *cardRun) cardFree() bool { return c.rec.Hop <= 1 && c.rec.State == StateVerified }

// startSecond starts the second run of hop-1 card c once it is free
// (runMu held) and reports whether it did. A second run that cannot start
// (its first copy does not read) is recorded failed, so the card is not
// safe to format.
func (j *Job) startSecond(c *cardRun) bool {
	if c.rec.Hop > 1 || !j.cascade() || !c.cardFree() || j.runCtx == nil || j.runCtx.Err() != nil || j.secondOf(c) != nil {
		return false
	}
	h, err := j.newSecond(c)
	if err != nil {
		msg := cascade.NotStarted(c.rec.Label, err)
		j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Message: msg})
		if h == nil {
			return false
		}
	}
	if err != nil {
		// Recorded failed, never run: it has ended, so its card's
		// card_done (failed) is told.
		h.setDone()
		h.ended.Store(true)
		close(h.ran)
	}
	j.cardsMu.Lock()
	j.cards = append(j.cards, h)
	j.cardsMu.Unlock()
	crashpoint.Hit("cascade: second run recorded")
	if err == nil {
		j.emit(Event{Type: EvCardFree, Card: c.label(), Hop: hopOf(c.rec), Path: c.rec.Path, Time: c.rec.DoneAt,
			Message: cascade.FreeNotice(c.rec.Label, destList(c.dests))})
		j.startCard(h)
		return true
	}
	return false
}

func destList(ds []*destination) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.root)
	}
	return strings.Join(s, ", ")
}

// newSecond records the second run of c and plans it. On a first copy
// that cannot be read it returns the recorded, failed card and the error.
func (j *Job) newSecond(c *cardRun) (*cardRun, error) {
	src := c.firstCopy()
	k := &catalog.Card{JobID: j.rec.ID, Seq: len(j.cardList()), Label: c.label(), Path: src, State: "pending", Hop: 2, FromCard: c.rec.ID}
	expect := j.expected(c.rec.ID)
	sc, err := j.scanFirstCopy(src, expect)
	if err != nil {
		k.State, k.Error = StateFailed, cascade.UnreadableError(DisplayPath(c.dests[0].root, c.out), err, false)
		if aerr := j.cat.AddCard(k); aerr != nil {
			return nil, aerr
		}
		j.cat.UpdateCard(k)
		h := j.newCardRun(&source.Card{Root: src, Label: c.label()}, k, c.out, false)
		h.from = c
		return h, err
	}
	k.Bytes, k.Files, k.VolumeID = sc.Bytes, sc.Files.Len(), sc.VolumeID
	if err := j.cat.AddCard(k); err != nil {
		return nil, err
	}
	h := j.newCardRun(sc, k, c.out, false)
	h.expect, h.from = expect, c
	if h.storeRun() {
		h.computeTotals() // against what the remote holds now
		return h, nil
	}
	for di := range h.dests {
		if _, err := h.plan(di); err != nil {
			k.State, k.Error = StateFailed, err.Error()
			j.cat.UpdateCard(k)
			return h, err
		}
	}
	h.computeTotals()
	return h, nil
}

// expected are the hashes card cardID gave in its first run
// (cascade.Expected: its records, read as they are asked for).
func (j *Job) expected(cardID int64) *cascade.Expect {
	return cascade.Expected(j.cat, cardID)
}

// scanFirstCopy scans a card's first copy with the job's filesystem,
// hidden files and ignore patterns (cascade.ScanFirstCopy).
func (j *Job) scanFirstCopy(root string, expect *cascade.Expect) (*source.Card, error) {
	return cascade.ScanFirstCopy(j.opts.FS, root, expect, j.opts.IncludeHidden, j.opts.Ignore)
}

// checkExpect compares a file read from the first copy with the hashes
// the card gave in the first run; "" when they agree (or the file is not
// one of the card's: the first run's hash lists). A file that differs has
// its first copy withdrawn at once (failFirstCopy).
func (c *cardRun) checkExpect(t *fileTask, sums hashing.Sums) string {
	if c.expect == nil {
		return ""
	}
	rel := t.plan.ent.Rel
	if rel == chainRel && c.firstRunSealed() {
		// The card's chain, which the first run's seal extended on the
		// first copy by design: its generations are checked one by one.
		return ""
	}
	m, err := c.expect.Check(rel, c.j.algos, sums)
	if err != nil {
		return err.Error() + ": the file is not checked against the card, so it is not copied on: resume the job once the catalog reads"
	}
	if m == nil {
		return ""
	}
	c.failFirstCopy(m)
	return m.FileError(DisplayPath(c.from.dests[0].root, relJoin(c.out, rel)), destList(c.dests), c.j.rec.ID)
}

// failFirstCopy withdraws the verdict on the first copy of a file the
// second run read differing from the card (m): the card's copy on the first
// first-run destination is failed, and the file with it, at once, so
// every reader of the catalog (the summary, dit job show, dit find, the
// "already offloaded" check) says the first copy is bad and the card is
// neither free nor safe to format.
func (c *cardRun) failFirstCopy(m *cascade.Mismatch) {
	d := c.from.dests[0]
	why := m.WithdrawnWhy(DisplayPath(d.root, relJoin(c.out, m.Rel)))
	c.j.cat.FailCopy(c.from.rec.ID, m.Rel, d.rec.ID, why)
}

// failLostFirstCopies withdraws the first copies of the card's files that
// the second run found gone from the first copy (lost, as expectMissing
// lists them; each checked again with a stat), as failFirstCopy does for
// one that differs.
func (c *cardRun) failLostFirstCopies(lost []string) {
	d := c.from.dests[0]
	for _, rel := range lost {
		p := filepath.Join(d.root, filepath.FromSlash(relJoin(c.out, rel)))
		if _, err := c.j.opts.FS.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		why := cascade.GoneWhy(DisplayPath(d.root, relJoin(c.out, rel)))
		c.j.cat.FailCopy(c.from.rec.ID, rel, d.rec.ID, why)
	}
}

// dropWritten removes the copies this job wrote of a file that must not be
// copied (its first copy differs from the card): a damaged file never
// carries a real name on a later destination, whether this run wrote it
// or an interrupted run did (then it was never verified). A file that is
// not dit's is left alone (it is failed all the same).
func (c *cardRun) dropWritten(t *fileTask) {
	for di, r := range t.results {
		if r.written && (r.state == StateCopied || r.state == stateRenamed || r.state == StatePresent) {
			if err := c.j.opts.FS.Remove(filepath.Join(c.dests[di].root, filepath.FromSlash(r.rel))); err == nil || errors.Is(err, os.ErrNotExist) {
				t.results[di].written = false
			}
		}
	}
}

// expectMissing lists the card's files verified in the first run that the
// first copy does not have now (cascade.Expect.Missing).
func (c *cardRun) expectMissing() ([]string, error) {
	if c.expect == nil {
		return nil, nil
	}
	return c.expect.Missing(c.list.has)
}

// waitFirstRun holds a second run until the first run of its card is over
// in this process (a resume runs both: the card, when it is mounted, is
// taken up again while its recorded second run resumes): the first run's
// records of its copies are final before the second run reads the first
// copy and withdraws those it finds differing from the card. It reports
// false if ctx ended first.
func (c *cardRun) waitFirstRun(ctx context.Context) bool {
	select {
	case <-c.from.ran:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitTurn holds a second run until one of Options.ThenParallel turns is
// free (cascade.Turns); it returns a release func, or nil if ctx ended
// first. A first run never waits.
func (j *Job) waitTurn(ctx context.Context, c *cardRun) func() {
	if !cascade.Second(c.rec) || j.turns == nil {
		return func() {}
	}
	c.phase.Store("queued")
	return j.turns.Wait(ctx)
}

// hopOf is the hop card row k's events carry (cascade.EventHop).
func hopOf(k *catalog.Card) int { return cascade.EventHop(k) }

// resumeSecond takes up a recorded second run: its first copy is scanned
// again (through the job's arrays), its files are checked against the
// card's hashes of the first run.
func (j *Job) resumeSecond(k *catalog.Card) error {
	var from *cardRun
	for _, c := range j.cards {
		if c.rec.ID == k.FromCard {
			from = c
		}
	}
	if from == nil {
		return fmt.Errorf("card %s of job %d: the second run's card (id %d) is not in the job", k.Label, j.rec.ID, k.FromCard)
	}
	expect := j.expected(k.FromCard)
	sc, err := j.scanFirstCopy(k.Path, expect)
	if err != nil {
		// The first copy is gone or does not read: the second run cannot
		// go on, and the card is not safe to format.
		k.State, k.Error = StateFailed, cascade.UnreadableError(DisplayPath(from.dests[0].root, from.out), err, true)
		j.cat.UpdateCard(k)
		h := j.newCardRun(&source.Card{Root: k.Path, Label: k.Label}, k, from.out, true)
		h.from, h.absent, h.prevState = from, true, k.State
		j.cards = append(j.cards, h)
		return nil
	}
	prevState := k.State
	k.Bytes, k.Files, k.VolumeID = sc.Bytes, sc.Files.Len(), sc.VolumeID
	h := j.newCardRun(sc, k, from.out, true)
	h.prevState, h.expect, h.from = prevState, expect, from
	if h.partials, err = j.cat.Partials(k.ID); err != nil {
		return err
	}
	j.cards = append(j.cards, h)
	return nil
}

// label is the run's card's label; a cascade's second run is told
// apart by its hop (Event.Hop, CardProgress.Hop), never by its label.
func (c *cardRun) label() string { return c.rec.Label }
