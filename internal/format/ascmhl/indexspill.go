package ascmhl

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dit-org/dit/internal/fsys"
)

// The bulk of a history's index is kept on disk (the spill), as a
// card's list is (internal/source, spill.go): an unlinked file in dit's
// cache folder, nothing left behind by a crash, closed when the index
// is collected. The arena is append-only, so each block is written out
// once, when the load starts the next one, and never changed; when the
// load is done (freeze: the index no longer changes) the block being
// filled and the record pages are written out too. What stays in memory
// a file is then its table slot and tag (5 B a slot, 6.7-13.3 B a file)
// and, while Verify runs, a bit for "found on disk"; the folders are
// kept (a card of frames has a folder a clip), and so is a cache of
// spillCachePages pages of 4 KiB read back (1 MiB at most).
//
// During the load the records of the generations before the last are in
// memory (a later generation may change any of them): 32 B a file at
// the peak, with the table's, not the names and values. The last
// generation's go to disk a page at a time as they come (lastGeneration).
//
// A spill that cannot be made or written leaves the index in memory from
// there on (a full cache disk costs memory, never a job). Bytes that
// cannot be read back panic, naming the folder: the machine's own disk
// failing under a run; a record is never made up, so a missing or
// changed file never looks recorded. Windows keeps the index in memory
// (an open file cannot be unlinked there).

// spillPage is the unit read back and cached; writes start at a page
// boundary, so a page read is never written again.
const (
	spillPage       = 4 << 10
	spillCachePages = 256 // 1 MiB
	recSize         = int(unsafe.Sizeof(irec{}))
)

// spillFile is the spill's file (tests inject faults through it).
type spillFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// openSpill makes the spill's file in dir, unlinked at once.
var openSpill = func(dir string) (spillFile, error) {
	f, err := fsys.CreateUnlinked(dir, "dit-history-index-*")
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ispill is an index's bytes on disk.
type ispill struct {
	dir  string
	file spillFile // nil until the first write
	end  int64
	off  bool // a write failed: nothing more is written

	mu    sync.Mutex
	cache [spillCachePages]spillCached
	reads atomic.Int64 // pages read from the file (tests)
}

type spillCached struct {
	page int64 // page number + 1 (0: empty)
	b    []byte
}

func newSpill(dir string) *ispill {
	if dir == "" {
		return nil
	}
	return &ispill{dir: dir}
}

// write appends b at a page boundary and returns where; false when it
// is not written (no spill, or a write failed: then never again).
func (s *ispill) write(b []byte) (int64, bool) {
	if s == nil || s.off {
		return 0, false
	}
	if s.file == nil {
		f, err := openSpill(s.dir)
		if err != nil {
			s.off = true
			return 0, false
		}
		s.file = f
		runtime.AddCleanup(s, func(f spillFile) { f.Close() }, f)
	}
	if _, err := s.file.WriteAt(b, s.end); err != nil {
		s.off = true
		return 0, false
	}
	at := s.end
	s.end += (int64(len(b)) + spillPage - 1) / spillPage * spillPage
	return at, true
}

// read is the n bytes written at off: from the cache when they are in
// one page, else read at once. What it returns is never written again
// (an evicted page is left to the collector): any number of readers
// may use it.
func (s *ispill) read(off int64, n int) []byte {
	if n == 0 {
		return nil
	}
	page := off / spillPage
	if (off+int64(n)-1)/spillPage != page {
		b := make([]byte, n)
		s.readAt(b, off, n)
		return b
	}
	c := &s.cache[page%spillCachePages]
	s.mu.Lock()
	if c.page == page+1 {
		b := c.b
		s.mu.Unlock()
		return b[off-page*spillPage:][:n]
	}
	s.mu.Unlock()
	b := make([]byte, spillPage)
	b = b[:s.readAt(b, page*spillPage, int(off-page*spillPage)+n)]
	s.mu.Lock()
	*c = spillCached{page: page + 1, b: b}
	s.mu.Unlock()
	return b[off-page*spillPage:][:n]
}

// readAt fills b from off, up to the file's end, and returns how many
// bytes it read: at least need (what was written there), or it panics.
func (s *ispill) readAt(b []byte, off int64, need int) int {
	n, err := s.file.ReadAt(b, off)
	if errors.Is(err, io.EOF) && n >= need {
		err = nil
	}
	if err == nil && n < need {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		panic(fmt.Errorf("a history's index kept in %s (unlinked) could not be read back: %w", s.dir, err))
	}
	s.reads.Add(1)
	return n
}

// held is what the spill's cache holds in memory.
func (s *ispill) held() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.cache {
		n += cap(c.b)
	}
	return n
}

// arena packs small byte strings into 1 MiB blocks, addressed by a 32-bit
// reference (block number, offset): up to 4 GiB in all. A full block
// goes to the spill (when there is one) as the next one is started.
type arena struct {
	blocks   [][]byte // nil: on disk, at at[block]
	at       []int64
	sp       *ispill
	blockCap int // a new block's capacity: arenaBlock (tests: less)
}

const (
	arenaShift = 20
	arenaBlock = 1 << arenaShift
)

var errTooLarge = errors.New("the history is too large for this reader (more than 4 GiB of paths and hashes)")

// testBlockCap, when not zero, is the capacity of an arena's blocks
// (tests: blocks fill, and spill, after a few records).
var testBlockCap = 0

func (a *arena) add(s string) (uint32, error) {
	if len(s) > arenaBlock {
		return 0, errTooLarge
	}
	n := len(a.blocks)
	if n == 0 || cap(a.blocks[n-1])-len(a.blocks[n-1]) < len(s) {
		if n == 1<<(32-arenaShift) {
			return 0, errTooLarge
		}
		if n > 0 {
			a.spillBlock(n - 1)
		}
		c := arenaBlock
		if a.blockCap > 0 {
			c = max(a.blockCap, len(s))
		}
		a.blocks = append(a.blocks, make([]byte, 0, c))
		n++
	}
	b := &a.blocks[n-1]
	off := len(*b)
	*b = append(*b, s...)
	return uint32(n-1)<<arenaShift | uint32(off), nil
}

// spillBlock writes block b (no string is added to it any more) to the
// spill and lets go of it; it stays in memory when it cannot be written.
func (a *arena) spillBlock(b int) {
	blk := a.blocks[b]
	if len(blk) == 0 {
		return
	}
	at, ok := a.sp.write(blk)
	if !ok {
		return
	}
	for len(a.at) <= b {
		a.at = append(a.at, 0)
	}
	a.at[b] = at
	a.blocks[b] = nil
}

// get returns the string at ref; it shares the arena's memory or the
// spill's cache (neither is written over).
func (a *arena) get(ref uint32, n int) string {
	if n == 0 {
		return ""
	}
	b, off := ref>>arenaShift, ref&(arenaBlock-1)
	if blk := a.blocks[b]; blk != nil {
		return unsafe.String(&blk[off], n)
	}
	return unsafe.String(&a.sp.read(a.at[b]+int64(off), n)[0], n)
}

// held is the bytes of the blocks in memory.
func (a *arena) held() int {
	n := 0
	for _, b := range a.blocks {
		n += cap(b)
	}
	return n + 8*cap(a.at)
}

// freeze ends the index's load: the arena's last block and the record
// pages go to the spill (those that can be written), and the index is
// read only from then on.
func (x *index) freeze() {
	if x.frozen {
		return
	}
	x.frozen = true
	if n := len(x.mem.blocks); n > 0 {
		x.mem.spillBlock(n - 1)
	}
	if x.mem.sp == nil {
		return
	}
	for p := range x.pages {
		if !x.spillPage(p) {
			return
		}
	}
}

// lastGeneration says the records added from now on are the last
// generation's: no later record changes them (addFile changes a record
// only when a later generation records its path, or renames it), so
// each page of them goes to the spill once full (spillFinal), and a
// history of one generation does not hold its records in memory while
// it loads either.
func (x *index) lastGeneration() { x.finalFrom = x.n }

// spillFinal writes page p to the spill when every record of it is the
// last generation's and complete (the next page is being started).
func (x *index) spillFinal(p int) {
	if p >= 0 && x.finalFrom >= 0 && p*recPage >= x.finalFrom && x.mem.sp != nil && x.spillPage(p) {
		x.finalPages++
	}
}

// spillPage writes the records of page p to the spill and lets go of
// them; false when it cannot (they stay in memory).
func (x *index) spillPage(p int) bool {
	page := x.pages[p]
	if page == nil {
		return true
	}
	used := min(recPage, x.n-p*recPage)
	if used <= 0 {
		x.pages[p] = nil
		return true
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&page[0])), used*recSize)
	at, ok := x.mem.sp.write(b)
	if !ok {
		return false
	}
	for len(x.pageAt) <= p {
		x.pageAt = append(x.pageAt, 0)
	}
	x.pageAt[p], x.pages[p] = at, nil
	return true
}

// recAt is record number i (a copy: from its page in memory or on disk).
func (x *index) recAt(i int) irec {
	if page := x.pages[i>>recShift]; page != nil {
		return page[i&(recPage-1)]
	}
	var r irec
	b := x.mem.sp.read(x.pageAt[i>>recShift]+int64(i&(recPage-1)*recSize), recSize)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r)), recSize), b)
	return r
}

// markSeen marks record i found on disk (Verify), seen says whether it
// was.
func (x *index) markSeen(i int) {
	if x.seen == nil {
		x.seen = make([]uint64, (x.n+63)/64)
	}
	x.seen[i/64] |= 1 << (i % 64)
}

func (x *index) isSeen(i int) bool {
	return x.seen != nil && x.seen[i/64]&(1<<(i%64)) != 0
}
