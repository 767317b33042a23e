package raid

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Level is the array's RAID level.
type Level string

// Levels.
const (
	RAID0 Level = "raid0"
	RAID4 Level = "raid4"
)

// Dir is the folder dit keeps on each blade.
const Dir = "dit-array"

// Limits of the stripe unit and blade count.
const (
	MinStripeUnit     = 64 << 10
	MaxStripeUnit     = 16 << 20
	DefaultStripeUnit = 1 << 20
	MaxBlades         = 16
)

// ErrNotBlade means a folder holds no dit array.
var ErrNotBlade = errors.New("not a blade of any dit array")

// ErrInvalid is wrapped by refusals of a bad argument ([Create]'s level,
// stripe unit or blades; [Array.Replace]'s role or new blade): nothing was
// written. The message names the value and says what to give instead.
var ErrInvalid = errors.New("invalid argument")

// invalidError is a refusal of a bad argument: its message, and Is
// ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// CreateOptions configure a new array.
type CreateOptions struct {
	Level      Level
	StripeUnit int64
	Label      string
	Writer     string // tool name and version
}

// OpenOptions configure an open.
type OpenOptions struct {
	// ReadWrite opens for writing (crash recovery runs, a lock is taken).
	ReadWrite bool
	// AllowDegraded lets a RAID 4 with one missing blade be written.
	AllowDegraded bool
	// Blades are extra blade folders to consider (blades that moved).
	Blades []string
	// Writer is recorded in superblocks and manifests.
	Writer string
	// ReadDeadline bounds one unit read before reconstruction is tried
	// instead (a slow or hung blade). Default 5 s.
	ReadDeadline time.Duration
	// FS opens a blade folder; default DirFS. Tests inject faults here.
	FS func(dir string) BladeFS
}

// Event is something the array noticed (repaired on read, degraded, ...).
type Event struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
}

type blade struct {
	fs    BladeFS
	sb    *Superblock
	role  int
	stale bool
	lock  *os.File
	// errors counts I/O errors and hash mismatches seen on this blade.
	errors atomic.Int64
}

// Array is an assembled array.
type Array struct {
	sb     *Superblock // authoritative superblock (highest events)
	blades []*blade    // by role; nil = missing
	rw     bool
	opts   OpenOptions

	mu     sync.RWMutex
	byPath map[string]*Manifest
	byID   map[string]*Manifest
	dirs   map[string]bool // every folder implied by a path
	events []Event
	start  atomic.Int64
	closed bool

	bufPool  sync.Pool // *stripeBuf of (k+1)*su bytes
	unitPool sync.Pool // *[]byte of su bytes, for reads

	lastRecovery *ScrubReport // quick-verify after an unclean shutdown
	readded      []int        // files rebuilt per stale re-add (tests, status)
	// hintWhy says why the folder at a member's path hint was not taken
	// as that member although it exists (another array's blade, a
	// damaged superblock, a replaced blade): not "reconnect it".
	hintWhy map[string]string
	// lost are files whose every manifest replica is damaged: file id ->
	// the path the damaged JSON still names ("" if none).
	lost map[string]string
	// health is the health record (HEALTH) as loaded or last written:
	// damage found by a scrub or a read and not repaired yet; healthMu
	// serialises its updates.
	health   *HealthRecord
	healthMu sync.Mutex
}

func newID() string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	rand.Read(b[6:])
	return hex.EncodeToString(b[:])
}

func fanout(id string) string { return id[len(id)-2:] }

func chunkName(id string, pos, k int) string {
	if pos == k {
		return path.Join(Dir, "chunks", fanout(id), id+".p")
	}
	return path.Join(Dir, "chunks", fanout(id), fmt.Sprintf("%s.d%d", id, pos))
}

func manifestName(id string) string { return path.Join(Dir, "manifests", fanout(id), id+".bam") }
func intentName(id string) string   { return path.Join(Dir, "intents", id+".intent") }

func cloneSB(s *Superblock) *Superblock {
	c := *s
	c.Members = append([]Member(nil), s.Members...)
	return &c
}

func (a *Array) note(kind, msg string) {
	a.mu.Lock()
	a.events = append(a.events, Event{Time: time.Now(), Kind: kind, Message: msg})
	a.mu.Unlock()
}

// Events returns what the array noticed since it was opened.
func (a *Array) Events() []Event {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return append([]Event(nil), a.events...)
}

// Missing lists the roles with no blade present.
func (a *Array) Missing() []int {
	var out []int
	for r, b := range a.blades {
		if b == nil {
			out = append(out, r)
		}
	}
	return out
}

// replacing says whether role r is being rebuilt by dit array replace
// (which resumes it), as opposed to a re-add that any read-write open
// resumes.
func (a *Array) replacing(r int) bool {
	rb := a.sb.Rebuild
	return a.sb.Members[r].State == MemberRebuilding && rb != nil && rb.Role == r && rb.Kind != RebuildReAdd
}

// unusable lists the roles that cannot take writes: no blade, or a replace
// in progress; stale blades count as usable for a read-write open, which
// re-adds them first.
func (a *Array) unusable(rw bool) []int {
	var out []int
	for r, b := range a.blades {
		if b == nil || (b.stale && (!rw || a.replacing(r))) {
			out = append(out, r)
		}
	}
	return out
}

// roleNotes says, per role, why it is not usable.
func (a *Array) roleNotes(roles []int) string {
	var s []string
	for _, r := range roles {
		m := a.sb.Members[r]
		switch b := a.blades[r]; {
		case b == nil && a.hintWhy[m.PathHint] != "":
			s = append(s, fmt.Sprintf("role %d: %s is there but %s", r, m.PathHint, a.hintWhy[m.PathHint]))
		case b == nil:
			s = append(s, fmt.Sprintf("role %d missing (last at %s)", r, m.PathHint))
		case a.replacing(r):
			s = append(s, fmt.Sprintf("role %d is being rebuilt onto %s (dit array replace did not finish)", r, b.fs.Root()))
		default:
			s = append(s, fmt.Sprintf("role %d on %s is %s (stale: it misses files written without it)", r, b.fs.Root(), m.State))
		}
	}
	return strings.Join(s, "; ")
}

// degradedAdvice says what to do about roles that cannot take writes.
func (a *Array) degradedAdvice(roles []int) string {
	absent, foreign, replace := false, false, false
	for _, r := range roles {
		switch {
		case a.blades[r] == nil && a.hintWhy[a.sb.Members[r].PathHint] != "":
			foreign = true
		case a.blades[r] == nil:
			absent = true
		case a.replacing(r):
			replace = true
		}
	}
	var do []string
	if absent {
		do = append(do, "reconnect the blade (--blade DIR if it moved)")
	}
	if absent || foreign {
		do = append(do, "replace it with an empty blade (dit array replace BLADE --role N --blade NEWDIR)")
	}
	if replace {
		do = append(do, "finish the replace (run the same dit array replace again)")
	}
	do = append(do, "or pass --allow-degraded")
	return strings.Join(do, ", ")
}

// Superblock returns a copy of the authoritative superblock.
func (a *Array) Superblock() Superblock { return *cloneSB(a.sb) }

// K is the number of data blades.
func (a *Array) K() int { return a.sb.DataBlades }

// Level is the RAID level.
func (a *Array) Level() Level { return Level(a.sb.Level) }

// BladeDir returns the folder of role r, or "" if missing.
func (a *Array) BladeDir(r int) string {
	if a.blades[r] == nil {
		return ""
	}
	return a.blades[r].fs.Root()
}

// getUnit returns a read buffer of n <= su bytes. Buffers are recycled by
// putUnit once the data has been consumed.
func (a *Array) getUnit(n int64) []byte {
	if p, ok := a.unitPool.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]byte, n, a.sb.StripeUnit)
}

func (a *Array) putUnit(b []byte) {
	if int64(cap(b)) == a.sb.StripeUnit {
		a.unitPool.Put(&b)
	}
}

// Unreadable lists the files that have data on more absent blades (or
// roles they were written without) than the level tolerates: they cannot
// be read until the blades return.
func (a *Array) Unreadable() []string { return a.Health().Unreadable }

// emptyTmp removes staging files on every blade.
func (a *Array) emptyTmp() {
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		ents, _ := b.fs.ReadDir(path.Join(Dir, "tmp"))
		for _, e := range ents {
			b.fs.Remove(path.Join(Dir, "tmp", e.Name()))
		}
		if len(ents) > 0 {
			b.fs.SyncDir(path.Join(Dir, "tmp"))
		}
	}
}

// Free returns the logical bytes that still fit: the smallest blade's free
// space times the data blades.
func (a *Array) Free() (uint64, error) {
	var least uint64 = 1<<63 - 1
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		f, err := b.fs.Free()
		if err != nil {
			return 0, fmt.Errorf("blade %s: %w", b.fs.Root(), err)
		}
		least = min(least, f)
	}
	return least * uint64(a.sb.DataBlades), nil
}

// BladeFree lists free bytes per role (0 for a missing blade).
func (a *Array) BladeFree() []uint64 {
	out := make([]uint64, len(a.blades))
	for r, b := range a.blades {
		if b != nil {
			out[r], _ = b.fs.Free()
		}
	}
	return out
}
