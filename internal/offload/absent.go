package offload

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/earlier"
	"github.com/dit-org/dit/internal/offload/resume"
)

// A resume does not need a card that was verified and is not mounted
// (absentCard), but its copies are still what its verdict rests on: the
// rules (which copies are checked, each read again unless vouched for,
// the words of a copy withdrawn) are package resume's (absent.go); this
// file reads the card's records, finds each copy's destination and
// records what the check found (catalog.FailCopy, a new identity).

// recheckAbsent reads again every copy of absent card c that an earlier
// run verified and that is not vouched for now; it returns how many it
// found bad (withdrawn).
// The card's records are read a page at a time (absentPage files), never
// the card's whole; a page that cannot be read ends the check with a
// warning that names what was not checked.
func (c *cardRun) recheckAbsent(ctx context.Context) int {
	mh := hashing.NewMulti(c.j.valgos, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(c.j.opts.BlockSize), fsys.Block(c.j.opts.BlockSize)}
	bad := 0
	for after := ""; ctx.Err() == nil; {
		files, err := c.j.cat.FilesAfter(c.rec.ID, after, absentPage)
		if err != nil {
			c.j.emit(Event{Type: EvWarning, Card: c.rec.Label, Message: fmt.Sprintf(
				"card %s: cannot read its records after %q to check its copies again (%v): those copies are not checked by this resume: run dit verify %d",
				c.rec.Label, after, err, c.j.rec.ID)})
			return bad
		}
		if len(files) == 0 {
			break
		}
		for _, f := range files {
			bad += c.recheckAbsentFile(ctx, f, bufs, mh)
		}
		after = files[len(files)-1].Rel
	}
	return bad
}

// absentPage is how many files' records recheckAbsent reads at once (a
// variable: tests make it small).
var absentPage = 256

// recheckAbsentFile reads again f's copies that an earlier run verified
// and that are not vouched for now; it returns how many it withdrew.
func (c *cardRun) recheckAbsentFile(ctx context.Context, f *catalog.File, bufs [][]byte, mh *hashing.Multi) int {
	bad := 0
	for i := range f.Copies {
		if ctx.Err() != nil {
			return bad
		}
		cp := &f.Copies[i]
		if !resume.Rechecks(f, cp) {
			continue
		}
		d := c.destByID(cp.DestID)
		if d == nil || dest.IsRemote(d.root) {
			continue
		}
		if why := c.recheckCopy(ctx, d, f, cp, bufs, mh); why != "" {
			c.j.cat.FailCopy(c.rec.ID, f.Rel, d.rec.ID, why)
			bad++
		}
	}
	return bad
}

// recheckCopy checks copy cp of f on d (resume.RecheckCopy): "" when it
// stands (a new identity recorded when it was read again), else why its
// verdict is withdrawn.
func (c *cardRun) recheckCopy(ctx context.Context, d *destination, f *catalog.File, cp *catalog.Copy, bufs [][]byte, mh *hashing.Multi) string {
	rel := cp.Path
	if rel == "" {
		rel = relJoin(c.out, f.Rel)
	}
	r := resume.RecheckCopy(ctx, resume.AbsentCopy{FS: c.j.opts.FS, Path: filepath.Join(d.root, filepath.FromSlash(rel)), Shown: DisplayPath(d.root, rel),
		File: f, Copy: cp, PrevRunDied: c.j.prevRunDied}, bufs, mh)
	if r.Reread != earlier.Trusted {
		c.rechecks[r.Reread]++
	}
	if r.Identity != "" {
		cp.Identity = r.Identity
		c.j.cat.PutCopy(c.rec.ID, f.Rel, cp)
	}
	return r.Withdrawn
}

// destByID is the card's destination whose catalog id is id, or nil.
func (c *cardRun) destByID(id int64) *destination {
	for _, d := range c.dests {
		if d.rec.ID == id {
			return d
		}
	}
	return nil
}
