package offload

import (
	"context"

	"github.com/dit-org/dit/internal/offload/dest"
)

// What a store run knows of the objects a destination holds is read a
// folder at a time (dest.Store.ListDir: the objects directly in one of
// the card's folders, on S3 one delimited listing of its prefix, a
// request a thousand keys), as the run's windows come to the folder, and
// let go once they are past it (a dest.Lister keeps the last few
// folders listed): never a listing of the card's whole folder, which
// would hold an entry a file of the card (~130-400 B with its decode).
// A window keeps, of those listings, its own files' objects only
// (storeHeld). Each phase lists the folders again as it comes to them:
//
//   - planStore, for its totals (a folder that cannot be listed counts
//     as holding nothing);
//   - the upload, before it sends (never over an object already there;
//     those that verify by the storage's MD5 are not sent again): a
//     folder that cannot be listed takes the destination down;
//   - the read-back (verifyWindows), after every upload, for the files
//     not final there only.
//
// On a card of frames in folders of ~1,000 that is three listings of
// each folder (as many requests) where the listings of the card's
// folder were two (planStore's was kept for the upload), a request a
// thousand keys each.

// storeListers are a lister for each of the run's destinations
// (dest.Lister: the last dest.ListsKept folders listed kept).
func (c *cardRun) storeListers(lenient bool) []*dest.Lister {
	out := make([]*dest.Lister, len(c.dests))
	for di := range c.dests {
		st := c.stores[di]
		if lenient {
			st = st.Once()
		}
		out[di] = dest.NewLister(st, c.out, lenient)
	}
	return out
}

// storeHeld is what destination di holds of the files (those not final
// there): their objects, by the card's path, and whether it could be
// listed; a folder that cannot be listed takes the destination down
// (after: when, in its message) and fails the files not final there.
func (c *cardRun) storeHeld(ctx context.Context, l *dest.Lister, di int, files []*storeFile, after string) (map[string]dest.Object, bool) {
	held := make(map[string]dest.Object, len(files))
	for _, f := range files {
		if f.done[di] || f == c.storeChain {
			continue
		}
		o, ok, err := l.Lookup(ctx, f.fp.ent.Rel)
		if err != nil {
			if ctx.Err() == nil {
				// Down from now on (the windows to come fail as they are
				// made); the window's files fail here, on di alone (the
				// other destinations' may be verifying them).
				why := "cannot list " + storePath(c.dests[di], l.Folder(f.fp.ent.Rel)) + after + ": " + err.Error()
				c.storeDown(di, why, nil)
				for _, f := range files {
					if !f.done[di] {
						f.res[di].rel = relJoin(c.out, f.fp.ent.Rel)
						c.failedStore(di, f, why)
					}
				}
			}
			return nil, false
		}
		if ok {
			held[f.fp.ent.Rel] = o
		}
	}
	return held, true
}

// isDown: destination di is down (storeDown).
func (c *cardRun) isDown(di int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down[di] != ""
}
