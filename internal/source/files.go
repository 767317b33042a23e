package source

import (
	"bytes"
	"encoding/binary"
	"sort"
	"time"
)

// Files is a card's files as the scan found them, held compact: ~14 bytes
// a file for a card of frames (docs/design.md, "Memory of an offload").
// The files are coded in groups of groupLen, each group in one block of
// bytes: its first file whole, every other one against the file before
// it (front coding): the length of the path it shares with it, the rest
// of its path, and its size and time as differences (varints). Reading
// file i decodes its group up to i (at most groupLen-1 files before it),
// nothing is held for it: Path and Rel make the path anew each call
// (AppendPath into a buffer of the caller's; Compare, ComparePath and
// PathLen read a path without allocating).
// Blocks are of a fixed size, so a card of a million files is never
// copied whole to grow it. The offload's plan of the card (internal/
// offload planList) is made on these same blocks, not a copy of them.
//
// Any number of goroutines may read a Files at once (nothing is shared
// while reading); Add is not to be called while it is read.
type Files struct {
	blocks [][]byte     // the groups, coded; a group never straddles two blocks
	groups [][]groupRef // where each group starts, in chunks of refsPerChunk
	n      int

	// last is the file added last (the next one is coded against it) and
	// enc the coding of the next (Add's only).
	last struct {
		path []byte
		size int64
		sec  int64
		nsec int64
	}
	enc []byte

	// sp keeps the full blocks on disk (spill.go; nil: all in memory).
	sp *spill
	// heads are the full blocks' first files (their groups and paths),
	// but for blocks left empty: a list in path order is searched
	// through them first (SearchInOrder), reading a block or two.
	heads []head
}

// head is a full block's first file: the first of group g, its path.
type head struct {
	g    int
	path string
}

// groupRef is where a group of files starts: blocks[blk][off:].
type groupRef struct{ blk, off uint32 }

const (
	groupLen     = 32      // files in a group (a file read decodes at most groupLen-1 others)
	refsPerChunk = 1 << 12 // groupRefs in a chunk of them
	pathBlock    = 64 << 10
)

// Len is how many files there are (0 for a nil Files).
func (f *Files) Len() int {
	if f == nil {
		return 0
	}
	return f.n
}

func (f *Files) group(g int) groupRef { return f.groups[g/refsPerChunk][g%refsPerChunk] }

// Add appends e (a file: its Rel, Size and Mtime).
func (f *Files) Add(e Entry) {
	first := f.n%groupLen == 0
	if first { // a group's first file is coded against nothing
		f.last.path, f.last.size, f.last.sec, f.last.nsec = f.last.path[:0], 0, 0, 0
	}
	pre := 0
	for pre < len(f.last.path) && pre < len(e.Rel) && f.last.path[pre] == e.Rel[pre] {
		pre++
	}
	sec, nsec := e.Mtime.Unix(), int64(e.Mtime.Nanosecond())
	b := binary.AppendUvarint(f.enc[:0], uint64(pre))
	b = binary.AppendUvarint(b, uint64(len(e.Rel)-pre))
	b = append(b, e.Rel[pre:]...)
	b = binary.AppendUvarint(b, zigzag(e.Size-f.last.size))
	if ds := sec - f.last.sec; ds > -1<<32 && ds < 1<<32 {
		// the time's difference in nanoseconds, its lowest bit 0
		b = binary.AppendUvarint(b, zigzag(ds*1e9+nsec-f.last.nsec)<<1)
	} else { // 1, then the time whole
		b = binary.AppendUvarint(b, 1)
		b = binary.AppendUvarint(b, zigzag(sec))
		b = binary.AppendUvarint(b, uint64(nsec))
	}
	f.enc = b
	f.place(b, first)
	f.last.path = append(f.last.path[:pre], e.Rel[pre:]...)
	f.last.size, f.last.sec, f.last.nsec = e.Size, sec, nsec
	f.n++
}

// place appends a file's coding b to the blocks: a group that does not
// fit the last block any more moves whole to a new one (a group's bytes
// are always in one block).
func (f *Files) place(b []byte, first bool) {
	g := f.n / groupLen
	last := len(f.blocks) - 1
	start := 0 // where the group starts in the last block
	if !first {
		start = int(f.group(g).off)
	}
	if last < 0 || len(f.blocks[last])+len(b) > cap(f.blocks[last]) {
		var sofar []byte
		if !first {
			sofar = f.blocks[last][start:]
			f.blocks[last] = f.blocks[last][:start]
		}
		need := max(pathBlock, 2*(len(sofar)+len(b)))
		var nb []byte
		if last >= 0 {
			f.keepHead(last)
			// The last block is full: kept on disk (spill.go), its
			// bytes reused for the next when they are enough (sofar,
			// past its end, is moved to its start).
			if reuse := f.spillBlock(last); cap(reuse) >= need {
				nb = reuse
			}
		}
		if nb == nil {
			nb = make([]byte, 0, need)
		}
		f.blocks = append(f.blocks, append(nb, sofar...))
		last, start = len(f.blocks)-1, 0
	}
	if first {
		if g%refsPerChunk == 0 {
			f.groups = append(f.groups, make([]groupRef, 0, refsPerChunk))
		}
		start = len(f.blocks[last])
		c := &f.groups[len(f.groups)-1]
		*c = append(*c, groupRef{})
	}
	f.groups[g/refsPerChunk][g%refsPerChunk] = groupRef{blk: uint32(last), off: uint32(start)}
	f.blocks[last] = append(f.blocks[last], b...)
}

// keepHead notes full block b's first file, unless b is empty (its one
// group moved on whole).
func (f *Files) keepHead(b int) {
	blk := f.blocks[b]
	if len(blk) == 0 {
		return
	}
	d, _ := next(blk, 0, file{}) // a block starts with a group: coded whole
	f.heads = append(f.heads, head{g: f.groupAt(b), path: string(blk[d.off : d.off+d.n])})
}

// groupAt is the first group in block b (which has one).
func (f *Files) groupAt(b int) int {
	ng := (f.n + groupLen - 1) / groupLen
	return sort.Search(ng, func(g int) bool { return int(f.group(g).blk) >= b })
}

// SearchInOrder is, for a list in its paths' byte order, the place of
// the first file whose path is not before rel (Len() if none): the
// blocks by their first paths (held in memory), then the files of one
// block and the next, so a list on disk reads a block or two.
func (f *Files) SearchInOrder(rel string) int {
	h := sort.Search(len(f.heads), func(i int) bool { return f.heads[i].path > rel })
	lo, hi := 0, f.Len()
	if h > 0 {
		lo = f.heads[h-1].g * groupLen
	}
	if h < len(f.heads) {
		hi = f.heads[h].g * groupLen
	}
	return lo + sort.Search(hi-lo, func(k int) bool { return f.ComparePath(lo+k, rel) >= 0 })
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// span is where a decoded file's path is: the first pre bytes of the file
// before it's, then blk[off:off+n].
type span struct{ pre, off, n int }

// file is one file decoded: its path's span, size and time.
type file struct {
	span
	size      int64
	sec, nsec int64
}

// next decodes the file coded at blk[pos:] after prev (the zero file for
// a group's first), returning it and where the next one starts.
func next(blk []byte, pos int, prev file) (file, int) {
	var d file
	var u uint64
	u, pos = uvarint(blk, pos)
	d.pre = int(u)
	u, pos = uvarint(blk, pos)
	d.off, d.n = pos, int(u)
	pos += d.n
	u, pos = uvarint(blk, pos)
	d.size = prev.size + unzigzag(u)
	if u, pos = uvarint(blk, pos); u&1 == 0 {
		// nanoseconds after prev's time
		d.sec, d.nsec = prev.sec, prev.nsec+unzigzag(u>>1)
		if d.nsec < 0 || d.nsec >= 1e9 {
			d.sec += d.nsec / 1e9
			if d.nsec %= 1e9; d.nsec < 0 {
				d.sec, d.nsec = d.sec-1, d.nsec+1e9
			}
		}
		return d, pos
	}
	u, pos = uvarint(blk, pos)
	d.sec = unzigzag(u)
	u, pos = uvarint(blk, pos)
	d.nsec = int64(u)
	return d, pos
}

// uvarint is the varint at b[pos:] (binary.AppendUvarint's), and where
// the next thing starts.
func uvarint(b []byte, pos int) (uint64, int) {
	if c := b[pos]; c < 0x80 {
		return uint64(c), pos + 1
	}
	u, k := binary.Uvarint(b[pos:])
	return u, pos + k
}

// decode decodes file i's group up to i: each file's span in sp[:k+1]
// (file i's the last, at k), and file i.
func (f *Files) decode(i int, sp *[groupLen]span) (blk []byte, k int, d file) {
	r := f.group(i / groupLen)
	blk = f.block(int(r.blk))
	pos := int(r.off)
	k = i % groupLen
	for j := 0; j <= k; j++ {
		d, pos = next(blk, pos, d)
		sp[j] = d.span
	}
	return blk, k, d
}

// spans is decode of the paths only: each file's span in sp[:k+1], the
// sizes and times skipped.
func (f *Files) spans(i int, sp *[groupLen]span) (blk []byte, k int) {
	r := f.group(i / groupLen)
	blk = f.block(int(r.blk))
	pos := int(r.off)
	k = i % groupLen
	for j := 0; j <= k; j++ {
		s := &sp[j]
		if c := blk[pos]; c < 0x80 { // most are under 128: one byte
			s.pre, pos = int(c), pos+1
		} else {
			u, next := uvarint(blk, pos)
			s.pre, pos = int(u), next
		}
		if c := blk[pos]; c < 0x80 {
			s.n, pos = int(c), pos+1
		} else {
			u, next := uvarint(blk, pos)
			s.n, pos = int(u), next
		}
		s.off = pos
		pos += s.n
		for blk[pos] >= 0x80 { // the size
			pos++
		}
		pos++
		if blk[pos] == 1 { // a time whole: 1, seconds, nanoseconds
			pos++
			for blk[pos] >= 0x80 {
				pos++
			}
			pos++
		}
		for blk[pos] >= 0x80 { // the time's difference, or its nanoseconds
			pos++
		}
		pos++
	}
	return blk, k
}

// Path is file i's path (slash-separated, relative to the card), made
// anew each call.
func (f *Files) Path(i int) []byte { return f.AppendPath(nil, i) }

// AppendPath appends file i's path to dst (Path without a new slice each
// call when dst has room).
func (f *Files) AppendPath(dst []byte, i int) []byte {
	var sp [groupLen]span
	blk, k := f.spans(i, &sp)
	return appendPath(dst, blk, sp[:k+1])
}

// appendFile appends file i's path to dst, and is file i decoded.
func (f *Files) appendFile(dst []byte, i int) ([]byte, file) {
	var sp [groupLen]span
	blk, k, d := f.decode(i, &sp)
	return appendPath(dst, blk, sp[:k+1]), d
}

// appendPath appends to dst the path of the last file of sp, its group's
// files up to it decoded (blk their block).
func appendPath(dst, blk []byte, sp []span) []byte {
	k := len(sp) - 1
	d := sp[k]
	n := len(dst)
	dst = append(dst, make([]byte, d.pre+d.n)...)
	out := dst[n:]
	copy(out[d.pre:], blk[d.off:d.off+d.n])
	// The first pre bytes are the file before it's: from the last file
	// back, each gives the bytes past its own shared part.
	need := d.pre
	for j := k - 1; need > 0; j-- {
		if s := sp[j]; s.pre < need {
			copy(out[s.pre:need], blk[s.off:s.off+need-s.pre])
			need = s.pre
		}
	}
	return dst
}

// pathRoom is the length of path Compare, ComparePath and PathLen read
// without allocating (a longer one is made on the heap).
const pathRoom = 512

// Compare is the byte order of file i's path against file j's
// (bytes.Compare of their Paths), without allocating.
func (f *Files) Compare(i, j int) int {
	var a, b [pathRoom]byte
	return bytes.Compare(f.AppendPath(a[:0], i), f.AppendPath(b[:0], j))
}

// ComparePath is the byte order of file i's path against rel, without
// allocating.
func (f *Files) ComparePath(i int, rel string) int {
	var a [pathRoom]byte
	p := f.AppendPath(a[:0], i)
	switch {
	case string(p) < rel:
		return -1
	case string(p) > rel:
		return 1
	}
	return 0
}

// PathLen is the length of file i's path in bytes.
func (f *Files) PathLen(i int) int {
	var sp [groupLen]span
	_, k := f.spans(i, &sp)
	return sp[k].pre + sp[k].n
}

// Rel is file i's path (slash-separated, relative to the card).
func (f *Files) Rel(i int) string { return string(f.Path(i)) }

// Size is file i's size in bytes.
func (f *Files) Size(i int) int64 {
	var sp [groupLen]span
	_, _, d := f.decode(i, &sp)
	return d.size
}

// At is file i as the scan found it.
func (f *Files) At(i int) Entry {
	p, d := f.appendFile(nil, i)
	return Entry{Rel: string(p), Size: d.size, Mtime: time.Unix(d.sec, d.nsec)}
}

// All yields the files in the order of the scan, with their index (for
// range), decoding each group once: each Entry is made as it is yielded.
func (f *Files) All() func(yield func(int, Entry) bool) {
	return func(yield func(int, Entry) bool) {
		var path []byte
		for i := 0; i < f.Len(); {
			r := f.group(i / groupLen)
			blk, pos := f.block(int(r.blk)), int(r.off)
			var d file
			for end := min(i+groupLen, f.n); i < end; i++ {
				d, pos = next(blk, pos, d)
				path = append(path[:d.pre], blk[d.off:d.off+d.n]...)
				if !yield(i, Entry{Rel: string(path), Size: d.size, Mtime: time.Unix(d.sec, d.nsec)}) {
					return
				}
			}
		}
	}
}

// Held is the bytes the list holds: its blocks' and group refs'
// capacity (what a run holds for the card, internal/gcgoal).
func (f *Files) Held() int {
	if f == nil {
		return 0
	}
	n := cap(f.enc) + cap(f.last.path) + cap(f.blocks)*24 + cap(f.groups)*24
	for _, b := range f.blocks {
		n += cap(b)
	}
	for _, g := range f.groups {
		n += cap(g) * 8
	}
	for _, h := range f.heads {
		n += len(h.path)
	}
	return n + cap(f.heads)*24 + f.sp.held()
}

// FilesOf is a Files of es (tests, and lists made by hand).
func FilesOf(es ...Entry) *Files {
	f := &Files{}
	for _, e := range es {
		f.Add(e)
	}
	return f
}
