package offload

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dit-org/dit/internal/fsys"
)

// planMarks are a card's plan marks (1+nd bytes a file: planList), in
// pages of markPage bytes. A card whose marks fill more than a few pages
// and whose list is kept on disk in its paths' order (the plan then
// comes to its files in the list's order: planning, the reader, the
// read-back) keeps them on disk too: an unlinked file in the list's
// folder (fsys.SpillDir), markPagesKept pages in memory, the others
// written back when let go and read again when come to. So a card of a
// million frames holds 256 KiB of marks, not 2-3 MB. A card walked out
// of its paths' order (its list is in memory already) or a small one
// keeps them in memory. A page that cannot be written keeps the marks in
// memory from then on (a full disk costs memory, never a mark); one
// that cannot be read back is the machine's own disk failing: dit stops
// there (a panic naming the folder), and the job is resumed as after any
// crash.
//
// Marks are read and set under a lock: any goroutine may.
type planMarks struct {
	mu    sync.Mutex
	mem   []uint8 // every mark: no file (nil when paged)
	dir   string
	ps    int                      // bytes a page (markPage when made)
	file  *os.File                 // the pages written back (nil until the first)
	pages map[int64]*markPageCache // in memory: at most markPagesKept, all once writing failed
	tick  uint64
	held  bool // a write failed: every page stays in memory
}

// markPagesRead and markPagesWritten count the pages of marks read back
// and written by the process (tests).
var markPagesRead, markPagesWritten atomic.Int64

type markPageCache struct {
	b     []byte
	used  uint64
	dirty bool
}

// markPage is the bytes of a page of marks (a variable: tests page
// small cards).
var markPage = 64 << 10

const markPagesKept = 4

// newPlanMarks are n marks, all 0: paged to a file of dir when there is
// one (dir "": in memory) and they fill more than the pages kept.
func newPlanMarks(n int, dir string) *planMarks {
	if dir == "" || n <= markPagesKept*markPage {
		return &planMarks{mem: make([]uint8, n)}
	}
	return &planMarks{dir: dir, ps: markPage, pages: map[int64]*markPageCache{}}
}

// get is mark i.
func (m *planMarks) get(i int) uint8 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mem != nil {
		return m.mem[i]
	}
	return m.page(int64(i / m.ps)).b[i%m.ps]
}

// set makes mark i v.
func (m *planMarks) set(i int, v uint8) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mem != nil {
		m.mem[i] = v
		return
	}
	p := m.page(int64(i / m.ps))
	p.b[i%m.ps], p.dirty = v, true
}

// or sets the bits v in mark i.
func (m *planMarks) or(i int, v uint8) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mem != nil {
		m.mem[i] |= v
		return
	}
	p := m.page(int64(i / m.ps))
	p.b[i%m.ps], p.dirty = p.b[i%m.ps]|v, true
}

// heldBytes is what the marks hold in memory.
func (m *planMarks) heldBytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.mem) + len(m.pages)*m.ps
}

// page is page no, in memory (m.mu held): read back (zeros where never
// written), the page used longest ago let go to make room, written back
// first when changed.
func (m *planMarks) page(no int64) *markPageCache {
	m.tick++
	if p := m.pages[no]; p != nil {
		p.used = m.tick
		return p
	}
	if len(m.pages) >= markPagesKept && !m.held {
		m.evict()
	}
	p := &markPageCache{b: make([]byte, m.ps), used: m.tick}
	if m.file != nil {
		_, err := m.file.ReadAt(p.b, no*int64(m.ps))
		if err != nil && !errors.Is(err, io.EOF) {
			panic(fmt.Errorf("a card's plan kept in %s (unlinked) could not be read back: %w", m.dir, err))
		}
		if err == nil {
			markPagesRead.Add(1)
		}
	}
	m.pages[no] = p
	return p
}

// evict lets go of the page used longest ago, writing it back when
// changed; when it cannot be written every page stays in memory.
func (m *planMarks) evict() {
	old, first := int64(0), true
	for no, p := range m.pages {
		if first || p.used < m.pages[old].used {
			old, first = no, false
		}
	}
	p := m.pages[old]
	if p.dirty {
		if err := m.writeBack(old, p.b); err != nil {
			m.held = true // kept: a full disk costs memory, never a mark
			return
		}
		markPagesWritten.Add(1)
	}
	delete(m.pages, old)
}

func (m *planMarks) writeBack(no int64, b []byte) error {
	if m.file == nil {
		f, err := fsys.CreateUnlinked(m.dir, "dit-card-plan-*")
		if err != nil {
			return err
		}
		m.file = f
		runtime.AddCleanup(m, func(f *os.File) { f.Close() }, f)
	}
	_, err := m.file.WriteAt(b, no*int64(m.ps))
	return err
}
