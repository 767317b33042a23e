package source

import (
	"slices"
	"sort"
)

// PathIndex finds a file of a list by its path, in the byte order of the
// paths: through the list's own order when it is in that order already (a
// card of frames, walked in order: nothing more is held), else through a
// sort index of 4 bytes a file (and the list's blocks held in memory:
// Files.Unspill). No path is made on the heap to compare
// (Files.Compare, Files.ComparePath).
type PathIndex struct {
	files  *Files
	sorted []uint32 // nil: the list is in byte order
}

// NewPathIndex is the index of files (a list whose paths are distinct).
func NewPathIndex(files *Files) *PathIndex {
	x := &PathIndex{files: files}
	n := files.Len()
	for i := 1; i < n; i++ {
		if files.Compare(i-1, i) > 0 {
			// Sorted by reading the list in no order: its blocks
			// back in memory first (a card walked in path order,
			// every card of frames, is not).
			files.Unspill()
			x.sorted = make([]uint32, n)
			for j := range x.sorted {
				x.sorted[j] = uint32(j)
			}
			slices.SortFunc(x.sorted, func(a, b uint32) int { return files.Compare(int(a), int(b)) })
			break
		}
	}
	return x
}

// At is the list's index of the file at place k in the byte order of the
// paths.
func (x *PathIndex) At(k int) int {
	if x.sorted == nil {
		return k
	}
	return int(x.sorted[k])
}

// Search is the place, in the byte order of the paths, of the first path
// not before rel, and whether that path is rel.
func (x *PathIndex) Search(rel string) (k int, found bool) {
	n := x.files.Len()
	if x.sorted == nil { // a block or two read, the list on disk or not
		k = x.files.SearchInOrder(rel)
	} else {
		k = sort.Search(n, func(k int) bool { return x.files.ComparePath(x.At(k), rel) >= 0 })
	}
	return k, k < n && x.files.ComparePath(x.At(k), rel) == 0
}

// Held is what the index holds beside the list, in bytes.
func (x *PathIndex) Held() int { return 4 * len(x.sorted) }
