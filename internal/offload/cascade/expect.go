package cascade

import (
	"iter"
	"maps"
	"path"
	"path/filepath"
	"sort"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/earlier"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/source"
)

// Expect are the hashes the card gave in its first run, by the file's
// path on the card: every file the second run reads from the first copy
// must have them.
type Expect map[string]hashing.Sums

// Expected are the expectations of a second run, from its card's records
// of the first run (files): every file verified there, and every file
// read whole from the card whose copy failed since (withdrawn by a
// second run or dit verify: it has the card's hashes), so a resumed
// second run never copies such a first copy unchecked.
func Expected(files []*catalog.File) Expect {
	out := make(Expect, len(files))
	for _, f := range files {
		if f.State == summary.StateVerified || (f.State == summary.StateFailed && len(f.Sums.Algos()) > 0) {
			out[f.Rel] = f.Sums
		}
	}
	return out
}

// Of is what the card gave for rel in the first run, if rel is one of
// its files.
func (e Expect) Of(rel string) (hashing.Sums, bool) {
	s, ok := e[rel]
	return s, ok
}

// Rels are the paths expected, in no order.
func (e Expect) Rels() iter.Seq[string] { return maps.Keys(e) }

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
// with the first copy), or when no algorithm is known on both sides.
func (e Expect) Check(rel string, algos []hashing.Algo, sums hashing.Sums) *Mismatch {
	want, ok := e[rel]
	if !ok {
		return nil
	}
	return Compare(rel, algos, want, sums)
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
func (e Expect) Missing(has func(rel string) bool) []string {
	var out []string
	for rel := range e {
		if !has(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// ScanFirstCopy scans a card's first copy at root as the second run
// reads it: every file of the card is kept whatever its name (the OS
// files the card's history listed included), with the card's hidden
// files and ignore patterns, and the first run's hash lists go along, so
// the second run's history extends the first copy's. The card keeps its
// name (the first copy's folder's).
func ScanFirstCopy(fsy fsys.FS, root string, e Expect, includeHidden bool, ignore []string) (*source.Card, error) {
	sc, err := source.Scan(fsy, root, earlier.ScanOptions(includeHidden, e.Rels(), ignore))
	if err != nil {
		return nil, err
	}
	sc.Label = path.Base(filepath.ToSlash(root))
	return sc, nil
}
