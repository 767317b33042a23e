package offload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/earlier"
)

// A resume does not need a card that was verified and is not mounted
// (absentCard): it has gone back to the camera, or, in a cascade, it is
// free and the second run reads its first copy. Its copies are still
// what its verdict rests on: one that is not the file that was read back
// (its identity changed since, or nothing vouches for it after a run
// that died: earlier.Vouch) is read again from its medium and compared
// with the card's hashes, as a mounted card's copy would be (planVerified).
// A copy that differs, or is gone, has its verdict withdrawn at once
// (catalog.FailCopy): the card is neither free nor safe to format, and the
// message says to keep it. Copies on remotes have no identity to compare:
// dit verify reads them.

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
		if f.State != StateVerified || f.Rel == chainRel {
			// The card's ASC MHL chain: the seal extends its copies by
			// design (planVerified's sealedChain needs the card).
			continue
		}
		for i := range f.Copies {
			if ctx.Err() != nil {
				return bad
			}
			cp := &f.Copies[i]
			d := c.destByID(cp.DestID)
			if d == nil || cp.State != StateVerified || dest.IsRemote(d.root) {
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

// recheckCopy checks copy cp of f on d: "" when it is vouched for, or
// read again and equal to the card's hashes (its new identity recorded);
// else why its verdict is withdrawn.
func (c *cardRun) recheckCopy(ctx context.Context, d *destination, f *catalog.File, cp *catalog.Copy, bufs [][]byte, mh *hashing.Multi) string {
	rel := cp.Path
	if rel == "" {
		rel = relJoin(c.out, f.Rel)
	}
	p := filepath.Join(d.root, filepath.FromSlash(rel))
	shown := DisplayPath(d.root, rel)
	fi, err := c.j.opts.FS.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("the copy %s is gone (found by the resume): it was verified, and is no longer there; keep the card and copy it again", shown)
	case err != nil:
		return fmt.Sprintf("the copy %s cannot be checked (found by the resume): %v; keep the card", shown, err)
	case !fi.Mode().IsRegular() || fi.Size() != f.Size:
		return fmt.Sprintf("the copy %s is not the file that was verified (found by the resume: %d bytes, the card's file %d); keep the card and copy it again", shown, fi.Size(), f.Size)
	}
	why := c.j.vouch(cp, fi)
	if why == earlier.Trusted {
		return ""
	}
	c.rechecks[why]++
	got, n, err := dest.HashFile(ctx, c.j.opts.FS, p, f.Size, bufs, mh, nil, func(int) {})
	if ctx.Err() != nil {
		return ""
	}
	switch {
	case err != nil:
		return fmt.Sprintf("the copy %s cannot be read again (found by the resume): %v; keep the card and copy it again", shown, err)
	case n != f.Size:
		return fmt.Sprintf("the copy %s gave %d bytes of %d when read again (found by the resume); keep the card and copy it again", shown, n, f.Size)
	}
	if _, a, ok := got.Compare(f.Sums); !ok {
		return fmt.Sprintf("the copy %s differs from the card (found by the resume): %s %s read from the card, %s from the copy: it changed since it was verified; keep the card and copy it again",
			shown, a, f.Sums.Get(a), got.Get(a))
	}
	// The same bytes: this file is now the one verified.
	if after, err := c.j.opts.FS.Lstat(p); err == nil {
		if id := fsys.Identity(after); id == fsys.Identity(fi) {
			cp.Identity = id
			c.j.cat.PutCopy(c.rec.ID, f.Rel, cp)
		}
	}
	return ""
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
