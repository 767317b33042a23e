package offload

import (
	"errors"
	"fmt"

	"github.com/dit-org/dit/internal/catalog"
)

// EvCardAdded is emitted when a card joins a running job (AddCard).
const EvCardAdded EventType = "card_added"

// ErrNotRunning is returned by AddCard when the job is not (or no longer)
// running: start a new job for the card.
var ErrNotRunning = errors.New("the job is not running")

// ErrCardNotInJob is returned (wrapped) by RetryCard for a card path the
// running job does not have: add it instead (AddCard).
var ErrCardNotInJob = errors.New("the card is not in the job")

// AddCard adds a card to a running job: it is checked like the cards given
// at the start (path, overlaps, its own folder on every destination, free
// space), recorded, and starts copying at once on its own pipeline. Its
// index (for a Limiter) is the next one after the job's cards. Front ends
// call it when a card is inserted mid-job; the scheduler re-plans on the
// EvCardAdded event.
func (j *Job) AddCard(path string) (string, error) {
	j.runMu.Lock()
	defer j.runMu.Unlock()
	// Before Run has started (a front end's Add card pressed in the first
	// moments of a job) the card joins the job and starts with the others.
	if j.finishing || (j.runCtx != nil && j.runCtx.Err() != nil) || j.rec.State != catalog.JobRunning {
		return "", fmt.Errorf("cannot add %s: %w", path, ErrNotRunning)
	}
	cards := j.cardList()
	paths := make([]string, 0, len(cards)+1)
	for _, c := range cards {
		paths = append(paths, c.scan.Root)
	}
	roots := make([]string, len(j.dests))
	for i, d := range j.dests {
		roots[i] = d.root
	}
	cp, _, err := checkPaths(j.opts.FS, append(paths, path), roots)
	if err != nil {
		return "", err
	}
	abs := cp[len(cp)-1]
	sc, records, err := ScanCard(j.opts.FS, abs, j.opts.IncludeHidden, j.opts.Ignore...)
	if err != nil {
		return "", err
	}
	out, err := ExpandLayout(j.opts.Layout, j.rec.Name, sc.Label, j.rec.Started)
	if err != nil {
		return "", err
	}
	if err := checkPathLengths(sc, roots, out); err != nil {
		return "", err
	}
	for _, c := range cards {
		if foldName(c.out) == foldName(out) {
			return "", usageErrorf("cards %s and %s would both land in %q: rename one card folder or use a --layout that tells them apart", c.scan.Root, abs, out)
		}
	}
	k := &catalog.Card{JobID: j.rec.ID, Seq: len(cards), Label: sc.Label, Path: abs, VolumeID: sc.VolumeID,
		Bytes: sc.Bytes, Files: sc.Files.Len(), State: "pending"}
	c := j.newCardRun(sc, k, out, false)
	c.history = records
	for di, d := range c.dests {
		need, err := c.plan(di)
		if err != nil {
			return "", err
		}
		if free, _, err := j.opts.FS.Free(d.root); err == nil {
			if msg := spaceShortfall(need, int64(free)); msg != "" {
				return "", fmt.Errorf("not enough space on %s for card %s: %s: free space or choose another destination", d.root, sc.Label, msg)
			}
		}
	}
	for _, d := range j.hopDests(2) { // the cascade's second run
		if free, _, err := j.opts.FS.Free(d.root); err == nil {
			if msg := spaceShortfall(sc.Bytes, int64(free)); msg != "" {
				return "", fmt.Errorf("not enough space on %s (second run) for card %s: %s: free space or choose another destination", d.root, sc.Label, msg)
			}
		}
	}
	c.computeTotals()
	if err := j.cat.AddCard(k); err != nil {
		return "", err
	}
	j.cardsMu.Lock()
	j.cards = append(j.cards, c)
	j.cardsMu.Unlock()
	j.emit(Event{Type: EvCardAdded, Card: sc.Label, Path: abs, Bytes: c.copyTotal})
	if j.runCtx != nil {
		j.startCard(c)
	}
	return sc.Label, nil
}

// CardRemoved tells the job that the card at path was removed (its volume
// unmounted, the reader unplugged): its files still to read fail at once
// with "card removed", nothing partial is kept, and the other cards go on.
// hint says what to do (e.g. "insert it again: dit watch resumes it");
// "" gives the resume command. A card that is not copying is left alone.
func (j *Job) CardRemoved(path, hint string) bool {
	for _, c := range j.cardList() {
		if c.scan.Root != path || c.rec.Hop == 2 {
			continue
		}
		phase, _ := c.phase.Load().(string)
		if phase != "copying" && phase != "verifying" && phase != "pending" {
			return false
		}
		if hint == "" {
			hint = "reinsert it and run " + j.ResumeCommand()
		}
		c.mu.Lock()
		if c.cardErr == "" {
			c.cardErr = fmt.Sprintf("card %s removed (%s unmounted) after %d of %d files: %s", c.rec.Label, path, c.readOK.Load(), c.cardCounts.files, hint)
		}
		c.mu.Unlock()
		return true
	}
	return false
}

// RetryCard runs again a card of the running job whose run ended without
// it being verified (removed, failed): it is scanned again and, as on
// resume, copies verified before are not read again; the rest is copied
// and verified. A card whose files changed since (another card under the
// same name) is refused: offload it as a new card.
func (j *Job) RetryCard(path string) error {
	j.runMu.Lock()
	defer j.runMu.Unlock()
	if j.finishing || j.runCtx == nil || j.runCtx.Err() != nil {
		return fmt.Errorf("cannot retry %s: %w", path, ErrNotRunning)
	}
	var old *cardRun
	idx := -1
	for i, c := range j.cardList() {
		if c.scan.Root == path && c.rec.Hop <= 1 {
			old, idx = c, i
		}
	}
	if old == nil {
		return fmt.Errorf("cannot retry %s in job %d: %w", path, j.rec.ID, ErrCardNotInJob)
	}
	if phase, _ := old.phase.Load().(string); phase != "done" {
		return fmt.Errorf("card %s is still %s in job %d", old.rec.Label, phase, j.rec.ID)
	}
	if old.rec.State == StateVerified {
		return fmt.Errorf("card %s is already verified in job %d", old.rec.Label, j.rec.ID)
	}
	sc, records, err := ScanCard(j.opts.FS, path, j.opts.IncludeHidden, j.opts.Ignore...)
	if err != nil {
		return err
	}
	if sc.Label != old.rec.Label {
		return usageErrorf("%s is card %s now, not %s: offload it as a new card", path, sc.Label, old.rec.Label)
	}
	k := old.rec
	prevState := k.State
	k.Bytes, k.Files, k.VolumeID, k.Error = sc.Bytes, sc.Files.Len(), sc.VolumeID, ""
	c := j.newCardRun(sc, k, old.out, true)
	c.prevState, c.history = prevState, records
	if c.partials, err = j.cat.Partials(k.ID); err != nil {
		return err
	}
	for di := range c.dests {
		if _, err := c.plan(di); err != nil {
			return err
		}
	}
	c.computeTotals()
	j.cardsMu.Lock()
	j.cards[idx] = c
	j.retired = append(j.retired, old) // its last bytes still to sample
	j.cardsMu.Unlock()
	j.emit(Event{Type: EvCardRetried, Card: c.label(), Hop: hopOf(c.rec), Path: path, Bytes: c.copyTotal})
	j.startCard(c)
	return nil
}
