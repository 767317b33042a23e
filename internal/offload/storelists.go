package offload

import (
	"context"
	"path"

	"github.com/dit-org/dit/internal/offload/dest"
)

// What a store run knows of the objects a destination holds is read a
// folder at a time (dest.Store.ListDir: the objects directly in one of
// the card's folders, on S3 one delimited listing of its prefix, a
// request a thousand keys), as the run's windows come to the folder, and
// let go once they are past it (a storeLister keeps the last few
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

// storeDirsKept is how many folders' listings a storeLister keeps: a
// folder's files may come in two runs, a folder of it between them (a
// folder come to again after more is listed again).
const storeDirsKept = 2

// storeLister lists, for one destination, the folders of the card's
// files as a run comes to them, keeping the last few.
type storeLister struct {
	st  dest.Store
	out string // the card's folder there
	// lenient: a folder that cannot be listed holds nothing, nor do
	// those after it, not listed (planStore's look: a remote not there
	// is asked once); else its error is the lookup's.
	lenient, failed bool
	dirs            []listedDir // the most recent last
}

// listedDir is a folder's listing.
type listedDir struct {
	dir  string
	objs map[string]dest.Object
}

// storeListers are a lister for each of the run's destinations.
func (c *cardRun) storeListers(lenient bool) []*storeLister {
	out := make([]*storeLister, len(c.dests))
	for di := range c.dests {
		st := c.stores[di]
		if lenient {
			st = st.Once()
		}
		out[di] = &storeLister{st: st, out: c.out, lenient: lenient}
	}
	return out
}

// lookup is the object at the card's file rel there, and whether there
// is one.
func (l *storeLister) lookup(ctx context.Context, rel string) (dest.Object, bool, error) {
	dir, name := path.Split(relJoin(l.out, rel))
	dir = trimSlash(dir)
	for _, d := range l.dirs {
		if d.dir == dir {
			o, ok := d.objs[name]
			return o, ok, nil
		}
	}
	if l.failed {
		return dest.Object{}, false, nil
	}
	objs, err := l.st.ListDir(ctx, dir)
	if err != nil {
		if !l.lenient {
			return dest.Object{}, false, err
		}
		l.failed = true // nothing held, and not asked again
	}
	if len(l.dirs) == storeDirsKept {
		l.dirs = append(l.dirs[:0], l.dirs[1:]...)
	}
	l.dirs = append(l.dirs, listedDir{dir: dir, objs: objs})
	o, ok := objs[name]
	return o, ok, nil
}

// folder is the folder the card's file rel is in there, for messages.
func (l *storeLister) folder(rel string) string {
	return trimSlash(path.Dir(relJoin(l.out, rel)))
}

// storeHeld is what destination di holds of the files (those not final
// there): their objects, by the card's path, and whether it could be
// listed; a folder that cannot be listed takes the destination down
// (after: when, in its message) and fails the files not final there.
func (c *cardRun) storeHeld(ctx context.Context, l *storeLister, di int, files []*storeFile, after string) (map[string]dest.Object, bool) {
	held := make(map[string]dest.Object, len(files))
	for _, f := range files {
		if f.done[di] || f == c.storeChain {
			continue
		}
		o, ok, err := l.lookup(ctx, f.fp.ent.Rel)
		if err != nil {
			if ctx.Err() == nil {
				// Down from now on (the windows to come fail as they are
				// made); the window's files fail here, on di alone (the
				// other destinations' may be verifying them).
				why := "cannot list " + storePath(c.dests[di], l.folder(f.fp.ent.Rel)) + after + ": " + err.Error()
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
