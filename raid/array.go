package raid

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
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

// Create makes a new array over empty blade folders (role = argument
// order) and returns it opened read-write.
func Create(dirs []string, o CreateOptions) (*Array, error) {
	return CreateFS(dirs, o, nil)
}

// CreateFS is Create with a blade filesystem constructor (tests).
func CreateFS(dirs []string, o CreateOptions, mk func(string) BladeFS) (*Array, error) {
	if mk == nil {
		mk = func(d string) BladeFS { return DirFS{Dir: d} }
	}
	if o.Level == "" {
		o.Level = RAID4
	}
	if o.StripeUnit == 0 {
		o.StripeUnit = DefaultStripeUnit
	}
	n := len(dirs)
	switch {
	case o.Level != RAID0 && o.Level != RAID4:
		return nil, fmt.Errorf("unknown level %q: use 0 or 4", o.Level)
	case n < 2 || n > MaxBlades:
		return nil, fmt.Errorf("an array needs 2 to %d blades, got %d", MaxBlades, n)
	case o.Level == RAID4 && n < 3:
		return nil, fmt.Errorf("RAID 4 needs at least 3 blades (2 data + 1 parity), got %d", n)
	case o.StripeUnit < MinStripeUnit || o.StripeUnit > MaxStripeUnit || o.StripeUnit&(o.StripeUnit-1) != 0:
		return nil, fmt.Errorf("stripe unit %d is not a power of two between 64KiB and 16MiB", o.StripeUnit)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if seen[abs] {
			return nil, fmt.Errorf("blade %s is given twice", d)
		}
		seen[abs] = true
		b := mk(abs)
		if _, err := b.Stat(path.Join(Dir, "SUPERBLOCK")); err == nil {
			return nil, fmt.Errorf("blade %s already belongs to an array (%s exists): use it, or empty the folder", d, filepath.Join(abs, Dir))
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return nil, fmt.Errorf("blade %s is not a folder", d)
		}
	}
	parity := 0
	if o.Level == RAID4 {
		parity = 1
	}
	sb := Superblock{Magic: sbMagic, Format: 1, ArrayUUID: newID(), ArrayLabel: o.Label, Level: string(o.Level),
		DataBlades: n - parity, ParityBlades: parity, StripeUnit: o.StripeUnit, UnitHash: "xxh3-128",
		FileHashes: []string{"xxh64", "xxh3-128"}, MetaCRC: "crc32c", Events: 1, Created: time.Now().UTC(), Writer: o.Writer}
	for i, d := range dirs {
		abs, _ := filepath.Abs(d)
		sb.Members = append(sb.Members, Member{Role: i, BladeUUID: newID(), State: MemberActive, EventsSeen: 1, PathHint: abs})
	}
	for i, d := range dirs {
		abs, _ := filepath.Abs(d)
		b := mk(abs)
		for _, sub := range []string{"chunks", "manifests", "intents", "sessions", "scrub", "tmp"} {
			if err := mkdirDurable(b, path.Join(Dir, sub)); err != nil {
				return nil, fmt.Errorf("blade %s: %w", d, err)
			}
		}
		readme := fmt.Sprintf("Member %d of dit array %q (%s), %s.\nDo not edit, move or delete anything in this folder: it holds striped footage.\nUse `dit array status %s`.\n",
			i, o.Label, sb.ArrayUUID, o.Level, abs)
		if err := writeAtomic(b, path.Join(Dir, "README.txt"), []byte(readme)); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
		mine := sb
		mine.Members = append([]Member(nil), sb.Members...)
		mine.This = ThisBlade{UUID: sb.Members[i].BladeUUID, Role: i}
		if err := writeSuperblock(b, &mine); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
		if err := b.SyncDir(""); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
	}
	abs := make([]string, n)
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d)
	}
	return Open(abs, OpenOptions{ReadWrite: true, Writer: o.Writer, FS: mk})
}

// writeAtomic publishes a small file: tmp, fsync, rename, fsync dir.
func writeAtomic(b BladeFS, name string, data []byte) error {
	return writeAtomicSteps(b, name, data, "", "")
}

// mkdirDurable creates a folder (and its parents) and fsyncs the parent of
// each new folder, so the new entry survives a crash.
func mkdirDurable(b BladeFS, dir string) error {
	if _, err := b.Stat(dir); err == nil {
		return nil
	}
	if parent := path.Dir(dir); parent != "." && parent != "" {
		if err := mkdirDurable(b, parent); err != nil {
			return err
		}
	}
	if err := b.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return b.SyncDir(path.Dir(dir))
}

// writeSuperblock keeps the previous generation as SUPERBLOCK.prev.
func writeSuperblock(b BladeFS, sb *Superblock) error {
	name := path.Join(Dir, "SUPERBLOCK")
	if _, err := b.Stat(name); err == nil {
		if err := b.Rename(name, name+".prev"); err != nil {
			return err
		}
	}
	return writeAtomic(b, name, encodeSuperblock(sb))
}

func readFile(b BladeFS, name string) ([]byte, error) {
	f, err := b.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// readSuperblock reads SUPERBLOCK, falling back to SUPERBLOCK.prev when
// the current one is missing or fails its CRC. repaired says the fallback
// was used.
func readSuperblock(b BladeFS) (sb *Superblock, repaired bool, err error) {
	name := path.Join(Dir, "SUPERBLOCK")
	data, err := readFile(b, name)
	if err == nil {
		if sb, err = decodeSuperblock(data); err == nil {
			return sb, false, nil
		}
	}
	first := err
	if data, perr := readFile(b, name+".prev"); perr == nil {
		if sb, perr := decodeSuperblock(data); perr == nil {
			return sb, true, nil
		}
	}
	if errIsNotExist(first) {
		if _, serr := b.Stat(Dir); serr != nil {
			return nil, false, fmt.Errorf("%s: %w (no %s folder)", b.Root(), ErrNotBlade, Dir)
		}
	}
	return nil, false, fmt.Errorf("blade %s: superblock unreadable and no valid SUPERBLOCK.prev: %w", b.Root(), first)
}

// IsBlade reports whether dir holds a dit array member.
func IsBlade(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, Dir, "SUPERBLOCK"))
	if err != nil {
		_, err = os.Stat(filepath.Join(dir, Dir, "SUPERBLOCK.prev"))
	}
	return err == nil
}

// Open assembles the array from any of its blades, in any order: the
// other members are found through the path hints in the superblocks and
// opts.Blades. See the package doc for the rules.
func Open(dirs []string, o OpenOptions) (*Array, error) {
	if o.FS == nil {
		o.FS = func(d string) BladeFS { return DirFS{Dir: d} }
	}
	if o.ReadDeadline == 0 {
		o.ReadDeadline = 5 * time.Second
	}
	if len(dirs) == 0 && len(o.Blades) == 0 {
		return nil, errors.New("no blade given")
	}
	type cand struct {
		dir      string
		fs       BladeFS
		sb       *Superblock
		repaired bool
		given    bool
	}
	var cands []*cand
	seen := map[string]bool{}
	hintWhy := map[string]string{}
	var arrayUUID string
	add := func(d string, given bool) error {
		abs, _ := filepath.Abs(d)
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		b := o.FS(abs)
		sb, repaired, err := readSuperblock(b)
		if err != nil {
			if given {
				if errors.Is(err, ErrNotBlade) {
					return fmt.Errorf("%s is %w: give a blade folder of the array (it holds %s/SUPERBLOCK)", d, ErrNotBlade, Dir)
				}
				return err
			}
			// A hinted blade that is not there is missing; one that is
			// there but unusable is said so (not "reconnect it").
			switch {
			case errors.Is(err, ErrNotBlade):
				if _, serr := b.Stat("."); serr == nil {
					if ents, _ := b.ReadDir("."); len(ents) > 0 {
						hintWhy[abs] = "it holds no dit array (another disk mounted there, or the blade was emptied)"
					}
				}
			case !errIsNotExist(err):
				hintWhy[abs] = "its superblock is damaged: " + err.Error()
			}
			return nil
		}
		if arrayUUID == "" {
			arrayUUID = sb.ArrayUUID
		}
		if sb.ArrayUUID != arrayUUID {
			if given {
				return fmt.Errorf("blades from two arrays mixed: %s belongs to array %s, %s to array %s: name blades of one array",
					abs, sb.ArrayUUID, cands[0].dir, arrayUUID)
			}
			hintWhy[abs] = fmt.Sprintf("it holds a blade of another array (%s)", sb.ArrayUUID)
			return nil
		}
		cands = append(cands, &cand{dir: abs, fs: b, sb: sb, repaired: repaired, given: given})
		return nil
	}
	for _, d := range append(append([]string(nil), dirs...), o.Blades...) {
		if err := add(d, true); err != nil {
			return nil, err
		}
	}
	for i := 0; i < len(cands); i++ {
		for _, m := range cands[i].sb.Members {
			if m.PathHint != "" {
				add(m.PathHint, false)
			}
		}
	}
	// The authoritative superblock has the highest events.
	auth := cands[0].sb
	for _, c := range cands {
		if c.sb.Events > auth.Events {
			auth = c.sb
		}
	}
	// A blade that claims a newer state while the others carried on
	// without it (they list its role as missing) is a split brain: refuse.
	for _, c := range cands {
		if c.sb == auth || c.sb.Events >= auth.Events {
			continue
		}
		if m := c.sb.Members[auth.This.Role]; m.BladeUUID == auth.This.UUID && m.State == MemberMissing {
			var holder string
			for _, h := range cands {
				if h.sb == auth {
					holder = h.dir
				}
			}
			return nil, fmt.Errorf("blade %s claims a newer array state (events %d) than blade %s (events %d), which carried on without it: refusing to assemble; remove %s and re-add it",
				holder, auth.Events, c.dir, c.sb.Events, holder)
		}
	}
	a := &Array{sb: cloneSB(auth), opts: o, blades: make([]*blade, auth.Roles()), rw: o.ReadWrite,
		byPath: map[string]*Manifest{}, byID: map[string]*Manifest{}, dirs: map[string]bool{}, hintWhy: hintWhy, lost: map[string]string{}}
	for _, c := range cands {
		if c.sb.DataBlades != auth.DataBlades || c.sb.Level != auth.Level || c.sb.StripeUnit != auth.StripeUnit {
			return nil, fmt.Errorf("blade %s has a different geometry from the rest of array %s: refusing to assemble", c.dir, auth.ArrayUUID)
		}
		r := c.sb.This.Role
		m := auth.Members[r]
		if c.sb.This.UUID != m.BladeUUID {
			if c.given || m.State != MemberMissing {
				a.note("rejected", fmt.Sprintf("blade %s (role %d, uuid %s) was replaced by blade %s: it is no longer a member", c.dir, r, c.sb.This.UUID, m.BladeUUID))
			}
			if c.given && len(dirs) == 1 {
				return nil, fmt.Errorf("blade %s was role %d of array %s but was replaced by another blade: it is no longer a member", c.dir, r, auth.ArrayUUID)
			}
			hintWhy[c.dir] = fmt.Sprintf("it is the blade role %d had before it was replaced", r)
			continue
		}
		if prev := a.blades[r]; prev != nil {
			return nil, fmt.Errorf("duplicate role %d: %s and %s both claim it (same blade copied?): remove one", r, prev.fs.Root(), c.dir)
		}
		// A member that is not active is stale whatever its events say:
		// a re-add or rebuild that was cut short gave it the array's
		// events before every file was on it.
		b := &blade{fs: c.fs, sb: c.sb, role: r, stale: m.State != MemberActive}
		if c.sb.Events > auth.Events {
			return nil, fmt.Errorf("blade %s has a newer state than the array: refusing", c.dir)
		}
		a.blades[r] = b
		if c.repaired {
			a.note("superblock", fmt.Sprintf("blade %s: SUPERBLOCK was damaged; SUPERBLOCK.prev used", c.dir))
		}
	}
	for r, m := range a.sb.Members {
		if why := hintWhy[m.PathHint]; why != "" && a.blades[r] == nil {
			a.note("not a member", fmt.Sprintf("role %d: %s is there but %s", r, m.PathHint, why))
		}
	}
	k, su := auth.DataBlades, auth.StripeUnit
	a.bufPool.New = func() any {
		b := make([]byte, int64(k+1)*su)
		return &stripeBuf{data: b[:int64(k)*su], parity: b[int64(k)*su:]}
	}
	missing := a.unusable(o.ReadWrite)
	parity := auth.ParityBlades
	if len(missing) > parity && o.ReadWrite {
		if err := a.loadManifests(); err != nil {
			return nil, err
		}
		lost := a.Unreadable()
		list := strings.Join(lost[:min(len(lost), 20)], "\n  ")
		if len(lost) > 20 {
			list += fmt.Sprintf("\n  ... and %d more", len(lost)-20)
		}
		return nil, fmt.Errorf("array %s cannot be written: %s are not usable and %s tolerates %d; find the blades (use --blade DIR for moved ones). %d file(s) cannot be read now:\n  %s",
			auth.ArrayUUID, a.roleNotes(missing), auth.Level, parity, len(lost), list)
	}
	if len(missing) > 0 && o.ReadWrite && !o.AllowDegraded {
		return nil, fmt.Errorf("array %s is degraded (%s): writing refused; %s",
			auth.ArrayUUID, a.roleNotes(missing), a.degradedAdvice(missing))
	}
	if err := a.loadManifests(); err != nil {
		return nil, err
	}
	a.health = a.readHealth()
	if o.ReadWrite {
		if err := a.openRW(); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

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

// lockName is flocked on every blade while the array is open read-write.
const lockName = "LOCK"

// openRW locks the blades, recovers from an unclean shutdown, re-adds
// stale blades and marks the array dirty for this session.
func (a *Array) openRW() error {
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		if err := a.lockBlade(b); err != nil {
			return err
		}
	}
	wasDirty := false
	for _, b := range a.blades {
		if b != nil && b.sb.Dirty {
			wasDirty = true
		}
	}
	// Membership changes: missing blades are recorded, events bumped.
	changed := false
	for r, b := range a.blades {
		if b == nil && a.sb.Members[r].State == MemberActive {
			a.sb.Members[r].State = MemberMissing
			changed = true
			a.note("degraded", fmt.Sprintf("role %d (%s) is missing: array degraded", r, a.sb.Members[r].PathHint))
		}
	}
	// Stale blades are re-added. They are marked rebuilding before
	// anything else is written, so a crash at any point of the re-add
	// leaves them stale (never active without every file on them); the
	// next read-write open resumes.
	var readd []int
	for r, b := range a.blades {
		if b == nil || !b.stale || a.replacing(r) {
			continue
		}
		readd = append(readd, r)
		if a.sb.Members[r].State != MemberRebuilding {
			a.sb.Members[r].State = MemberRebuilding
			changed = true
		}
		if a.sb.Rebuild == nil {
			a.sb.Rebuild = &RebuildState{Role: r, Kind: RebuildReAdd, Started: time.Now().UTC()}
			changed = true
		}
	}
	if changed {
		a.sb.Events++
	}
	prevSessions := map[string]bool{}
	for _, b := range a.blades {
		if b != nil && b.sb.Dirty && b.sb.SessionID != "" {
			prevSessions[b.sb.SessionID] = true
		}
	}
	a.sb.Dirty = true
	a.sb.SessionID = newID()
	a.sb.Writer = a.opts.Writer
	if err := a.publishSB(); err != nil {
		return err
	}
	if len(readd) > 0 {
		hit(StepRebuildStarted)
	}
	if wasDirty {
		if err := a.recover(prevSessions); err != nil {
			return err
		}
	} else {
		a.emptyTmp()
	}
	for _, r := range readd {
		if err := a.reAdd(a.blades[r]); err != nil {
			return err
		}
	}
	return nil
}

// lockBlade takes the LOCK of one blade (folders of the OS only).
func (a *Array) lockBlade(b *blade) error {
	d, ok := b.fs.(DirFS)
	if !ok || b.lock != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(d.Dir, Dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("blade %s: %w", d.Dir, err)
	}
	if err := flock(f); err != nil {
		who, _ := io.ReadAll(f)
		f.Close()
		return fmt.Errorf("array %s is open for writing by another process (%s): wait for it to finish", a.sb.ArrayUUID, strings.TrimSpace(string(who)))
	}
	f.Truncate(0)
	host, _ := os.Hostname()
	fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), host)
	b.lock = f
	return nil
}

// publishSB writes the authoritative superblock to every present blade,
// each with its own identity and path hint; the roles in last are written
// after all the others.
func (a *Array) publishSB(last ...int) error {
	var errs []error
	for r, b := range a.blades {
		if b == nil {
			continue
		}
		a.sb.Members[r].PathHint = b.fs.Root()
		if a.sb.Members[r].State == MemberActive || a.sb.Members[r].State == MemberRebuilding {
			a.sb.Members[r].EventsSeen = a.sb.Events
		}
	}
	order := make([]int, 0, len(a.blades))
	for r := range a.blades {
		if !slices.Contains(last, r) {
			order = append(order, r)
		}
	}
	for _, r := range append(order, last...) {
		b := a.blades[r]
		if b == nil {
			continue
		}
		mine := cloneSB(a.sb)
		mine.This = ThisBlade{UUID: a.sb.Members[r].BladeUUID, Role: r}
		if err := writeSuperblock(b.fs, mine); err != nil {
			errs = append(errs, fmt.Errorf("blade %s: writing superblock: %w", b.fs.Root(), err))
			continue
		}
		b.sb = mine
	}
	return errors.Join(errs...)
}

// Close marks the session clean and releases the locks.
func (a *Array) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	var err error
	if a.rw {
		a.sb.Dirty = false
		a.sb.LastCleanClose = time.Now().UTC()
		err = a.publishSB()
	}
	for _, b := range a.blades {
		if b != nil && b.lock != nil {
			b.lock.Close()
			b.lock = nil
		}
	}
	return err
}

// loadManifests reads every manifest replica of the active members; per
// file the highest valid generation wins. Damaged replicas are noted
// (scrub re-replicates); a file whose every replica is damaged is recorded
// as lost, so nothing (extract, scrub, status) passes over it in silence.
// Replicas on stale or rebuilding blades are not read: they may be older
// than the array (a file renamed or deleted while the blade was away).
func (a *Array) loadManifests() error {
	damaged := map[string]string{}
	defer func() {
		for id, hint := range damaged {
			if _, ok := a.byID[id]; !ok {
				a.lost[id] = hint
			}
		}
	}()
	for r, b := range a.blades {
		if b == nil || b.stale || a.sb.Members[r].State != MemberActive {
			continue
		}
		fans, err := b.fs.ReadDir(path.Join(Dir, "manifests"))
		if err != nil {
			if errIsNotExist(err) {
				continue
			}
			return fmt.Errorf("blade %s: %w", b.fs.Root(), err)
		}
		for _, fan := range fans {
			ents, err := b.fs.ReadDir(path.Join(Dir, "manifests", fan.Name()))
			if err != nil {
				continue
			}
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".bam") {
					continue
				}
				name := path.Join(Dir, "manifests", fan.Name(), e.Name())
				data, err := readFile(b.fs, name)
				if err != nil {
					a.note("manifest", fmt.Sprintf("blade %s: %s unreadable: %v", b.fs.Root(), name, err))
					if id := strings.TrimSuffix(e.Name(), ".bam"); len(id) == 32 {
						if _, ok := damaged[id]; !ok {
							damaged[id] = ""
						}
					}
					continue
				}
				m, err := decodeManifest(data)
				if err != nil || m.ArrayUUID != a.sb.ArrayUUID || m.FileID+".bam" != e.Name() {
					a.note("manifest", fmt.Sprintf("blade %s: %s damaged: %v", b.fs.Root(), name, err))
					if id := strings.TrimSuffix(e.Name(), ".bam"); len(id) == 32 && damaged[id] == "" {
						damaged[id] = manifestPathHint(data)
					}
					continue
				}
				a.index(m)
			}
		}
	}
	return nil
}

func (a *Array) index(m *Manifest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.byID[m.FileID]; ok {
		if old.Generation >= m.Generation {
			return
		}
		if a.byPath[old.Path] == old {
			delete(a.byPath, old.Path)
		}
	}
	a.byID[m.FileID] = m
	for d := path.Dir(m.Path); d != "." && d != "/"; d = path.Dir(d) {
		a.dirs[d] = true
	}
	if m.Dir {
		a.dirs[m.Path] = true
	}
	if cur, ok := a.byPath[m.Path]; ok && cur.FileID != m.FileID && cur.CommittedAt.After(m.CommittedAt) {
		return
	}
	a.byPath[m.Path] = m
}

// Lookup returns the manifest of a logical path.
func (a *Array) Lookup(p string) (*Manifest, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	m, ok := a.byPath[p]
	return m, ok
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

// IsDir reports whether p is a folder of the array ("" is the root).
func (a *Array) IsDir(p string) bool {
	if p == "" || p == "." {
		return true
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.dirs[p]
}

// Files lists every manifest sorted by path.
func (a *Array) Files() []*Manifest {
	a.mu.RLock()
	out := make([]*Manifest, 0, len(a.byPath))
	for _, m := range a.byPath {
		out = append(out, m)
	}
	a.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// byFileID lists manifests in file id (creation) order.
func (a *Array) byFileID() []*Manifest {
	a.mu.RLock()
	out := make([]*Manifest, 0, len(a.byID))
	for _, m := range a.byID {
		out = append(out, m)
	}
	a.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].FileID < out[j].FileID })
	return out
}

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

var _ = json.Marshal
var _ fs.FileInfo
