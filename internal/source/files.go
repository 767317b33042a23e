package source

import "time"

// Files is a card's files as the scan found them, held compact: every
// path in blocks of bytes (never a string a file), and per file its size
// and time, 32 bytes plus its path's. Both are in blocks of a fixed size,
// so a card of a million files is never copied whole to grow it. The
// offload's plan of the card (internal/offload planList) is made on these
// same blocks, not a copy of them.
type Files struct {
	blocks [][]byte // the paths
	ents   [][]fileEnt
	n      int
}

// fileEnt is one file: its path is blocks[blk][off:off+len].
type fileEnt struct {
	size     int64
	sec      int64 // modification time: seconds and nanoseconds (time.Unix)
	nsec     int32
	blk      uint32
	off, len uint32
}

const (
	entsPerBlock = 1 << 12
	pathBlock    = 64 << 10
)

// Len is how many files there are (0 for a nil Files).
func (f *Files) Len() int {
	if f == nil {
		return 0
	}
	return f.n
}

func (f *Files) ent(i int) *fileEnt { return &f.ents[i/entsPerBlock][i%entsPerBlock] }

// Add appends e (a file: its Rel, Size and Mtime).
func (f *Files) Add(e Entry) {
	if f.n%entsPerBlock == 0 {
		f.ents = append(f.ents, make([]fileEnt, 0, entsPerBlock))
	}
	b := len(f.blocks) - 1
	if b < 0 || len(f.blocks[b])+len(e.Rel) > cap(f.blocks[b]) {
		f.blocks = append(f.blocks, make([]byte, 0, max(pathBlock, len(e.Rel))))
		b++
	}
	ent := fileEnt{size: e.Size, sec: e.Mtime.Unix(), nsec: int32(e.Mtime.Nanosecond()),
		blk: uint32(b), off: uint32(len(f.blocks[b])), len: uint32(len(e.Rel))}
	f.blocks[b] = append(f.blocks[b], e.Rel...)
	last := &f.ents[len(f.ents)-1]
	*last = append(*last, ent)
	f.n++
}

// Path is file i's path, in the blocks: not to be kept or changed.
func (f *Files) Path(i int) []byte {
	e := f.ent(i)
	return f.blocks[e.blk][e.off : e.off+e.len : e.off+e.len]
}

// Rel is file i's path (slash-separated, relative to the card).
func (f *Files) Rel(i int) string { return string(f.Path(i)) }

// Size is file i's size in bytes.
func (f *Files) Size(i int) int64 { return f.ent(i).size }

// At is file i as the scan found it.
func (f *Files) At(i int) Entry {
	e := f.ent(i)
	return Entry{Rel: f.Rel(i), Size: e.size, Mtime: time.Unix(e.sec, int64(e.nsec))}
}

// All yields the files in the order of the scan, with their index (for
// range): each Entry is made as it is yielded.
func (f *Files) All() func(yield func(int, Entry) bool) {
	return func(yield func(int, Entry) bool) {
		for i := range f.Len() {
			if !yield(i, f.At(i)) {
				return
			}
		}
	}
}

// FilesOf is a Files of es (tests, and lists made by hand).
func FilesOf(es ...Entry) *Files {
	f := &Files{}
	for _, e := range es {
		f.Add(e)
	}
	return f
}
