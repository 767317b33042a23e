package offload

import (
	"context"
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
func (c *cardRun) recheckAbsent(ctx context.Context) int {
	files, err := c.j.cat.Files(c.rec.ID)
	if err != nil {
		return 0
	}
	mh := hashing.NewMulti(c.j.valgos, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(c.j.opts.BlockSize), fsys.Block(c.j.opts.BlockSize)}
	bad := 0
	for _, f := range files {
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
