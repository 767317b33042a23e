package raid

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sort"
	"time"
)

// Health is what an array can still survive. An array is healthy only if
// every member is active and present and every committed file is on every
// role it needs: a file written while a role was missing stays without
// redundancy until that role is rebuilt onto it.
type Health struct {
	// State: healthy; degraded (a member is not active, or a file lacks
	// redundancy: bad units parity makes up for); damaged (a file cannot
	// be read: known bad units no parity makes up for); failed (more
	// members gone than the level tolerates, or a file lost).
	State string `json:"health"` // healthy | degraded | damaged | failed
	// Members are the roles that cannot serve reads now: missing, stale
	// (returned after files were written without it) or rebuilding.
	Members map[int]string `json:"members_not_active,omitempty"`
	// Unprotected are RAID 4 files that lack one role: one more lost
	// blade makes them unreadable.
	Unprotected []string `json:"files_without_redundancy,omitempty"`
	// Unreadable are files that cannot be read now.
	Unreadable []string `json:"files_unreadable,omitempty"`
	// Lost are files whose every manifest replica is damaged ("file id
	// ID (PATH)"): the file cannot be found or read.
	Lost []string `json:"files_lost,omitempty"`
	// DamagedUnits counts the bad units the health record holds: found
	// by a scrub or a read, not repaired yet.
	DamagedUnits int `json:"damaged_units"`
	// Damaged are the files of the health record, by path.
	Damaged []DamagedFile `json:"files_damaged,omitempty"`
}

// DamagedFile is a file with known bad units.
type DamagedFile struct {
	Path    string    `json:"path"`
	FileID  string    `json:"file_id"`
	State   string    `json:"state"` // degraded (reads from parity) | damaged (cannot be read)
	Units   int       `json:"units"`
	Roles   []int     `json:"roles"` // blade roles of the bad units
	FoundBy string    `json:"found_by"`
	Found   time.Time `json:"found"`
}

// Healthy reports whether nothing is wrong.
func (h Health) Healthy() bool { return h.State == "healthy" }

// absent maps each role whose blade cannot serve reads now to the reason.
func (a *Array) absent() map[int]string {
	out := map[int]string{}
	for r, b := range a.blades {
		st := a.sb.Members[r].State
		switch {
		case b == nil:
			out[r] = MemberMissing
		case st == MemberRebuilding:
			out[r] = MemberRebuilding
		case b.stale || st != MemberActive:
			out[r] = "stale"
		}
	}
	return out
}

// lacking lists the roles that file m needs (a non-empty chunk on them)
// but cannot be read from now: written without them, or their blade
// absent. unreadable says the level cannot make up for them.
func (a *Array) lacking(m *Manifest, absent map[int]string) (lack []int, unreadable bool) {
	if m.Dir {
		return nil, false
	}
	written := map[int]bool{}
	for _, w := range m.WrittenWith {
		written[w] = true
	}
	ly := m.layout()
	var need []int
	for j := 0; j < ly.K; j++ {
		if ly.ChunkLen(j) > 0 {
			need = append(need, ly.Role(j))
		}
	}
	if a.sb.ParityBlades == 1 && ly.ParityLen() > 0 {
		need = append(need, ly.K)
	}
	for _, r := range need {
		if _, gone := absent[r]; gone || !written[r] {
			lack = append(lack, r)
		}
	}
	sort.Ints(lack)
	return lack, len(lack) > a.sb.ParityBlades
}

// Health says whether every file is readable and redundant now: from
// the members present and the files' written_with, and from the health
// record (bad units a scrub or a read found and nothing repaired since).
func (a *Array) Health() Health {
	h := Health{Members: a.absent()}
	unreadable, unprotected := map[string]bool{}, map[string]bool{}
	liveUnreadable := false
	for _, m := range a.Files() {
		lack, bad := a.lacking(m, h.Members)
		switch {
		case bad:
			unreadable[m.Path] = true
			liveUnreadable = true
		case len(lack) > 0:
			unprotected[m.Path] = true
		}
	}
	recordUnreadable := false
	if rec := a.healthRecord(); rec != nil {
		a.mu.RLock()
		for _, f := range rec.Files {
			m, ok := a.byID[f.FileID]
			if !ok || len(f.Units) == 0 {
				continue
			}
			// The state now: the record's units with the members
			// present now (a bad unit whose stripe lost another role
			// since it was recorded cannot be read any more).
			d := DamagedFile{Path: m.Path, FileID: f.FileID, State: a.damageState(m, f.Units, h.Members), Units: len(f.Units), FoundBy: f.FoundBy, Found: f.Found}
			for _, u := range f.Units {
				if !slices.Contains(d.Roles, u.Role) {
					d.Roles = append(d.Roles, u.Role)
				}
			}
			sort.Ints(d.Roles)
			h.DamagedUnits += d.Units
			h.Damaged = append(h.Damaged, d)
			if d.State == DamageUnreadable {
				unreadable[m.Path] = true
				recordUnreadable = true
			} else {
				unprotected[m.Path] = true
			}
		}
		a.mu.RUnlock()
		sort.Slice(h.Damaged, func(i, j int) bool { return h.Damaged[i].Path < h.Damaged[j].Path })
	}
	for p := range unreadable {
		h.Unreadable = append(h.Unreadable, p)
	}
	for p := range unprotected {
		if !unreadable[p] {
			h.Unprotected = append(h.Unprotected, p)
		}
	}
	sort.Strings(h.Unreadable)
	sort.Strings(h.Unprotected)
	a.mu.RLock()
	for id, p := range a.lost {
		if p == "" {
			h.Lost = append(h.Lost, "file id "+id)
		} else {
			h.Lost = append(h.Lost, fmt.Sprintf("file id %s (%s)", id, p))
		}
	}
	a.mu.RUnlock()
	sort.Strings(h.Lost)
	switch {
	case liveUnreadable || len(h.Lost) > 0 || len(h.Members) > a.sb.ParityBlades:
		h.State = "failed"
	case recordUnreadable:
		h.State = "damaged"
	case len(h.Members) > 0 || len(h.Unprotected) > 0:
		h.State = "degraded"
	default:
		h.State = "healthy"
	}
	return h
}

// lostIDs lists the files whose every manifest replica is damaged.
func (a *Array) lostIDs() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]string, 0, len(a.lost))
	for id := range a.lost {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// manifestPathHint returns the logical path a damaged manifest's JSON
// still names, if it parses ("" otherwise): for messages only.
func manifestPathHint(data []byte) string {
	if len(data) < 12 || string(data[:4]) != manifestMagic {
		return ""
	}
	jl := int(binary.LittleEndian.Uint32(data[8:]))
	if jl <= 0 || 12+jl > len(data) {
		return ""
	}
	var meta struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(data[12:12+jl], &meta) != nil || checkLogicalPath(meta.Path) != nil {
		return ""
	}
	return meta.Path
}

// blockSize is what a blade filesystem allocates in: a chunk or a
// manifest takes whole blocks.
const blockSize = 4096

func blocks(n int64) int64 { return (n + blockSize - 1) / blockSize * blockSize }

// BladeNeed is the space files of the given sizes take on each role's
// blade (bytes, rounded up to filesystem blocks, with a manifest replica
// per file). On RAID 4 the parity blade takes, per file, as much as the
// file's largest data chunk (L_0): the whole file for a file of up to one
// stripe unit, so many small files need about k times more there than
// their size spread over the k data blades. Data chunks are counted as
// the rotation spreads them (from the next rotation, in the given order),
// plus one stripe unit per data blade for files written in another order.
// sizes is walked once, nothing of it held.
func (a *Array) BladeNeed(sizes iter.Seq[int64]) []int64 {
	k, su, roles := a.sb.DataBlades, a.sb.StripeUnit, a.sb.Roles()
	need := make([]int64, roles)
	start := int(a.start.Load()) % k
	i := 0
	for size := range sizes {
		if i == 0 {
			for r := range k {
				need[r] = su
			}
		}
		ly := Layout{K: k, SU: su, Start: (start + i) % k, Size: size}
		man := blocks(1024 + 16*int64(roles)*ly.Stripes())
		for r := 0; r < k; r++ {
			need[r] += blocks(ly.ChunkLen(ly.Position(r))) + man
		}
		if a.sb.ParityBlades == 1 {
			need[k] += blocks(ly.ParityLen()) + man
		}
		i++
	}
	return need
}
