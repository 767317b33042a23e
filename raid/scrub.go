package raid

import (
	"bytes"
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// Scrub verdicts.
const (
	IssueDataUnit      = "data unit corrupt"
	IssueParityUnit    = "parity unit corrupt"
	IssueInconsistent  = "inconsistent stripe"
	IssueUnrecoverable = "unrecoverable stripe"
	IssueChunkSize     = "chunk size wrong"
	IssueManifest      = "manifest replica damaged or missing"
	IssueOrphan        = "orphan chunk"
	// Redundancy: a member that cannot serve reads, a file that lacks a
	// role (one more lost blade loses it), a file that cannot be read.
	IssueMember       = "member not active"
	IssueNoRedundancy = "file without redundancy"
	IssueUnreadable   = "file unreadable"
)

// Issue is one finding of a scrub.
type Issue struct {
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	FileID   string `json:"file_id"`
	Stripe   int64  `json:"stripe"`   // -1 when not about one stripe
	Position int    `json:"position"` // data position, k = parity, -1 n/a
	Role     int    `json:"role"`     // blade role, -1 n/a
	Blade    string `json:"blade"`
	From     int64  `json:"from"` // logical byte range affected
	To       int64  `json:"to"`
	Repaired bool   `json:"repaired"`
	Detail   string `json:"detail,omitempty"`
	// bad and badRoles are the positions and roles of the bad units of
	// an unrecoverable stripe (the health record counts each).
	bad, badRoles []int
}

// ScrubReport is the result of a scrub.
type ScrubReport struct {
	Files    int      `json:"files"`
	Stripes  int64    `json:"stripes"`
	Bytes    int64    `json:"bytes"`
	Issues   []Issue  `json:"issues"`
	Repaired int      `json:"repaired"`
	Damaged  []string `json:"damaged_files"` // files with unrepaired damage
}

// Clean reports whether nothing was found.
func (r *ScrubReport) Clean() bool { return len(r.Issues) == 0 }

// Scrub reads every unit of every file (or of only, when given), checks
// unit hashes and parity, classifies each bad stripe, and with repair
// rewrites what can be proven right (array open read-write).
func (a *Array) Scrub(repair bool, only map[string]bool, progress func(done, total int)) (*ScrubReport, error) {
	if repair && !a.rw {
		return nil, errors.New("scrub --repair needs the array open read-write")
	}
	rep := &ScrubReport{}
	files := a.byFileID()
	var absent map[int]string
	if only == nil {
		absent = a.absent()
		a.scrubMembers(absent, rep)
		a.scrubLost(rep)
	}
	for i, m := range files {
		if only != nil && !only[m.FileID] {
			continue
		}
		rep.Files++
		a.scrubManifests(m, repair, rep)
		if !m.Dir {
			a.scrubFile(m, repair, rep)
		}
		if absent != nil {
			a.scrubRedundancy(m, absent, repair, rep)
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	if only == nil {
		a.scrubOrphans(rep)
	}
	if a.rw {
		a.saveScrubState(files)
	}
	for _, is := range rep.Issues {
		if is.Repaired {
			rep.Repaired++
		}
	}
	// What was found and not repaired is recorded with the array, so
	// status says it until a repair, a rebuild or a clean scrub.
	a.recordScrub(rep, only)
	return rep, nil
}

// scrubFile checks one file: its chunk sizes, then stripe by stripe its
// units; a file with a stripe left damaged is listed in rep.Damaged.
func (a *Array) scrubFile(m *Manifest, repair bool, rep *ScrubReport) {
	r := a.openManifest(m, true)
	defer r.Close()
	a.scrubChunkSizes(m, r, repair, rep)
	damaged := false
	for s := int64(0); s < int64(m.NStripes); s++ {
		if a.scrubStripe(m, r, s, repair, rep) {
			damaged = true
		}
	}
	if damaged {
		rep.Damaged = append(rep.Damaged, m.Path)
	}
}

// scrubChunkSizes checks the size of each available chunk of m against
// its manifest: a missing chunk or one of another size is an issue; with
// repair, a chunk longer than it should be is truncated.
func (a *Array) scrubChunkSizes(m *Manifest, r *FileReader, repair bool, rep *ScrubReport) {
	ly := m.layout()
	k := ly.K
	for pos := 0; pos < k+a.sb.ParityBlades; pos++ {
		want := ly.ParityLen()
		if pos < k {
			want = ly.ChunkLen(pos)
		}
		role := r.roleOf(pos)
		if !r.available(pos) {
			continue
		}
		fi, err := a.blades[role].fs.Stat(chunkName(m.FileID, pos, k))
		switch {
		case err != nil && want > 0:
			rep.Issues = append(rep.Issues, Issue{Kind: IssueChunkSize, Path: m.Path, FileID: m.FileID, Stripe: -1, Position: pos,
				Role: role, Blade: a.blades[role].fs.Root(), Detail: "chunk file missing: " + err.Error()})
		case err == nil && fi.Size() != want:
			is := Issue{Kind: IssueChunkSize, Path: m.Path, FileID: m.FileID, Stripe: -1, Position: pos, Role: role,
				Blade: a.blades[role].fs.Root(), Detail: fmt.Sprintf("chunk is %d bytes, manifest says %d", fi.Size(), want)}
			if repair && fi.Size() > want {
				if f, err := a.blades[role].fs.OpenFile(chunkName(m.FileID, pos, k), os.O_WRONLY, 0); err == nil {
					is.Repaired = f.Truncate(want) == nil && f.Sync() == nil
					f.Close()
				}
			}
			rep.Issues = append(rep.Issues, is)
		}
	}
}

// readStripeUnits reads every unit of stripe s as stored (no repair):
// units by position, and the positions that could not be read (absent
// blade, read error or unit hash mismatch). Data bytes read are counted.
func (a *Array) readStripeUnits(m *Manifest, r *FileReader, s int64, rep *ScrubReport) (units [][]byte, bad []int) {
	ly := m.layout()
	k := ly.K
	roles := k + a.sb.ParityBlades
	units = make([][]byte, roles)
	for pos := 0; pos < roles; pos++ {
		if pos < k && ly.UnitLen(s, pos) == 0 {
			continue // no such unit in the last stripe
		}
		if !r.available(pos) {
			bad = append(bad, pos)
			continue
		}
		u, err := r.rawUnit(s, pos)
		if err != nil {
			bad = append(bad, pos)
			continue
		}
		units[pos] = u
		if pos < k {
			rep.Bytes += int64(len(u))
		}
	}
	return units, bad
}

// stripeIssue is an issue of unit pos of stripe s of m; a data unit's
// range is its own, a parity unit's the stripe's (lo..hi).
func (a *Array) stripeIssue(m *Manifest, r *FileReader, s int64, kind string, pos int, lo, hi int64) Issue {
	ly := m.layout()
	role := r.roleOf(pos)
	is := Issue{Kind: kind, Path: m.Path, FileID: m.FileID, Stripe: s, Position: pos, Role: role, From: lo, To: hi}
	if b := a.blades[role]; b != nil {
		is.Blade = b.fs.Root()
	} else {
		is.Blade = a.sb.Members[role].PathHint + " (missing)"
	}
	if pos < ly.K {
		is.From = ly.UnitStart(s, pos)
		is.To = is.From + ly.UnitLen(s, pos) - 1
	}
	return is
}

// scrubStripe checks stripe s of m: every unit against its hash and, in
// RAID 4 with all units read, the parity against the data; a bad unit is
// repaired from the others when it can be and repair is set. It reports
// whether the stripe is left damaged.
func (a *Array) scrubStripe(m *Manifest, r *FileReader, s int64, repair bool, rep *ScrubReport) (damaged bool) {
	ly := m.layout()
	k := ly.K
	rep.Stripes++
	units, bad := a.readStripeUnits(m, r, s, rep)
	lo, hi := ly.UnitStart(s, 0), min(ly.UnitStart(s, 0)+ly.Width(), m.Size)-1
	issue := func(kind string, pos int) Issue { return a.stripeIssue(m, r, s, kind, pos, lo, hi) }
	// Units of absent blades, or of roles the file was written
	// without, are not damage found by this scrub: the file-level
	// redundancy check reports them.
	var found []int
	for _, pos := range bad {
		if r.available(pos) {
			found = append(found, pos)
		}
	}
	switch {
	case len(bad) == 0 && a.sb.ParityBlades == 1:
		x := make([]byte, len(units[k]))
		for pos := 0; pos <= k; pos++ {
			subtle.XORBytes(x[:len(units[pos])], x[:len(units[pos])], units[pos])
		}
		if !bytes.Equal(x, make([]byte, len(x))) {
			rep.Issues = append(rep.Issues, issue(IssueInconsistent, k))
			damaged = true
		}
	case len(found) == 0:
	case len(bad) == 1 && a.sb.ParityBlades == 1:
		pos := bad[0]
		kind := IssueDataUnit
		if pos == k {
			kind = IssueParityUnit
		}
		is := issue(kind, pos)
		if repair {
			is.Repaired = a.repairUnit(r, s, pos) == nil
		}
		if !is.Repaired {
			damaged = true
		}
		rep.Issues = append(rep.Issues, is)
	case a.sb.ParityBlades == 0:
		for _, pos := range found {
			is := issue(IssueDataUnit, pos)
			is.Detail = "RAID 0 has no parity to repair from: re-copy this file from the card or a backup"
			rep.Issues = append(rep.Issues, is)
		}
		damaged = true
	default:
		is := issue(IssueUnrecoverable, found[0])
		is.From, is.To = lo, hi
		is.Detail = fmt.Sprintf("bad units at positions %v", bad)
		for _, pos := range found {
			is.bad = append(is.bad, pos)
			is.badRoles = append(is.badRoles, r.roleOf(pos))
		}
		rep.Issues = append(rep.Issues, is)
		damaged = true
	}
	return damaged
}

// scrubMembers reports every role that cannot serve reads now.
func (a *Array) scrubMembers(absent map[int]string, rep *ScrubReport) {
	for r := range a.blades {
		why, ok := absent[r]
		if !ok {
			continue
		}
		is := Issue{Kind: IssueMember, Stripe: -1, Position: -1, Role: r, From: 0, To: -1}
		m := a.sb.Members[r]
		switch why {
		case MemberMissing:
			is.Blade = m.PathHint + " (missing)"
			is.Detail = fmt.Sprintf("role %d is missing: reconnect the blade (--blade DIR if it moved) or replace it (dit array replace BLADE --role %d --blade NEWDIR)", r, r)
			if w := a.hintWhy[m.PathHint]; w != "" {
				is.Detail = fmt.Sprintf("role %d is not usable: %s is there but %s; replace it (dit array replace BLADE --role %d --blade NEWDIR)", r, m.PathHint, w, r)
			}
		case MemberRebuilding:
			is.Blade = a.blades[r].fs.Root()
			if a.replacing(r) {
				is.Detail = fmt.Sprintf("role %d is being rebuilt (replace cut short): run dit array replace BLADE --role %d --blade %s again", r, r, is.Blade)
			} else {
				is.Detail = fmt.Sprintf("role %d is being re-added (cut short): the next read-write open (an offload, or dit array scrub --repair) finishes it", r)
			}
		default:
			is.Blade = a.blades[r].fs.Root()
			is.Detail = fmt.Sprintf("role %d is stale (files were written without it): the next read-write open (an offload, or dit array scrub --repair) re-adds it", r)
		}
		rep.Issues = append(rep.Issues, is)
	}
}

// scrubLost reports files whose every manifest replica is damaged.
func (a *Array) scrubLost(rep *ScrubReport) {
	a.mu.RLock()
	ids := make([]string, 0, len(a.lost))
	for id := range a.lost {
		ids = append(ids, id)
	}
	a.mu.RUnlock()
	sort.Strings(ids)
	for _, id := range ids {
		p := a.lost[id]
		rep.Issues = append(rep.Issues, Issue{Kind: IssueManifest, Path: p, FileID: id, Stripe: -1, Position: -1, Role: -1, To: -1,
			Detail: fmt.Sprintf("every replica of the manifest of file id %s is damaged: the file cannot be read; re-copy it from the card or a backup", id)})
		rep.Damaged = append(rep.Damaged, cmp.Or(p, "file id "+id))
	}
}

// scrubRedundancy reports a file that lacks a role it needs (written
// while the role was missing, or its blade absent now). With repair, a
// role that is here and active but that the file was never rebuilt onto
// (arrays rebuilt by an older dit) gets the file rebuilt onto it.
func (a *Array) scrubRedundancy(m *Manifest, absent map[int]string, repair bool, rep *ScrubReport) {
	lack, unreadable := a.lacking(m, absent)
	if len(lack) == 0 {
		return
	}
	is := Issue{Kind: IssueNoRedundancy, Path: m.Path, FileID: m.FileID, Stripe: -1, Position: -1, Role: lack[0], To: -1}
	if unreadable {
		is.Kind = IssueUnreadable
	}
	var why []string
	fixable := !unreadable && a.rw
	for _, r := range lack {
		mem := a.sb.Members[r]
		switch absent[r] {
		case MemberMissing:
			why = append(why, fmt.Sprintf("role %d is missing (last at %s)", r, mem.PathHint))
			fixable = false
		case MemberRebuilding:
			why = append(why, fmt.Sprintf("role %d (%s) is being rebuilt", r, a.blades[r].fs.Root()))
			fixable = false
		case "stale":
			why = append(why, fmt.Sprintf("role %d (%s) is stale", r, a.blades[r].fs.Root()))
			fixable = false
		default:
			why = append(why, fmt.Sprintf("written while role %d was missing and never rebuilt onto %s", r, a.blades[r].fs.Root()))
		}
	}
	if b := a.blades[lack[0]]; b != nil {
		is.Blade = b.fs.Root()
	} else {
		is.Blade = a.sb.Members[lack[0]].PathHint + " (missing)"
	}
	is.Detail = strings.Join(why, "; ")
	if unreadable {
		is.Detail += ": it cannot be read until the blades return"
	} else {
		is.Detail += ": one more lost blade makes it unreadable"
	}
	if repair && fixable {
		is.Repaired = true
		for _, r := range lack {
			cur := a.byID[m.FileID]
			if err := a.rebuildFile(r, cur); err != nil {
				is.Repaired = false
				is.Detail += fmt.Sprintf("; rebuilding onto role %d failed: %v", r, err)
				break
			}
		}
	}
	if !is.Repaired {
		rep.Damaged = append(rep.Damaged, m.Path)
	}
	rep.Issues = append(rep.Issues, is)
}

// repairUnit reconstructs unit (s, pos), verifies it and writes it in
// place with fdatasync. The other units of the stripe are untouched, so a
// crash during the repair leaves a state the next repair converges from.
func (a *Array) repairUnit(r *FileReader, s int64, pos int) error {
	u, err := r.reconstruct(s, pos)
	if err != nil {
		return err
	}
	role := r.roleOf(pos)
	b := a.blades[role]
	name := chunkName(r.m.FileID, pos, r.ly.K)
	mkdirDurable(b.fs, path.Dir(name))
	f, err := b.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(u, s*r.ly.SU); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := b.fs.SyncDir(path.Dir(name)); err != nil {
		return err
	}
	// Drop the cached handle so later reads see the repaired chunk.
	r.mu.Lock()
	if f, ok := r.files[pos]; ok {
		f.Close()
		delete(r.files, pos)
	}
	delete(r.ferr, pos)
	r.mu.Unlock()
	if got, err := r.rawUnit(s, pos); err != nil || !bytes.Equal(got, u) {
		return fmt.Errorf("repair of stripe %d did not read back: %v", s, err)
	}
	a.note("repaired", fmt.Sprintf("%s: stripe %d position %d rewritten on %s", r.m.Path, s, pos, b.fs.Root()))
	return nil
}

// scrubManifests compares every replica with the chosen one and
// re-replicates missing or damaged ones when repairing.
func (a *Array) scrubManifests(m *Manifest, repair bool, rep *ScrubReport) {
	want := encodeManifest(m)
	for role, b := range a.blades {
		if b == nil || a.sb.Members[role].State != MemberActive || b.stale {
			continue
		}
		got, err := readFile(b.fs, manifestName(m.FileID))
		if err == nil && bytes.Equal(got, want) {
			continue
		}
		detail := "missing"
		if err == nil {
			if om, derr := decodeManifest(got); derr != nil {
				detail = derr.Error()
			} else if om.Generation < m.Generation {
				detail = fmt.Sprintf("older generation %d", om.Generation)
			} else {
				detail = "differs"
			}
		}
		is := Issue{Kind: IssueManifest, Path: m.Path, FileID: m.FileID, Stripe: -1, Position: -1, Role: role, Blade: b.fs.Root(), Detail: detail}
		if repair {
			mkdirDurable(b.fs, path.Dir(manifestName(m.FileID)))
			is.Repaired = writeAtomic(b.fs, manifestName(m.FileID), want) == nil
		}
		rep.Issues = append(rep.Issues, is)
	}
}

// scrubOrphans reports chunks with no manifest and no intent.
func (a *Array) scrubOrphans(rep *ScrubReport) {
	for role, b := range a.blades {
		if b == nil {
			continue
		}
		fans, _ := b.fs.ReadDir(path.Join(Dir, "chunks"))
		for _, fan := range fans {
			ents, _ := b.fs.ReadDir(path.Join(Dir, "chunks", fan.Name()))
			for _, e := range ents {
				n := e.Name()
				if len(n) < 34 {
					continue
				}
				id := n[:32]
				if _, ok := a.byID[id]; ok {
					continue
				}
				if _, ok := a.lost[id]; ok {
					continue // reported with its manifest
				}
				if _, err := b.fs.Stat(intentName(id)); err == nil {
					continue
				}
				rep.Issues = append(rep.Issues, Issue{Kind: IssueOrphan, FileID: id, Stripe: -1, Position: -1, Role: role,
					Blade: b.fs.Root(), Detail: path.Join(Dir, "chunks", fan.Name(), n)})
			}
		}
	}
}

func (a *Array) saveScrubState(files []*Manifest) {
	st := map[string]time.Time{}
	now := time.Now().UTC()
	for _, m := range files {
		st[m.FileID] = now
	}
	data, _ := json.Marshal(st)
	for r := range a.blades {
		if a.writable(r) {
			writeAtomic(a.blades[r].fs, path.Join(Dir, "scrub", "state"), data)
		}
	}
}
