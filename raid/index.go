package raid

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

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
