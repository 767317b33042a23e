package raid

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"
)

// Remove deletes a logical file (or empty folder) for good: a delete
// intent on every blade, then the manifests, then the chunks, then the
// intent. A crash in between is finished by the next read-write open.
func (a *Array) Remove(p string) error {
	if !a.rw {
		return errors.New("array is open read-only")
	}
	m, ok := a.Lookup(p)
	if !ok {
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrNotExist}
	}
	if m.Dir {
		prefix := p + "/"
		for _, o := range a.Files() {
			if len(o.Path) > len(prefix) && o.Path[:len(prefix)] == prefix {
				return &fs.PathError{Op: "remove", Path: p, Err: fmt.Errorf("folder not empty")}
			}
		}
	}
	return a.removeManifest(m)
}

// removeManifest deletes one file id: delete intent everywhere first.
func (a *Array) removeManifest(m *Manifest) error {
	intent, _ := json.Marshal(map[string]any{"kind": "delete", "file_id": m.FileID, "path": m.Path, "session": a.sb.SessionID})
	for r := range a.blades {
		if a.writable(r) {
			if err := writeAtomic(a.blades[r].fs, intentName(m.FileID), intent); err != nil {
				return fmt.Errorf("blade %s: writing delete intent: %w", a.blades[r].fs.Root(), err)
			}
		}
	}
	a.unindex(m)
	a.finishDelete(m.FileID)
	return nil
}

// RenameReplace gives a committed file the path newp, replacing the file
// there atomically for readers: the renamed manifest (a newer commit) is
// written first and wins over the old one; then the old file is deleted.
// A crash in between leaves the new content visible at newp and the old
// one as an unreferenced duplicate that the next delete or scrub clears.
func (a *Array) RenameReplace(oldp, newp string) error {
	prev, had := a.Lookup(newp)
	if !had {
		return a.Rename(oldp, newp)
	}
	if !a.rw {
		return errors.New("array is open read-only")
	}
	m, ok := a.Lookup(oldp)
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldp, Err: fs.ErrNotExist}
	}
	if prev.Dir || m.Dir {
		return &fs.PathError{Op: "rename", Path: newp, Err: fmt.Errorf("folders are not replaced")}
	}
	if err := a.writeRenamed(m, newp); err != nil {
		return err
	}
	return a.removeManifest(prev)
}

// finishDelete removes every trace of a file id on every present blade.
func (a *Array) finishDelete(id string) {
	k := a.sb.DataBlades
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		b.fs.Remove(manifestName(id))
		b.fs.SyncDir(path.Dir(manifestName(id)))
		for pos := 0; pos <= k; pos++ {
			b.fs.Remove(chunkName(id, pos, k))
		}
		b.fs.SyncDir(path.Join(Dir, "chunks", fanout(id)))
		b.fs.Remove(intentName(id))
		b.fs.SyncDir(path.Join(Dir, "intents"))
	}
}

func (a *Array) unindex(m *Manifest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.byID, m.FileID)
	if a.byPath[m.Path] == m {
		delete(a.byPath, m.Path)
	}
}

// Rename gives a committed file a new logical path (a new manifest
// generation on every blade); it never replaces an existing path.
func (a *Array) Rename(oldp, newp string) error {
	if !a.rw {
		return errors.New("array is open read-only")
	}
	if err := checkLogicalPath(newp); err != nil {
		return err
	}
	m, ok := a.Lookup(oldp)
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldp, Err: fs.ErrNotExist}
	}
	if _, ok := a.Lookup(newp); ok {
		return &fs.PathError{Op: "rename", Path: newp, Err: fs.ErrExist}
	}
	return a.writeRenamed(m, newp)
}

func (a *Array) writeRenamed(m *Manifest, newp string) error {
	if err := checkLogicalPath(newp); err != nil {
		return err
	}
	oldp := m.Path
	nm := *m
	nm.Path = newp
	nm.Generation++
	nm.CommittedAt = time.Now().UTC()
	data := encodeManifest(&nm)
	for r := range a.blades {
		if a.writable(r) {
			if err := writeAtomic(a.blades[r].fs, manifestName(m.FileID), data); err != nil {
				return fmt.Errorf("blade %s: renaming %s: %w", a.blades[r].fs.Root(), oldp, err)
			}
		}
	}
	a.index(&nm)
	return nil
}
