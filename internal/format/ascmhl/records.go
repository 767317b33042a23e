package ascmhl

import (
	"iter"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// Records are a history's last record of each file, by path
// (History.Records), held in Verify's compact index: a record of fixed
// size, the name and the hash bytes packed (~80 B a file with one
// xxh64; a map of Records took ~500), kept on disk but for its table
// (~9-13 B a file in memory; indexspill.go). A Record is made when one
// is asked for. Its methods may be called from several goroutines at
// once; one that cannot read the index back from disk panics (a record
// is never made up). A nil Records has none.
type Records struct {
	x *index
}

// Get is the record of path (slash-separated, relative to the history's
// folder), or nil.
func (r *Records) Get(path string) *Record {
	if r == nil {
		return nil
	}
	ir, _, ok := r.x.find(path)
	if !ok {
		return nil
	}
	return r.x.record(&ir, path)
}

// Has says whether path has a record.
func (r *Records) Has(path string) bool {
	if r == nil {
		return false
	}
	_, i := r.x.lookup(path)
	return i >= 0
}

// Keeps says whether path has a record, or is a folder holding one (at
// any depth): what a scan copies of a card carrying the history even
// when its name is an OS file's. It looks through the folders, not the
// files (a card of frames has a folder a clip).
func (r *Records) Keeps(path string) bool {
	if r.Has(path) {
		return true
	}
	if r == nil {
		return false
	}
	for f := range r.x.folderNum {
		if f == path || strings.HasPrefix(f, path+"/") {
			return true
		}
	}
	return false
}

// Len is how many files the history records.
func (r *Records) Len() int {
	if r == nil {
		return 0
	}
	n := 0
	r.x.each(func(int, *irec) { n++ })
	return n
}

// All gives every record, in no order.
func (r *Records) All() iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		if r == nil {
			return
		}
		for i := range r.x.n {
			if ir := r.x.recAt(i); ir.flags&flagGone == 0 {
				if !yield(r.x.record(&ir, r.x.pathOf(&ir))) {
					return
				}
			}
		}
	}
}

// Paths gives every recorded path, in no order.
func (r *Records) Paths() iter.Seq[string] {
	return func(yield func(string) bool) {
		if r == nil {
			return
		}
		for i := range r.x.n {
			if ir := r.x.recAt(i); ir.flags&flagGone == 0 {
				if !yield(r.x.pathOf(&ir)) {
					return
				}
			}
		}
	}
}

// RecordsOf are records given whole (read from elsewhere than a history:
// a remote's listing, tests), each at its Path: its size (-1: none), its
// values, failed in a later generation when LastFailed, recorded first
// in generation FirstSeq (at least 1). A value that is not a hash of its algorithm is
// an error naming the path.
func RecordsOf(recs ...*Record) (*Records, error) {
	x := newDiskIndex()
	for _, r := range recs {
		seq := max(r.FirstSeq, 1)
		f := File{Path: r.Path, Size: r.Size}
		for a, v := range r.Values {
			f.Hashes = append(f.Hashes, Hash{Algo: a, Value: v, Action: Original})
		}
		if err := x.addFile(seq, &f); err != nil {
			return nil, err
		}
		if r.LastFailed { // a later generation found it failed
			failed := File{Path: r.Path, Size: r.Size, Hashes: []Hash{{Algo: hashing.MD5, Action: Failed}}}
			if err := x.addFile(seq+1, &failed); err != nil {
				return nil, err
			}
		}
	}
	x.freeze()
	return &Records{x: x}, nil
}
