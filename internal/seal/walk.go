package seal

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
)

// destWalk lists the card's folder on the destination as it is now, a
// folder at a time, in the order of the card's files from the catalog:
// byte order of the whole path. A folder's entries are taken in the
// order of their name, a sub-folder's name followed by "/" (so its files
// come where their paths sort among their parent's), so the walk holds
// the listing of the folders open on the way down (bounded by the
// widest folder), never the tree. Ignored entries and what is neither a
// file nor a folder are left out.
type destWalk struct {
	ctx     context.Context
	st      ascmhl.Store
	ign     *ignore.Matcher
	stack   []destFrame
	started bool
	next    *destEvent // peeked, not taken
}

type destFrame struct {
	dir  string
	ents []destEnt
	i    int
}

// destEnt is one entry of a folder open: 24 bytes and its name (a
// folder of frames holds one a frame).
type destEnt struct {
	name  string
	mtime *time.Time // a folder's (nil: a file)
}

type evKind int

const (
	evFile  evKind = iota
	evEnter        // a folder is entered ("." first)
	evLeave        // the folder entered last is left
)

type destEvent struct {
	kind  evKind
	rel   string
	mtime time.Time // a folder's
}

func newDestWalk(ctx context.Context, st ascmhl.Store, ign *ignore.Matcher) *destWalk {
	return &destWalk{ctx: ctx, st: st, ign: ign}
}

// peek returns the next event without taking it (nil: the walk is over).
func (w *destWalk) peek() (*destEvent, error) {
	if w.next != nil {
		return w.next, nil
	}
	ev, err := w.advance()
	w.next = ev
	return ev, err
}

// take takes the event peek returned.
func (w *destWalk) take() { w.next = nil }

func (w *destWalk) advance() (*destEvent, error) {
	if !w.started {
		w.started = true
		if err := w.push("."); err != nil {
			return nil, err
		}
		return &destEvent{kind: evEnter, rel: "."}, nil
	}
	if len(w.stack) == 0 {
		return nil, nil
	}
	top := &w.stack[len(w.stack)-1]
	if top.i == len(top.ents) {
		w.stack = w.stack[:len(w.stack)-1]
		return &destEvent{kind: evLeave, rel: top.dir}, nil
	}
	e := top.ents[top.i]
	top.i++
	rel := e.name
	if top.dir != "." {
		rel = top.dir + "/" + rel
	}
	if e.mtime == nil {
		return &destEvent{kind: evFile, rel: rel}, nil
	}
	if err := w.push(rel); err != nil {
		return nil, err
	}
	return &destEvent{kind: evEnter, rel: rel, mtime: *e.mtime}, nil
}

// push lists folder dir and opens it.
func (w *destWalk) push(dir string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	var out []destEnt
	err := ascmhl.EachDirEntry(w.st, dir, func(e fs.DirEntry) error {
		rel := e.Name()
		if dir != "." {
			rel = dir + "/" + rel
		}
		if w.ign.Match(rel, e.IsDir()) {
			return nil
		}
		switch {
		case e.IsDir():
			var mt time.Time
			if fi, err := e.Info(); err == nil {
				mt = fi.ModTime()
			}
			out = append(out, destEnt{name: e.Name(), mtime: &mt})
		case e.Type().IsRegular():
			out = append(out, destEnt{name: e.Name()})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	w.stack = append(w.stack, destFrame{dir: dir, ents: out})
	return nil
}

// key is where an entry sorts among its folder's: a folder by its name
// and "/", as its files' paths do.
func (e destEnt) key() string {
	if e.mtime != nil {
		return e.name + "/"
	}
	return e.name
}
