package cascade

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/earlier"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/source"
)

// Expect are the hashes the card gave in its first run, by the file's
// path on the card: every file the second run reads from the first copy
// must have them. They are the first run's records of the card
// (Expected: every file verified there, and every file read whole from
// the card whose copy failed since, withdrawn by a second run or dit
// verify: it has the card's hashes, so a resumed second run never copies
// such a first copy unchecked).
//
// They are read a page of paths at a time, from the path asked on in the
// paths' byte order (expectPage paths: the catalog's order on both
// backends), never the card's whole: the second run asks in its list's
// order, which for a card of frames is the paths', so a page serves the
// next expectPage files; any other order only reads more pages. A card
// of a million frames holds a page, not ~250 B a file. A failed read is
// returned to the caller, which fails what it could not check.
type Expect struct {
	src expectSource

	mu     sync.Mutex
	lo, hi string // the page held: the paths from lo to hi (to the end if last)
	last   bool
	held   bool
	page   map[string]hashing.Sums
}

// expectSource gives a card's records of the first run in the paths' byte
// order: from, the first n paths at or after from (page), or every one
// (all).
type expectSource interface {
	page(from string, n int) ([]expectRow, error)
	all(fn func(expectRow) error) error
}

// An expectRow is a record of the first run: a path, its state and hashes.
type expectRow struct {
	rel   string
	state string
	sums  hashing.Sums
}

// expected says whether the record is one the second run expects.
func (r expectRow) expected() bool {
	return r.state == summary.StateVerified || (r.state == summary.StateFailed && len(r.sums.Algos()) > 0)
}

// expectPage is how many paths a page of Expect reads (a variable: tests
// make it small).
var expectPage = 256

// Expected are the expectations of a second run: card cardID's records of
// the first run in cat, read as they are asked for.
func Expected(cat *catalog.Catalog, cardID int64) *Expect {
	return &Expect{src: catalogRecords{cat: cat, cardID: cardID}}
}

// Of is what the card gave for rel in the first run, if rel is one of
// its files.
func (e *Expect) Of(rel string) (hashing.Sums, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.held || rel < e.lo || (rel > e.hi && !e.last) {
		rows, err := e.src.page(rel, expectPage)
		if err != nil {
			e.held = false
			return hashing.Sums{}, false, fmt.Errorf("cannot read the card's hashes of the first run for %s: %w", rel, err)
		}
		e.lo, e.last, e.held, e.page = rel, len(rows) < expectPage, true, make(map[string]hashing.Sums, len(rows))
		e.hi = rel
		for _, r := range rows {
			if r.expected() {
				e.page[r.rel] = r.sums
			}
			e.hi = r.rel
		}
	}
	s, ok := e.page[rel]
	return s, ok, nil
}

// Keeps says whether rel, a name the scan would leave out as an OS file,
// is one of the card's files the first run verified, or a folder of one:
// the second run copies it all the same (ScanFirstCopy). A record that
// cannot be read keeps it (copied rather than lost).
func (e *Expect) Keeps(rel string) bool {
	if _, ok, err := e.Of(rel); ok || err != nil {
		return true
	}
	dir := rel + "/"
	for from := dir; ; {
		rows, err := e.src.page(from, expectPage)
		if err != nil {
			return true
		}
		for _, r := range rows {
			if !strings.HasPrefix(r.rel, dir) {
				return false
			}
			if r.expected() {
				return true
			}
		}
		if len(rows) < expectPage || rows[len(rows)-1].rel == from {
			return false
		}
		from = rows[len(rows)-1].rel // read again: a page starts at its path
	}
}

// A Mismatch is a file read from the first copy whose hash is not the
// one the card gave for it in the first run: the first copy changed
// since it was verified.
type Mismatch struct {
	Rel  string
	Algo hashing.Algo
	// Card is the hash the card gave in the first run, FirstCopy the one
	// read now from the first copy.
	Card, FirstCopy string
}

// Check compares sums, read from the first copy for the card's file rel,
// with the card's of the first run, algorithm by algorithm in the order
// of algos (the job's). It returns nil when they agree, when rel is not
// one of the card's files (the first run's hash lists, which go along
// with the first copy), or when no algorithm is known on both sides; an
// error when the card's hashes cannot be read (the file is not checked).
func (e *Expect) Check(rel string, algos []hashing.Algo, sums hashing.Sums) (*Mismatch, error) {
	want, ok, err := e.Of(rel)
	if !ok || err != nil {
		return nil, err
	}
	return Compare(rel, algos, want, sums), nil
}

// Compare compares got, read from the first copy for the card's file
// rel, with want, the card's hashes of it in the first run, algorithm by
// algorithm in the order of algos: nil when no algorithm known on both
// sides differs.
func Compare(rel string, algos []hashing.Algo, want, got hashing.Sums) *Mismatch {
	for _, a := range algos {
		w, g := want.Get(a), got.Get(a)
		if w == "" || g == "" || w == g {
			continue
		}
		return &Mismatch{Rel: rel, Algo: a, Card: w, FirstCopy: g}
	}
	return nil
}

// Missing lists, sorted, the card's files of the first run that has
// (what the first copy holds now) does not: the first copy lost them.
// The records are read as they come; only the lost paths are kept.
func (e *Expect) Missing(has func(rel string) bool) ([]string, error) {
	var out []string
	err := e.src.all(func(r expectRow) error {
		if r.expected() && !has(r.rel) {
			out = append(out, r.rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the card's files of the first run: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// ScanFirstCopy scans a card's first copy at root as the second run
// reads it: every file of the card is kept whatever its name (the OS
// files the card's history listed included), with the card's hidden
// files and ignore patterns, and the first run's hash lists go along, so
// the second run's history extends the first copy's. The card keeps its
// name (the first copy's folder's).
func ScanFirstCopy(fsy fsys.FS, root string, e *Expect, includeHidden bool, ignore []string) (*source.Card, error) {
	opt := earlier.ScanOptions(includeHidden, e.Keeps, ignore)
	sc, err := source.Scan(fsy, root, opt)
	if err != nil {
		return nil, err
	}
	sc.Label = path.Base(filepath.ToSlash(root))
	return sc, nil
}
