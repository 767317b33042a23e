package raid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// healthName is the health record on every blade: the damage a scrub or a
// read found and that is not repaired yet.
var healthName = path.Join(Dir, "HEALTH")

const healthMagic = "DIT-ARRAY-HEALTH"

// Damage states of a file in the health record.
const (
	// DamageDegraded: bad units that parity still makes up for; the file
	// reads, but one more bad unit in the same stripe loses it.
	DamageDegraded = "degraded"
	// DamageUnreadable: at least one stripe cannot be read.
	DamageUnreadable = "damaged"
)

// BadUnit is one unit (or chunk) known to be bad.
type BadUnit struct {
	Stripe   int64  `json:"stripe"`   // -1: the whole chunk (size wrong)
	Position int    `json:"position"` // data position, k = parity
	Role     int    `json:"role"`     // blade role
	Kind     string `json:"kind"`     // a scrub verdict (Issue* constants)
	From     int64  `json:"from"`     // logical byte range
	To       int64  `json:"to"`
}

// FileDamage is one file of the health record.
type FileDamage struct {
	FileID  string    `json:"file_id"`
	Path    string    `json:"path"`
	State   string    `json:"state"`    // degraded | damaged
	FoundBy string    `json:"found_by"` // scrub | read
	Found   time.Time `json:"found"`
	Units   []BadUnit `json:"units"`
}

// HealthRecord is the HEALTH file: JSON, then "\ncrc32c=XXXXXXXX\n".
type HealthRecord struct {
	Magic     string       `json:"magic"`
	Format    int          `json:"format"`
	ArrayUUID string       `json:"array_uuid"`
	Seq       uint64       `json:"seq"` // +1 per update; the highest valid copy wins
	Updated   time.Time    `json:"updated"`
	Writer    string       `json:"writer,omitempty"`
	Files     []FileDamage `json:"files"` // by file id
}

// Health record steps ("raid: " + ...), per blade written.
const (
	StepHealthStaged    = "raid: health record staged"    // tmp fsynced, not renamed
	StepHealthPublished = "raid: health record published" // renamed, folder fsynced
)

func encodeHealth(h *HealthRecord) []byte {
	b, _ := json.MarshalIndent(h, "", "  ")
	return append(b, []byte(fmt.Sprintf("\ncrc32c=%08x\n", crc32.Checksum(b, castagnoli)))...)
}

func decodeHealth(data []byte) (*HealthRecord, error) {
	i := bytes.LastIndex(data, []byte("\ncrc32c="))
	if i < 0 || !bytes.HasSuffix(data, []byte("\n")) || len(data)-i != len("\ncrc32c=")+9 {
		return nil, fmt.Errorf("health record: %w: no crc32c trailer", errCorrupt)
	}
	want, err := strconv.ParseUint(string(data[i+8:len(data)-1]), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("health record: %w: bad crc32c trailer", errCorrupt)
	}
	if got := crc32.Checksum(data[:i], castagnoli); uint64(got) != want {
		return nil, fmt.Errorf("health record: %w: crc32c %08x, trailer says %08x", errCorrupt, got, want)
	}
	var h HealthRecord
	if err := json.Unmarshal(data[:i], &h); err != nil {
		return nil, fmt.Errorf("health record: %w: %v", errCorrupt, err)
	}
	if h.Magic != healthMagic || h.Format != 1 {
		return nil, fmt.Errorf("health record: %w: magic %q format %d", errCorrupt, h.Magic, h.Format)
	}
	for _, f := range h.Files {
		if f.State != DamageDegraded && f.State != DamageUnreadable {
			return nil, fmt.Errorf("health record: %w: file %s state %q", errCorrupt, f.FileID, f.State)
		}
	}
	return &h, nil
}

// readHealth returns the valid health record with the highest seq among
// the present blades (nil if none). A damaged copy is passed over: the
// others, or the next scrub, tell.
func (a *Array) readHealth() *HealthRecord {
	var best *HealthRecord
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		data, err := readFile(b.fs, healthName)
		if err != nil {
			if !errIsNotExist(err) {
				a.note("health record", fmt.Sprintf("blade %s: %s unreadable: %v", b.fs.Root(), healthName, err))
			}
			continue
		}
		h, err := decodeHealth(data)
		if err != nil || h.ArrayUUID != a.sb.ArrayUUID {
			a.note("health record", fmt.Sprintf("blade %s: %s damaged or foreign (%v): passed over", b.fs.Root(), healthName, err))
			continue
		}
		if best == nil || h.Seq > best.Seq {
			best = h
		}
	}
	return best
}

// healthRecord returns the record loaded at open or last written.
func (a *Array) healthRecord() *HealthRecord {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.health
}

// updateHealth re-reads the record (another process may have written it),
// applies change to a copy of its files and, if they differ, writes the
// next generation to every present blade: tmp, fsync, rename, fsync dir,
// as every metadata file. A crash leaves each blade with the old or the
// new record; readers take the highest valid seq. Files no longer in the
// array are dropped.
func (a *Array) updateHealth(change func(files map[string]*FileDamage)) error {
	a.healthMu.Lock()
	defer a.healthMu.Unlock()
	cur := a.readHealth()
	if mine := a.healthRecord(); mine != nil && (cur == nil || mine.Seq > cur.Seq) {
		cur = mine
	}
	files := map[string]*FileDamage{}
	var seq uint64
	if cur != nil {
		seq = cur.Seq
		for i := range cur.Files {
			f := cur.Files[i]
			f.Units = append([]BadUnit(nil), f.Units...)
			files[f.FileID] = &f
		}
	}
	change(files)
	next := &HealthRecord{Magic: healthMagic, Format: 1, ArrayUUID: a.sb.ArrayUUID, Seq: seq + 1,
		Updated: time.Now().UTC(), Writer: a.opts.Writer, Files: []FileDamage{}}
	a.mu.RLock()
	for id, f := range files {
		_, known := a.byID[id]
		_, lost := a.lost[id]
		if len(f.Units) == 0 || (!known && !lost) {
			continue
		}
		if m := a.byID[id]; m != nil {
			f.Path = m.Path
		}
		sortUnits(f.Units)
		next.Files = append(next.Files, *f)
	}
	a.mu.RUnlock()
	sort.Slice(next.Files, func(i, j int) bool { return next.Files[i].FileID < next.Files[j].FileID })
	var old []FileDamage
	if cur != nil {
		old = cur.Files
	}
	if len(old) == 0 && len(next.Files) == 0 || reflect.DeepEqual(old, next.Files) {
		a.mu.Lock()
		a.health = cur
		a.mu.Unlock()
		return nil
	}
	data := encodeHealth(next)
	var errs []error
	wrote := false
	for _, b := range a.blades {
		if b == nil || b.sb == nil {
			continue // absent, or a new blade whose superblock is not written yet
		}
		if err := writeAtomicSteps(b.fs, healthName, data, StepHealthStaged, StepHealthPublished); err != nil {
			errs = append(errs, fmt.Errorf("blade %s: %w", b.fs.Root(), err))
			continue
		}
		wrote = true
	}
	if wrote {
		a.mu.Lock()
		a.health = next
		a.mu.Unlock()
	}
	err := errors.Join(errs...)
	if err != nil {
		a.note("health record", fmt.Sprintf("not written everywhere: %v", err))
	}
	return err
}

func sortUnits(u []BadUnit) {
	sort.Slice(u, func(i, j int) bool {
		if u[i].Stripe != u[j].Stripe {
			return u[i].Stripe < u[j].Stripe
		}
		if u[i].Position != u[j].Position {
			return u[i].Position < u[j].Position
		}
		return u[i].Kind < u[j].Kind
	})
}

// unitKey identifies a bad unit in a file.
func unitKey(u BadUnit) string { return fmt.Sprintf("%d/%d/%s", u.Stripe, u.Position, u.Kind) }

// fileState is the state of file id from its bad units and the members
// that can serve reads now (see damageState).
func (a *Array) fileState(id string, units []BadUnit) string {
	a.mu.RLock()
	m := a.byID[id]
	a.mu.RUnlock()
	return a.damageState(m, units, a.absent())
}

// damageState says whether a file with these bad units can be read now
// (absent: the roles that cannot serve reads). It is damaged when a unit
// is an unrecoverable stripe's, a data unit on RAID 0, or a bad unit whose
// stripe also needs a role the file lacks now (its blade absent, or the
// file written without it): parity cannot make up for two units of one
// stripe. Otherwise degraded: parity makes up for the bad units. m nil (a
// lost file): from the units alone.
func (a *Array) damageState(m *Manifest, units []BadUnit, absent map[int]string) string {
	var lack []int
	if m != nil {
		lack, _ = a.lacking(m, absent)
	}
	for _, u := range units {
		if u.Kind == IssueUnrecoverable || (a.sb.ParityBlades == 0 && u.Kind == IssueDataUnit) {
			return DamageUnreadable
		}
		if m != nil && stripeLacks(m.layout(), u, lack) {
			return DamageUnreadable
		}
	}
	return DamageDegraded
}

// stripeLacks says whether the stripe of bad unit u (every stripe when
// u.Stripe is -1: the whole chunk) has a unit on a role in lack other than
// u's own: then the stripe has no redundancy left to rebuild u from.
func stripeLacks(ly Layout, u BadUnit, lack []int) bool {
	for _, r := range lack {
		if r == u.Role {
			continue
		}
		var n int64 // the length of r's unit in the stripe (chunk)
		switch {
		case r >= ly.K && u.Stripe < 0:
			n = ly.ParityLen()
		case r >= ly.K:
			n = ly.UnitLen(u.Stripe, 0)
		case u.Stripe < 0:
			n = ly.ChunkLen(ly.Position(r))
		default:
			n = ly.UnitLen(u.Stripe, ly.Position(r))
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// recordScrub replaces what the record says about the files a scrub
// checked (every file when only is nil) with what it found and did not
// repair. Units on roles the scrub could not read (absent blades) are
// kept: nothing proved them repaired.
func (a *Array) recordScrub(rep *ScrubReport, only map[string]bool) error {
	absent := a.absent()
	found := map[string][]BadUnit{}
	paths := map[string]string{}
	for _, is := range rep.Issues {
		if is.Repaired || is.FileID == "" {
			continue
		}
		switch is.Kind {
		case IssueDataUnit, IssueParityUnit, IssueInconsistent, IssueChunkSize:
			found[is.FileID] = append(found[is.FileID], BadUnit{Stripe: is.Stripe, Position: is.Position, Role: is.Role, Kind: is.Kind, From: is.From, To: is.To})
		case IssueUnrecoverable:
			for i, pos := range is.bad {
				found[is.FileID] = append(found[is.FileID], BadUnit{Stripe: is.Stripe, Position: pos, Role: is.badRoles[i], Kind: is.Kind, From: is.From, To: is.To})
			}
		default:
			continue
		}
		paths[is.FileID] = is.Path
	}
	now := time.Now().UTC()
	return a.updateHealth(func(files map[string]*FileDamage) {
		for id, f := range files {
			if only != nil && !only[id] {
				continue
			}
			var keep []BadUnit
			for _, u := range f.Units {
				if _, gone := absent[u.Role]; gone {
					keep = append(keep, u)
				}
			}
			f.Units = keep
		}
		for id, units := range found {
			f := files[id]
			if f == nil {
				f = &FileDamage{FileID: id, Path: paths[id], FoundBy: "scrub", Found: now}
				files[id] = f
			}
			f.Units = append(f.Units, units...)
			f.FoundBy, f.Found = "scrub", now
		}
		for _, f := range files {
			f.State = a.fileState(f.FileID, f.Units)
		}
	})
}

// recordRead adds the bad units a read found to the record (best effort:
// a read never fails because the record could not be written).
func (a *Array) recordRead(m *Manifest, units []BadUnit) {
	now := time.Now().UTC()
	a.updateHealth(func(files map[string]*FileDamage) {
		f := files[m.FileID]
		if f == nil {
			f = &FileDamage{FileID: m.FileID, Path: m.Path, FoundBy: "read", Found: now}
			files[m.FileID] = f
		}
		have := map[string]bool{}
		for _, u := range f.Units {
			have[unitKey(u)] = true
		}
		for _, u := range units {
			if !have[unitKey(u)] {
				have[unitKey(u)] = true
				f.Units = append(f.Units, u)
			}
		}
		f.State = a.fileState(m.FileID, f.Units)
	})
}

// clearRole drops the record's units of file id on role r (the chunk was
// rebuilt there from the other roles, every unit checked).
func (a *Array) clearRole(id string, r int) {
	h := a.healthRecord()
	if h == nil {
		return
	}
	any := false
	for _, f := range h.Files {
		if f.FileID == id {
			for _, u := range f.Units {
				any = any || u.Role == r
			}
		}
	}
	if !any {
		return
	}
	a.updateHealth(func(files map[string]*FileDamage) {
		if f := files[id]; f != nil {
			var keep []BadUnit
			for _, u := range f.Units {
				if u.Role != r {
					keep = append(keep, u)
				}
			}
			f.Units = keep
			f.State = a.fileState(id, f.Units)
		}
	})
}

// writeAtomicSteps is writeAtomic with crash-test steps after the tmp file
// is durable and after the rename is.
func writeAtomicSteps(b BladeFS, name string, data []byte, staged, published string) error {
	tmp := path.Join(Dir, "tmp", path.Base(name)+"."+newID()[20:])
	f, err := b.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		b.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		b.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		b.Remove(tmp)
		return err
	}
	if staged != "" {
		hit(staged)
	}
	if err := b.Rename(tmp, name); err != nil {
		b.Remove(tmp)
		return err
	}
	if err := b.SyncDir(path.Dir(name)); err != nil {
		return err
	}
	if published != "" {
		hit(published)
	}
	return nil
}
