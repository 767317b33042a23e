package source

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dit-org/dit/internal/fsys"
)

// A card's list beyond the block being filled is kept on disk while it is
// used (the spill): each full block of Files is written to a file of its
// own in the spill folder, unlinked as soon as it is made (nothing is left
// behind by a crash; the open file is closed when the list is collected),
// and read back a block at a time through a cache of spillCache blocks.
// What a list holds in memory is then its group refs (8 B a group of 32
// files), the block being filled, the cache and 16 B a block of 64 KiB:
// nothing a file of the card (docs/design.md, "Memory of an offload").
// The kernel's page cache holds the blocks a run reads again, reclaimable,
// not the process's.
//
// A block that cannot be written stays in memory, and so do the blocks
// after it (the list is whole either way; a full system disk costs
// memory, never a file). A block that cannot be read back panics with an
// error naming the file: the machine's own disk failing under a run.

// spillCache is how many blocks read back a list keeps (the last ones
// read): a pass reads the blocks in order, a search by path (PathIndex)
// comes back to the few blocks its first steps read.
const spillCache = 8

// spillStats counts the blocks written to spills and read back, in the
// process (SpillStats).
var spillStats struct{ written, read atomic.Int64 }

// SpillStats is how many blocks of lists the process has written to disk
// and read back from it.
func SpillStats() (written, read int64) {
	return spillStats.written.Load(), spillStats.read.Load()
}

// noBytes is an empty block (not nil: nil is a block on disk).
var noBytes = []byte{}

// spill is a list's blocks on disk.
type spill struct {
	dir  string
	file *os.File // nil until the first block is written
	at   []blockAt
	end  int64
	off  bool // a write failed: no more blocks are spilled

	mu sync.Mutex
	// all: every block read back, kept (Unspill), by block.
	all   [][]byte
	cache [spillCache]cachedBlock
	tick  uint64
	reads atomic.Int64 // blocks read back from the file (tests)
}

// blockAt is where a spilled block is in the file.
type blockAt struct {
	off int64
	n   int
}

type cachedBlock struct {
	blk  int
	b    []byte
	used uint64
}

// NewFiles is an empty list kept as a card's is: its full blocks on
// disk in fsys.SpillDir (in memory when there is none). For lists made
// elsewhere than a scan (a cloud seal's verified files).
func NewFiles() *Files { return newSpilledFiles(fsys.SpillDir()) }

// newSpilledFiles is an empty list whose full blocks are kept in a file
// of dir ("": in memory, as &Files{}).
func newSpilledFiles(dir string) *Files {
	f := &Files{}
	if dir != "" {
		f.sp = &spill{dir: dir}
	}
	return f
}

// spillBlock writes block b (full: no file is added to it any more) to
// the spill and lets go of its bytes, returning them for reuse (nil when
// the block stays in memory).
func (f *Files) spillBlock(b int) []byte {
	s := f.sp
	if s == nil || s.off {
		return nil
	}
	blk := f.blocks[b]
	if len(blk) == 0 { // its group moved whole to the next: nothing to keep
		f.blocks[b] = noBytes
		return blk
	}
	if s.file == nil {
		if err := s.open(); err != nil {
			s.off = true
			return nil
		}
	}
	if _, err := s.file.WriteAt(blk, s.end); err != nil {
		s.off = true
		return nil
	}
	for len(s.at) <= b {
		s.at = append(s.at, blockAt{})
	}
	s.at[b] = blockAt{off: s.end, n: len(blk)}
	spillStats.written.Add(1)
	s.end += int64(len(blk))
	f.blocks[b] = nil
	return blk[:0]
}

// open makes the spill's file, unlinked at once.
func (s *spill) open() error {
	fl, err := fsys.CreateUnlinked(s.dir, "dit-card-list-*")
	if err != nil {
		return err
	}
	s.file = fl
	runtime.AddCleanup(s, func(fl *os.File) { fl.Close() }, fl)
	return nil
}

// block is block b's bytes: in memory, or read back from the spill.
func (f *Files) block(b int) []byte {
	if blk := f.blocks[b]; blk != nil {
		return blk
	}
	return f.sp.read(b)
}

// read is spilled block b, from the cache or the file. A block handed out
// is never written again (an evicted one is left to the collector), so
// any number of readers may decode it at once.
func (s *spill) read(b int) []byte {
	s.mu.Lock()
	if s.all != nil {
		buf := s.all[b]
		s.mu.Unlock()
		return buf
	}
	s.tick++
	for i := range s.cache {
		if c := &s.cache[i]; c.b != nil && c.blk == b {
			c.used = s.tick
			buf := c.b
			s.mu.Unlock()
			return buf
		}
	}
	at := s.at[b]
	s.mu.Unlock()
	buf := make([]byte, at.n)
	if _, err := s.file.ReadAt(buf, at.off); err != nil {
		panic(fmt.Errorf("a card's list kept in %s (unlinked) could not be read back: %w", s.dir, err))
	}
	s.reads.Add(1)
	spillStats.read.Add(1)
	s.mu.Lock()
	old := 0
	for i := range s.cache {
		if s.cache[i].used < s.cache[old].used {
			old = i
		}
	}
	s.cache[old] = cachedBlock{blk: b, b: buf, used: s.tick}
	s.mu.Unlock()
	return buf
}

// held is what the spill holds in memory: its cache and where each block is.
func (s *spill) held() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := cap(s.at) * 16
	for _, c := range s.cache {
		n += cap(c.b)
	}
	for _, b := range s.all {
		n += cap(b)
	}
	return n
}

// Spilled is how many of the list's blocks are on disk only.
func (f *Files) Spilled() int {
	if f == nil || f.sp == nil {
		return 0
	}
	f.sp.mu.Lock()
	defer f.sp.mu.Unlock()
	n := 0
	for b, blk := range f.blocks {
		if blk == nil && (f.sp.all == nil || f.sp.all[b] == nil) {
			n++
		}
	}
	return n
}

// Unspill reads every spilled block back into memory and keeps it there
// (a list about to be read in no order: PathIndex's sort). Readers may
// read the list meanwhile.
func (f *Files) Unspill() {
	if f == nil || f.sp == nil {
		return
	}
	all := make([][]byte, len(f.blocks))
	for b, blk := range f.blocks {
		if blk == nil {
			all[b] = f.sp.read(b)
		}
	}
	f.sp.mu.Lock()
	f.sp.all = all
	f.sp.mu.Unlock()
}
