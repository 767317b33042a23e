package earlier

import (
	"errors"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/source"
)

// A card offered is matched against an earlier card like it by walking
// the catalog's records of that card as they are read
// (catalog.EachFile), never holding them: each record is found in the
// card's scan (cardIndex), and where each file's verified copy is on
// each destination is kept against the scan (copyList: the folder the
// copies are in, and the few that are elsewhere). What a card of a
// million frames holds for it is the scan's list (held anyway), a bit a
// file, and 4 bytes a file when the scan is not in byte order.

// errNoMatch stops the walk of a card's records at the first that is
// not the card offered.
var errNoMatch = errors.New("earlier: not the card")

// recordHook, when set (tests), is called with each record matchPrior
// walks, counted from 1: the memory held while it walks is measured
// there.
var recordHook func(n int)

func matchPrior(cat *catalog.Catalog, k *catalog.Card, sc *source.Card, ix *cardIndex, records *ascmhl.Records) (*Prior, error) {
	if k.Hop == 2 {
		return nil, nil // a cascade's second run: judged with its card
	}
	job, err := cat.Job(k.JobID)
	if err != nil {
		return nil, err
	}
	all, err := cat.Dests(k.JobID)
	if err != nil {
		return nil, err
	}
	// A cascade's card: its files' copies on the first-run destinations
	// are its own, those on the --then destinations its second run's.
	var dests, then []*catalog.Dest
	for _, d := range all {
		if d.Hop == 2 {
			then = append(then, d)
		} else {
			dests = append(dests, d)
		}
	}
	if len(dests) == 0 {
		return nil, nil
	}
	out, _ := dest.ExpandLayout(job.Layout, job.Name, k.Label, job.Started)
	m := newMatch(sc.Files, ix, dests, then, path.Clean(out))
	err = cat.EachFile(k.ID, nil, func(f *catalog.File) error { return m.record(f, records) })
	if errors.Is(err, errNoMatch) || err == nil && m.count != sc.Files.Len() {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// The second run's copies count where every file of the card is
	// verified there (the card's hashes checked by that run).
	if len(then) > 0 {
		if err := m.secondRun(cat, k); err != nil {
			return nil, err
		}
	}
	p := &Prior{JobID: job.ID, JobName: job.Name, Date: k.VerifyFinished, files: sc.Files}
	if p.Date.IsZero() {
		p.Date = job.Finished
	}
	for di, d := range m.dests {
		cl := m.lists[di]
		if cl.n != sc.Files.Len() {
			continue // a file of the card has no verified copy there
		}
		if job.MHL == "asc" || job.MHL == "both" {
			// The card's ASC MHL history is part of the copy: a copy
			// whose history is gone is not whole (its size is any).
			cl.extra = append(cl.extra, priorCopy{rel: path.Join(cl.chain, ascmhl.HistoryDir, ascmhl.ChainFile), size: -1})
		}
		p.Dests = append(p.Dests, filepath.Join(d.Path, filepath.FromSlash(path.Clean(out))))
		p.destRoots = append(p.destRoots, d.Path)
		p.copies = append(p.copies, cl)
	}
	return p, nil
}

// match is matchPrior's walk of an earlier card's records against the
// card offered (files, found through ix).
type match struct {
	files *source.Files
	ix    *cardIndex
	// dests are the earlier job's first-run destinations (the first
	// first of them) then its second run's; lists each one's copies.
	dests []*catalog.Dest
	first int
	at    map[int64]int // a destination's index in dests, by id
	lists []copyList
	count int    // the records walked
	seen  bitset // the card's files a record was found for
	// firstRel is the path of the first record (its copy's folder is
	// where the card's history is).
	firstRel string
}

func newMatch(files *source.Files, ix *cardIndex, dests, then []*catalog.Dest, folder string) *match {
	m := &match{files: files, ix: ix, dests: slices.Concat(dests, then), first: len(dests), at: map[int64]int{}, seen: newBitset(files.Len())}
	m.lists = make([]copyList, len(m.dests))
	for i, d := range m.dests {
		m.at[d.ID] = i
		m.lists[i].chain = folder
	}
	return m
}

// record takes the earlier card's next record f: errNoMatch unless it is
// a file of the card offered, with its size and time, verified, with a
// verified copy on every first-run destination and the hashes the card's
// own history records (those the catalog has).
func (m *match) record(f *catalog.File, records *ascmhl.Records) error {
	m.count++
	if recordHook != nil {
		recordHook(m.count)
	}
	if m.count > m.files.Len() {
		return errNoMatch
	}
	i := m.ix.find(f.Rel)
	if i < 0 || m.seen.has(i) {
		return errNoMatch
	}
	m.seen.set(i)
	e := m.files.At(i)
	if f.Size != e.Size || f.Mtime.UnixNano() != e.Mtime.UnixNano() || f.State != summary.StateVerified {
		return errNoMatch
	}
	if r := records.Get(f.Rel); r != nil {
		for a, v := range r.Values {
			if s := f.Sums.Get(a); s != "" && s != v {
				return errNoMatch
			}
		}
	}
	if m.count == 1 {
		m.firstRel = strings.Clone(f.Rel)
	}
	n := 0
	for _, cp := range f.Copies {
		di, ok := m.at[cp.DestID]
		if !ok || di >= m.first {
			continue
		}
		if cp.State != summary.StateVerified {
			return errNoMatch
		}
		n++
		m.lists[di].add(i, f.Rel, cp.Path, m.count == 1)
	}
	if n != m.first {
		return errNoMatch
	}
	return nil
}

// secondRun adds the copies card k's second run (a cascade) verified on
// its destinations, of the files it verified with the card's size.
func (m *match) secondRun(cat *catalog.Catalog, k *catalog.Card) error {
	h, err := secondRunCard(cat, k)
	if err != nil || h == 0 {
		return err
	}
	seen := newBitset(m.files.Len())
	return cat.EachFile(h, nil, func(g *catalog.File) error {
		i := m.ix.find(g.Rel)
		if i < 0 || seen.has(i) {
			return nil // not a file of the card: no matter
		}
		seen.set(i)
		if g.State != summary.StateVerified || g.Size != m.files.Size(i) {
			return nil
		}
		for _, cp := range g.Copies {
			if di, ok := m.at[cp.DestID]; ok && di >= m.first && cp.State == summary.StateVerified {
				m.lists[di].add(i, g.Rel, cp.Path, m.count > 0 && g.Rel == m.firstRel)
			}
		}
		return nil
	})
}

// secondRunCard is the card of card k's second run (a cascade), 0 when
// it has none that counts.
func secondRunCard(cat *catalog.Catalog, k *catalog.Card) (int64, error) {
	cards, err := cat.Cards(k.JobID)
	if err != nil {
		return 0, err
	}
	for _, h := range cards {
		// Only a second run that ended verified (its hash lists written
		// too) counts: one that failed or is still sealing is not.
		if h.Hop == 2 && h.FromCard == k.ID && h.State == summary.StateVerified {
			return h.ID, nil
		}
	}
	return 0, nil
}

// priorCopy is a copy an earlier job left on a destination that is no
// file of the card (its ASC MHL history), relative to the destination
// root, and its size.
type priorCopy struct {
	rel  string
	size int64 // -1: any (the card's hash list)
}

// copyList is where an earlier job put each file's verified copy on one
// destination (relative to the destination root), held against the
// card's scan: file i's copy is base/its path, with the size the scan
// found (the record's), unless moved names it (--on-conflict rename
// gave it another name).
type copyList struct {
	base    string
	hasBase bool
	moved   map[int]string
	extra   []priorCopy
	n       int    // the files with a copy here
	chain   string // the folder of the card's first file's copy
}

// add is file i's (path rel) copy at cp; first: the card's first file.
func (cl *copyList) add(i int, rel, cp string, first bool) {
	dir, ok := "", false
	switch {
	case strings.HasSuffix(cp, "/"+rel):
		dir, ok = strings.TrimSuffix(cp, "/"+rel), true
		if first {
			// The card's folder is where its copies are (the layout
			// may hold {host}, another station's).
			cl.chain = dir
		}
	case cp == rel:
		dir, ok = ".", true
	}
	if ok && !cl.hasBase {
		cl.base, cl.hasBase = dir, true
	}
	if !ok || dir != cl.base {
		if cl.moved == nil {
			cl.moved = map[int]string{}
		}
		cl.moved[i] = cp
	}
	cl.n++
}

// intact reports whether every file's verified copy is still where the
// earlier job put it below root, with its size (what a stat can tell; a
// read-back is dit verify's work), and the copies of no file too.
func (cl *copyList) intact(fsy fsys.FS, root string, files *source.Files) bool {
	if files.Len() == 0 && len(cl.extra) == 0 {
		return false
	}
	for i, e := range files.All() {
		rel, ok := cl.moved[i]
		if !ok {
			rel = cl.base + "/" + e.Rel
		}
		if !present(fsy, root, rel, e.Size) {
			return false
		}
	}
	for _, c := range cl.extra {
		if !present(fsy, root, c.rel, c.size) {
			return false
		}
	}
	return true
}

// present reports whether rel below root is a regular file of size
// (-1: any).
func present(fsy fsys.FS, root, rel string, size int64) bool {
	fi, err := fsy.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular() && (size < 0 || fi.Size() == size)
}

// cardIndex finds a file of a card's scan by its path (source.PathIndex):
// records read in path order are found with one comparison each, any
// other order by a binary search. The catalog's order is not relied on
// (a PostgreSQL column's collation may differ).
type cardIndex struct {
	files *source.Files
	ix    *source.PathIndex
	next  int // the place after the last path found
}

func newCardIndex(files *source.Files) *cardIndex {
	return &cardIndex{files: files, ix: source.NewPathIndex(files)}
}

// find is the scan's index of the file whose path is rel, -1 if none.
func (ix *cardIndex) find(rel string) int {
	k := ix.next
	if k >= ix.files.Len() || ix.files.ComparePath(ix.ix.At(k), rel) != 0 {
		var found bool
		if k, found = ix.ix.Search(rel); !found {
			return -1
		}
	}
	ix.next = k + 1
	return ix.ix.At(k)
}

// bitset is a bit a file.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
