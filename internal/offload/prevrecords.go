package offload

import (
	"fmt"
	"sync"

	"github.com/dit-org/dit/internal/catalog"
)

// prevRecords are what earlier runs of the job recorded of a card's files
// (a resume's, a card added again, a cascade's second run taken up): its
// files' states, hashes and copies, which the plan and the run read file
// by file (filePlan.prev). They are read from the catalog a window of the
// card's list at a time (prevWindow files, by path: catalog.FilesNamed),
// never the card's whole: resuming a card of a million frames holds the
// records of a window and of the files in flight, not a map of every
// file's (~400 B a file).
//
// Each pass over the card (the plan of each destination, then the run)
// asks for its files in the list's order, so a window is read at most
// once a pass (a pass starting in the window the last one ended in keeps
// it), and only files no pass has come to since are read: this run's own
// records of a file are written after the run's pass read it, so what the
// plan and the run see of a file is what the earlier runs left, as when
// the card's records were read whole before the run. A record planned on
// and gone when the run reads it fails its file (filePlan.prevErr).
type prevRecords struct {
	cat    *catalog.Catalog
	cardID int64

	mu       sync.Mutex
	from, to int // the window: the list's files [from, to)
	byRel    map[string]*catalog.File
	// windows counts the windows read (tests: once a pass, not a file).
	windows int
}

// prevWindow is how many files' records a window holds (a variable:
// tests make it small).
var prevWindow = 256

// newPrevRecords reads card cardID's records from cat as asked.
func newPrevRecords(cat *catalog.Catalog, cardID int64) *prevRecords {
	return &prevRecords{cat: cat, cardID: cardID}
}

// of is file i of list l as the earlier runs recorded it (nil: never
// recorded, or p is nil: a card new to the job).
func (p *prevRecords) of(l *planList, i int) (*catalog.File, error) {
	if p == nil {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < p.from || i >= p.to || p.byRel == nil {
		to := min(i+prevWindow, l.len())
		rels := make([]string, 0, to-i)
		for k := i; k < to; k++ {
			rels = append(rels, l.rel(k))
		}
		got, err := p.cat.FilesNamed(p.cardID, rels)
		if err != nil {
			p.byRel = nil
			return nil, fmt.Errorf("cannot read what the earlier runs recorded of %s: %w", l.rel(i), err)
		}
		p.windows++
		p.from, p.to, p.byRel = i, to, make(map[string]*catalog.File, len(got))
		for _, f := range got {
			p.byRel[f.Rel] = f
		}
	}
	return p.byRel[l.rel(i)], nil
}
