package ui

import (
	"slices"

	"github.com/dit-org/dit/internal/catalog"
)

// filePageRows is how many of a card's files one read of the History's
// file table gets; filePagesHeld how many such pages it holds at most
// (the rows on screen span two or three): a card of a million frames
// opens at once and holds a few hundred files.
const (
	filePageRows  = 100
	filePagesHeld = 6
)

// filePages are a card's files as the History's table shows them: their
// count, known when the card is opened, and pages of rows read from the
// catalog in the background as the rows are shown, the least recently
// shown dropped beyond held. Its methods run on the UI goroutine.
type filePages struct {
	cat    *catalog.Catalog
	cardID int64
	count  int
	size   int // rows a page
	held   int // pages held at most
	// bg runs a read in the background (App.goBG); do runs its answer on
	// the UI goroutine (App.do); shown is called when a page has come
	// (the table drawn again), failed when a read failed.
	bg, do func(func())
	shown  func()
	failed func(error)

	pages   map[int][]*catalog.File
	used    []int // pages held, the least recently shown first
	want    []int // pages asked for, not read yet, the latest last (at most held)
	reading int   // the page being read; -1: none
	closed  bool  // another card's files replaced these: read no more
}

func newFilePages(cat *catalog.Catalog, cardID int64, count int) *filePages {
	return &filePages{cat: cat, cardID: cardID, count: count, size: filePageRows, held: filePagesHeld,
		pages: map[int][]*catalog.File{}, reading: -1}
}

// file is row i's file, or nil while its page is being read (its read
// asked for).
func (p *filePages) file(i int) *catalog.File {
	if i < 0 || i >= p.count {
		return nil
	}
	pg := i / p.size
	fs, ok := p.pages[pg]
	if !ok {
		p.ask(pg)
		return nil
	}
	p.touch(pg)
	if k := i % p.size; k < len(fs) {
		return fs[k]
	}
	return nil
}

// touch makes page pg the most recently shown.
func (p *filePages) touch(pg int) {
	if n := len(p.used); n > 0 && p.used[n-1] == pg {
		return
	}
	if k := slices.Index(p.used, pg); k >= 0 {
		p.used = slices.Delete(p.used, k, k+1)
	}
	p.used = append(p.used, pg)
}

// ask queues the read of page pg, the latest asked read first: a page
// scrolled past before its turn is dropped from the queue.
func (p *filePages) ask(pg int) {
	if pg == p.reading {
		return
	}
	if k := slices.Index(p.want, pg); k >= 0 {
		p.want = slices.Delete(p.want, k, k+1)
	}
	p.want = append(p.want, pg)
	if len(p.want) > p.held {
		p.want = slices.Delete(p.want, 0, len(p.want)-p.held)
	}
	p.next()
}

// next starts the read of the latest page asked for, one at a time. A
// page after one held is read from its last path on (a short keyed read,
// scrolling down); any other by its row number (catalog.FilesAt).
func (p *filePages) next() {
	if p.closed || p.reading >= 0 || len(p.want) == 0 {
		return
	}
	pg := p.want[len(p.want)-1]
	p.want = p.want[:len(p.want)-1]
	p.reading = pg
	after, keyed := "", pg == 0
	if prev := p.pages[pg-1]; len(prev) == p.size {
		after, keyed = prev[len(prev)-1].Rel, true
	}
	cat, card, size := p.cat, p.cardID, p.size
	p.bg(func() {
		var fs []*catalog.File
		var err error
		if keyed {
			fs, err = cat.FilesAfter(card, after, size)
		} else {
			fs, err = cat.FilesAt(card, pg*size, size)
		}
		p.do(func() { p.got(pg, fs, err) })
	})
}

// got keeps page pg as read, drops the least recently shown pages beyond
// held, has the table drawn again and reads the next page asked for (a
// page that failed is said, then asked for again when its rows are
// drawn again).
func (p *filePages) got(pg int, fs []*catalog.File, err error) {
	p.reading = -1
	if p.closed {
		return
	}
	if err != nil {
		p.failed(err)
		p.next()
		return
	}
	p.pages[pg] = fs
	p.touch(pg)
	for len(p.used) > p.held {
		delete(p.pages, p.used[0])
		p.used = p.used[1:]
	}
	p.shown()
	p.next()
}
