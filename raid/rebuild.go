package raid

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/zeebo/xxh3"
)

// Replace puts a new, empty blade folder in place of role r and rebuilds
// its chunks from the other blades. Called again with the same folder after
// a crash, it resumes: a file counts as done once its manifest is on the
// new blade.
func (a *Array) Replace(r int, dir string, progress func(done, total int)) error {
	if !a.rw {
		return errors.New("replace needs the array open read-write (with --allow-degraded if it is degraded)")
	}
	if r < 0 || r >= a.sb.Roles() {
		return fmt.Errorf("role %d does not exist: roles are 0 to %d", r, a.sb.Roles()-1)
	}
	abs, _ := filepath.Abs(dir)
	nb := a.opts.FS(abs)
	resume := false
	if sb, _, err := readSuperblock(nb); err == nil {
		if sb.ArrayUUID != a.sb.ArrayUUID || sb.This.Role != r || sb.This.UUID != a.sb.Members[r].BladeUUID || a.sb.Members[r].State != MemberRebuilding {
			return fmt.Errorf("%s already holds a dit array member: give an empty folder", abs)
		}
		resume = true
	}
	if b := a.blades[r]; b != nil && !resume && a.sb.Members[r].State == MemberActive && b.fs.Root() != abs {
		for _, other := range a.Missing() {
			_ = other
		}
		if len(a.Missing()) == 0 {
			return fmt.Errorf("role %d is healthy on %s: replace a missing or failed blade", r, b.fs.Root())
		}
	}
	if !resume {
		for _, sub := range []string{"chunks", "manifests", "intents", "sessions", "scrub", "tmp"} {
			if err := mkdirDurable(nb, path.Join(Dir, sub)); err != nil {
				return fmt.Errorf("new blade %s: %w", abs, err)
			}
		}
		a.sb.Members[r] = Member{Role: r, BladeUUID: newID(), State: MemberRebuilding, PathHint: abs}
		a.sb.Events++
		a.sb.Rebuild = &RebuildState{Role: r, Started: time.Now().UTC()}
		a.blades[r] = &blade{fs: nb, role: r}
		if err := a.publishSB(); err != nil {
			return err
		}
		a.note("replace", fmt.Sprintf("role %d: rebuilding onto %s", r, abs))
	} else {
		a.blades[r] = &blade{fs: nb, role: r}
	}
	if err := a.rebuildRole(r, nil, progress); err != nil {
		return err
	}
	a.sb.Members[r].State = MemberActive
	a.sb.Rebuild = nil
	a.sb.Events++
	if err := a.publishSB(); err != nil {
		return err
	}
	a.note("replace", fmt.Sprintf("role %d rebuilt on %s", r, abs))
	return nil
}

// rebuildRole writes role r's chunks and manifests for every file (or the
// files in only) whose manifest is not yet on that blade.
func (a *Array) rebuildRole(r int, only map[string]bool, progress func(done, total int)) error {
	b := a.blades[r]
	files := a.byFileID()
	for i, m := range files {
		if only != nil && !only[m.FileID] {
			continue
		}
		if only == nil {
			if _, err := b.fs.Stat(manifestName(m.FileID)); err == nil {
				continue
			}
		}
		if err := a.rebuildFile(r, m); err != nil {
			return fmt.Errorf("rebuilding %s onto %s: %w", m.Path, b.fs.Root(), err)
		}
		if a.sb.Rebuild != nil {
			a.sb.Rebuild.FilesDone = i + 1
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	return nil
}

// rebuildFile reconstructs the chunk of role r of one file, checks every
// unit against the manifest, makes it durable, then copies the manifest.
func (a *Array) rebuildFile(r int, m *Manifest) error {
	b := a.blades[r]
	data := encodeManifest(m)
	if !m.Dir {
		ly := m.layout()
		k := ly.K
		pos := k
		if r < k {
			pos = ly.Position(r)
		}
		rd := a.openManifest(m, false)
		defer rd.Close()
		tmp := path.Join(Dir, "tmp", fmt.Sprintf("%s.%d.rebuild", m.FileID, pos))
		f, err := b.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		for s := int64(0); s < int64(m.NStripes); s++ {
			u, err := a.rebuildUnit(rd, s, pos)
			if err != nil {
				f.Close()
				b.fs.Remove(tmp)
				return err
			}
			if _, err := f.Write(u); err != nil {
				f.Close()
				b.fs.Remove(tmp)
				return err
			}
		}
		if err := f.Sync(); err != nil {
			f.Close()
			b.fs.Remove(tmp)
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		name := chunkName(m.FileID, pos, k)
		if err := mkdirDurable(b.fs, path.Dir(name)); err != nil {
			return err
		}
		if err := b.fs.Rename(tmp, name); err != nil {
			return err
		}
		if err := b.fs.SyncDir(path.Dir(name)); err != nil {
			return err
		}
	}
	if err := mkdirDurable(b.fs, path.Dir(manifestName(m.FileID))); err != nil {
		return err
	}
	return writeAtomic(b.fs, manifestName(m.FileID), data)
}

// rebuildUnit computes unit (s, pos) from the other units of the stripe
// (never from the blade being rebuilt) and checks it against its hash.
func (a *Array) rebuildUnit(rd *FileReader, s int64, pos int) ([]byte, error) {
	k := rd.ly.K
	want := rd.ly.UnitLen(s, 0)
	if pos < k {
		want = rd.ly.UnitLen(s, pos)
	}
	if want == 0 {
		return nil, nil
	}
	var u []byte
	if a.sb.ParityBlades == 0 {
		return nil, errors.New("RAID 0 cannot rebuild a blade: its data exists nowhere else")
	}
	out := make([]byte, rd.ly.UnitLen(s, 0))
	for i := 0; i <= k; i++ {
		if i == pos {
			continue
		}
		var err error
		if i < k {
			u, err = rd.unit(s, i)
		} else {
			u, err = rd.rawUnit(s, i)
		}
		if err != nil {
			return nil, fmt.Errorf("stripe %d: %w", s, err)
		}
		subtle.XORBytes(out[:len(u)], out[:len(u)], u)
	}
	out = out[:want]
	if xxh3.Hash128(out).Bytes() != rd.m.UnitHash(s, pos) {
		return nil, fmt.Errorf("stripe %d: rebuilt unit does not match its hash", s)
	}
	return out, nil
}

// reAdd brings a stale blade (same uuid, lower events: it was away while
// the array was written degraded) up to date: only the files written
// without its role, or whose manifest it lacks, are rebuilt onto it.
func (a *Array) reAdd(b *blade) error {
	r := b.role
	need := map[string]bool{}
	for _, m := range a.byFileID() {
		in := false
		for _, w := range m.WrittenWith {
			if w == r {
				in = true
			}
		}
		_, err := b.fs.Stat(manifestName(m.FileID))
		if !in || err != nil {
			need[m.FileID] = true
		}
	}
	b.stale = false
	a.sb.Members[r].State = MemberRebuilding
	if err := a.rebuildRole(r, need, nil); err != nil {
		a.sb.Members[r].State = MemberMissing
		b.stale = true
		return err
	}
	// The rebuilt files now have every role.
	for id := range need {
		m := a.byID[id]
		has := false
		for _, w := range m.WrittenWith {
			has = has || w == r
		}
		if !has {
			nm := *m
			nm.WrittenWith = append(append([]int(nil), m.WrittenWith...), r)
			nm.Generation++
			data := encodeManifest(&nm)
			for rr := range a.blades {
				if a.blades[rr] != nil && (a.writable(rr) || rr == r) {
					writeAtomic(a.blades[rr].fs, manifestName(id), data)
				}
			}
			a.index(&nm)
		}
	}
	a.sb.Members[r].State = MemberActive
	a.sb.Events++
	a.note("re-add", fmt.Sprintf("role %d (%s) was stale: %d file(s) rebuilt onto it", r, b.fs.Root(), len(need)))
	a.readded = append(a.readded, len(need))
	return a.publishSB()
}
