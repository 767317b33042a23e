package dest

import (
	"context"
	"path"
	"strings"
)

// ListsKept is how many folders' listings a [Lister] keeps: a folder's
// files may come in two runs, a folder of it between them (a folder
// come to again after more is listed again).
const ListsKept = 2

// Lister is what a [Store] holds of a card's files, read a folder at a
// time as a walk of the files comes to each folder (Store.ListDir: on
// S3 one delimited listing of its prefix, a request a thousand keys),
// keeping the last ListsKept folders listed: never the card's whole
// folder, which would hold an entry a file of the card (~130-400 B with
// its decode). A walk in path order (the catalog's) lists each folder
// once, or again when it comes back to one after ListsKept others. The
// store run (package offload) and dit verify (package recheck) read the
// remote through it. A Lister is for one goroutine.
type Lister struct {
	st  Store
	out string // the card's folder there
	// lenient: a folder that cannot be listed holds nothing, nor do
	// those after it, not listed (a plan's look: a remote not there is
	// asked once); else its error is the lookup's.
	lenient, failed bool
	dirs            []listedDir // the most recent last
}

// listedDir is a folder's listing.
type listedDir struct {
	dir  string
	objs map[string]Object
}

// NewLister is the Lister of the files under out on st (out "": names
// are relative to the store's root); lenient: see [Lister].
func NewLister(st Store, out string, lenient bool) *Lister {
	return &Lister{st: st, out: out, lenient: lenient}
}

// Lookup is the object at rel (relative to the Lister's folder), and
// whether there is one; its folder is listed unless it is among the
// last listed. The error is the listing's (never lenient's).
func (l *Lister) Lookup(ctx context.Context, rel string) (Object, bool, error) {
	dir, name := l.split(rel)
	for _, d := range l.dirs {
		if d.dir == dir {
			o, ok := d.objs[name]
			return o, ok, nil
		}
	}
	if l.failed {
		return Object{}, false, nil
	}
	objs, err := l.st.ListDir(ctx, dir)
	if err != nil {
		if !l.lenient {
			return Object{}, false, err
		}
		l.failed = true // nothing held, and not asked again
	}
	if len(l.dirs) == ListsKept {
		l.dirs = append(l.dirs[:0], l.dirs[1:]...)
	}
	l.dirs = append(l.dirs, listedDir{dir: dir, objs: objs})
	o, ok := objs[name]
	return o, ok, nil
}

// Folder is the folder rel is in on the store (relative to its root,
// "" the root), the one Lookup lists, for messages.
func (l *Lister) Folder(rel string) string {
	dir, _ := l.split(rel)
	return dir
}

// split is rel's folder on the store and its name there.
func (l *Lister) split(rel string) (dir, name string) {
	dir, name = path.Split(path.Join(l.out, rel))
	return strings.TrimSuffix(dir, "/"), name
}
