package source

import "iter"

// Skips are the entries a scan found and does not copy, held compact:
// their paths in a Files (front-coded, its full blocks on disk like the
// card's files: spill.go), each entry's kind and reason as the number of
// a distinct (kind, reason) pair, kept in the entry's size. A card with
// an AppleDouble "._" file beside each of a million frames (a Mac
// writing to an exFAT card) holds ~15 B an entry instead of its path and
// a reason string made for each (~100-160 B). The reasons are few: the
// scan's texts carry no path (errText).
//
// The zero Skips is empty and ready; Add is not to be called while it is
// read.
type Skips struct {
	paths *Files
	why   []Skipped         // each distinct kind and reason (Rel unset)
	num   map[[2]string]int // their numbers
	dir   string            // where the paths spill ("": memory)
}

// newSkips is an empty list whose paths spill to dir ("": none).
func newSkips(dir string) Skips { return Skips{dir: dir} }

// Add records rel as skipped for reason, of kind.
func (s *Skips) Add(rel, kind, reason string) {
	if s.paths == nil {
		s.paths = newSpilledFiles(s.dir)
		s.num = map[[2]string]int{}
	}
	k := [2]string{kind, reason}
	n, ok := s.num[k]
	if !ok {
		n = len(s.why)
		s.num[k] = n
		s.why = append(s.why, Skipped{Kind: kind, Reason: reason})
	}
	s.paths.Add(Entry{Rel: rel, Size: int64(n)})
}

// Len is how many entries were skipped (0 for a nil Skips).
func (s *Skips) Len() int {
	if s == nil {
		return 0
	}
	return s.paths.Len()
}

// All yields the skipped entries in the order the scan found them, each
// made as it is yielded.
func (s *Skips) All() iter.Seq[Skipped] {
	return func(yield func(Skipped) bool) {
		if s.Len() == 0 {
			return
		}
		for _, e := range s.paths.All() {
			w := s.why[e.Size]
			if !yield(Skipped{Rel: e.Rel, Kind: w.Kind, Reason: w.Reason}) {
				return
			}
		}
	}
}
