package offload

import (
	"errors"
	"fmt"

	"github.com/dit-org/dit/internal/catalog"
)

// EvCardAdded is emitted when a card joins a running job (AddCard).
const EvCardAdded = "card_added"

// ErrNotRunning is returned by AddCard when the job is not (or no longer)
// running: start a new job for the card.
var ErrNotRunning = errors.New("the job is not running")

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
	for _, c := range cards {
		if foldName(c.out) == foldName(out) {
			return "", usageErrorf("cards %s and %s would both land in %q: rename one card folder or use a --layout that tells them apart", c.scan.Root, abs, out)
		}
	}
	k := &catalog.Card{JobID: j.rec.ID, Seq: len(cards), Label: sc.Label, Path: abs, VolumeID: sc.VolumeID,
		Bytes: sc.Bytes, Files: len(sc.Files), State: "pending"}
	c := j.newCardRun(sc, k, out, nil)
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
