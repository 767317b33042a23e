package raid

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
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
	for i, m := range files {
		if only != nil && !only[m.FileID] {
			continue
		}
		rep.Files++
		a.scrubManifests(m, repair, rep)
		if !m.Dir {
			a.scrubFile(m, repair, rep)
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
	return rep, nil
}

func (a *Array) scrubFile(m *Manifest, repair bool, rep *ScrubReport) {
	ly := m.layout()
	k := ly.K
	r := a.openManifest(m, true)
	defer r.Close()
	roles := k + a.sb.ParityBlades
	damaged := false
	// Chunk sizes.
	for pos := 0; pos < roles; pos++ {
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
	for s := int64(0); s < int64(m.NStripes); s++ {
		rep.Stripes++
		units := make([][]byte, roles)
		var bad []int
		for pos := 0; pos < roles; pos++ {
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
		lo, hi := ly.UnitStart(s, 0), min(ly.UnitStart(s, 0)+ly.Width(), m.Size)-1
		issue := func(kind string, pos int) Issue {
			role := r.roleOf(pos)
			is := Issue{Kind: kind, Path: m.Path, FileID: m.FileID, Stripe: s, Position: pos, Role: role, From: lo, To: hi}
			if b := a.blades[role]; b != nil {
				is.Blade = b.fs.Root()
			} else {
				is.Blade = a.sb.Members[role].PathHint + " (missing)"
			}
			if pos < k {
				is.From = ly.UnitStart(s, pos)
				is.To = is.From + ly.UnitLen(s, pos) - 1
			}
			return is
		}
		// Units of missing blades are not damage found by this scrub.
		var found []int
		for _, pos := range bad {
			if a.blades[r.roleOf(pos)] != nil && a.sb.Members[r.roleOf(pos)].State == MemberActive {
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
				is.Detail = "RAID 0 cannot repair: re-copy this file from the card or a backup"
				rep.Issues = append(rep.Issues, is)
			}
			damaged = true
		default:
			is := issue(IssueUnrecoverable, found[0])
			is.From, is.To = lo, hi
			is.Detail = fmt.Sprintf("bad units at positions %v", bad)
			rep.Issues = append(rep.Issues, is)
			damaged = true
		}
	}
	if damaged {
		rep.Damaged = append(rep.Damaged, m.Path)
	}
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
