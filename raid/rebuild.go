package raid

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zeebo/xxh3"
)

// Replace puts a new, empty blade folder in place of role r and rebuilds
// onto it every file of the array: its chunk (data or parity) rebuilt from
// the other blades, and its manifest. Files written while role r was
// missing get a new manifest generation that lists r. The member becomes
// active only once every file is on it. Called again with the same folder
// after a crash, it resumes: a file is done once its manifest (listing r)
// is on the new blade.
func (a *Array) Replace(r int, dir string, progress func(done, total int)) error {
	if !a.rw {
		return errors.New("replace needs the array open read-write (with --allow-degraded if it is degraded)")
	}
	abs, nb, resume, done, err := a.replaceArgs(r, dir)
	if err != nil || done {
		return err
	}
	// Every file is rebuilt from all the other roles: each must be here,
	// active, and hold every file.
	for q := range a.blades {
		if q != r && !a.writable(q) {
			return fmt.Errorf("cannot rebuild role %d: %s, and role %d is rebuilt from all the others: bring it back first (--blade DIR)", r, a.roleNotes([]int{q}), r)
		}
	}
	if !resume {
		for _, sub := range []string{"chunks", "manifests", "intents", "sessions", "scrub", "tmp"} {
			if err := mkdirDurable(nb, path.Join(Dir, sub)); err != nil {
				return fmt.Errorf("new blade %s: %w", abs, err)
			}
		}
		if old := a.blades[r]; old != nil && old.lock != nil {
			old.lock.Close()
		}
		a.sb.Members[r] = Member{Role: r, BladeUUID: newID(), State: MemberRebuilding, PathHint: abs}
		a.sb.Events++
		a.sb.Rebuild = &RebuildState{Role: r, Kind: RebuildReplace, Started: time.Now().UTC()}
		a.blades[r] = &blade{fs: nb, role: r, stale: true}
		// The new blade's superblock last: a crash before it leaves the
		// others naming the folder, and the replace resumes there.
		if err := a.publishSB(r); err != nil {
			return err
		}
		hit(StepRebuildStarted)
		a.note("replace", fmt.Sprintf("role %d: rebuilding onto %s", r, abs))
	} else if b := a.blades[r]; b == nil || b.fs.Root() != abs {
		a.blades[r] = &blade{fs: nb, role: r, stale: true}
		if err := a.publishSB(); err != nil {
			return err
		}
	}
	if err := a.lockBlade(a.blades[r]); err != nil {
		return err
	}
	n, err := a.resync(r, progress)
	if err != nil {
		return err
	}
	a.note("replace", fmt.Sprintf("role %d rebuilt on %s (%d file(s))", r, abs, n))
	return nil
}

// CheckReplace refuses what [Array.Replace] would refuse of its
// arguments (errors wrapping [ErrInvalid]): a role that does not exist or
// is healthy, RAID 0, a folder that is missing, not empty or another
// member. It writes nothing: dit checks on a read-only open first.
func (a *Array) CheckReplace(r int, dir string) error {
	_, _, _, _, err := a.replaceArgs(r, dir)
	return err
}

// replaceArgs checks Replace's arguments: the new blade's folder abs (nb),
// whether a replace onto it resumes, or is done already.
func (a *Array) replaceArgs(r int, dir string) (abs string, nb BladeFS, resume, done bool, err error) {
	if r < 0 || r >= a.sb.Roles() {
		return "", nil, false, false, invalidf("role %d does not exist: roles are 0 to %d (dit array status shows them)", r, a.sb.Roles()-1)
	}
	if a.sb.ParityBlades == 0 {
		return "", nil, false, false, invalidf("RAID 0 has no parity: a lost blade cannot be rebuilt; re-copy its files from the cards or a backup")
	}
	abs, _ = filepath.Abs(dir)
	nb = a.opts.FS(abs)
	mem := a.sb.Members[r]
	sb, _, serr := readSuperblock(nb)
	switch {
	case serr == nil && sb.ArrayUUID == a.sb.ArrayUUID && sb.This.Role == r && sb.This.UUID == mem.BladeUUID && a.replacing(r):
		resume = true
	case serr == nil && sb.ArrayUUID == a.sb.ArrayUUID && sb.This.UUID == mem.BladeUUID && sb.This.Role == r:
		if b := a.blades[r]; b != nil && b.fs.Root() == abs && a.writable(r) {
			// Run again after a replace that finished (its last step
			// was cut short, or it is simply run twice): nothing to do.
			a.note("replace", fmt.Sprintf("role %d is already active on %s", r, abs))
			return abs, nb, false, true, nil
		}
		err = invalidf("%s is role %d of this array already (%s): nothing to replace", abs, r, mem.State)
	case serr == nil:
		err = invalidf("%s already holds a dit array member (array %s, role %d): give an empty folder", abs, sb.ArrayUUID, sb.This.Role)
	case a.replacing(r) && mem.PathHint == abs:
		resume = true // the new blade's superblock was not written yet
	default:
		err = checkEmptyFolder(nb)
	}
	if err != nil {
		return "", nil, false, false, err
	}
	if b := a.blades[r]; b != nil && !resume && mem.State == MemberActive && !b.stale {
		return "", nil, false, false, invalidf("role %d is healthy on %s: replace a missing or failed blade", r, b.fs.Root())
	}
	return abs, nb, resume, false, nil
}

// checkEmptyFolder refuses a new blade folder that does not exist or holds
// anything but what an OS puts on a fresh volume: dit never deletes what
// it did not write.
func checkEmptyFolder(b BladeFS) error {
	if _, err := b.Stat("."); err != nil {
		return invalidf("new blade %s: %v: create the folder (on the new blade) first", b.Root(), err)
	}
	ents, err := b.ReadDir(".")
	if err != nil {
		return fmt.Errorf("new blade %s: %w", b.Root(), err)
	}
	var other []string
	for _, e := range ents {
		if e.Name() == Dir && e.IsDir() && bareSkeleton(b, Dir) {
			continue // a replace cut short before its first superblock
		}
		switch e.Name() {
		case ".DS_Store", ".Spotlight-V100", ".Trashes", ".fseventsd", ".TemporaryItems", "lost+found", "System Volume Information", "$RECYCLE.BIN":
			continue
		}
		other = append(other, e.Name())
	}
	if len(other) > 0 {
		sort.Strings(other)
		if len(other) > 3 {
			other = append(other[:3], "...")
		}
		return invalidf("new blade %s is not empty (%s): give an empty folder; dit never deletes what it finds there", b.Root(), strings.Join(other, ", "))
	}
	return nil
}

// bareSkeleton says whether folder dir of b holds only empty folders (and
// dit's README.txt, LOCK or staging files): what a replace leaves when it
// is cut short before it wrote a superblock.
func bareSkeleton(b BladeFS, dir string) bool {
	ents, err := b.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		switch {
		case e.IsDir() && p == path.Join(Dir, "tmp"):
		case e.IsDir():
			if !bareSkeleton(b, p) {
				return false
			}
		case p == path.Join(Dir, "README.txt") || p == path.Join(Dir, lockName):
		default:
			return false
		}
	}
	return true
}

// onRole says whether file m is complete on role r: r is in its
// written_with and r's blade holds its current manifest replica (written
// only after the chunk was durable).
func (a *Array) onRole(m *Manifest, r int) bool {
	if !slices.Contains(m.WrittenWith, r) {
		return false
	}
	got, err := readFile(a.blades[r].fs, manifestName(m.FileID))
	return err == nil && bytes.Equal(got, encodeManifest(m))
}

// resync brings role r (a new blade being rebuilt, or a stale blade being
// re-added; state rebuilding) up to date: every file not complete on it is
// rebuilt onto it, then the member becomes active. It returns the number
// of files rebuilt. Any error leaves the member rebuilding: run again.
func (a *Array) resync(r int, progress func(done, total int)) (int, error) {
	b := a.blades[r]
	for q := range a.blades {
		if q != r && !a.writable(q) {
			return 0, fmt.Errorf("cannot bring role %d (%s) up to date: %s, and every other role is needed", r, b.fs.Root(), a.roleNotes([]int{q}))
		}
	}
	files := a.byFileID()
	n := 0
	for i, m := range files {
		if !a.onRole(m, r) {
			if err := a.rebuildFile(r, m); err != nil {
				return n, fmt.Errorf("rebuilding %s onto %s: %w", m.Path, b.fs.Root(), err)
			}
			n++
		}
		if a.sb.Rebuild != nil && a.sb.Rebuild.Role == r {
			a.sb.Rebuild.FilesDone = i + 1
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	// Never active unless every file is on it.
	for _, m := range a.byFileID() {
		if !a.onRole(m, r) {
			return n, fmt.Errorf("role %d on %s: %s is still not on it after the rebuild: run it again", r, b.fs.Root(), m.Path)
		}
	}
	a.sb.Members[r].State = MemberActive
	if a.sb.Rebuild != nil && a.sb.Rebuild.Role == r {
		a.sb.Rebuild = nil
	}
	b.stale = false
	a.sb.Events++
	if err := a.publishSB(); err != nil {
		return n, err
	}
	hit(StepMemberActive)
	return n, nil
}

// rebuildFile reconstructs the chunk of role r of one file from the other
// roles, checks every unit against the manifest, makes it durable; then,
// if the manifest does not list r yet (the file was written while r was
// missing), a new generation that lists r goes to every other blade; the
// manifest replica on r's blade comes last and marks the file done.
func (a *Array) rebuildFile(r int, m *Manifest) error {
	b := a.blades[r]
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
		hit(StepChunkRebuilt)
	}
	if !slices.Contains(m.WrittenWith, r) {
		nm := *m
		nm.WrittenWith = append(append([]int(nil), m.WrittenWith...), r)
		sort.Ints(nm.WrittenWith)
		nm.Generation++
		data := encodeManifest(&nm)
		for q := range a.blades {
			if q == r || !a.writable(q) {
				continue
			}
			qb := a.blades[q]
			if err := mkdirDurable(qb.fs, path.Dir(manifestName(m.FileID))); err != nil {
				return err
			}
			if err := writeAtomic(qb.fs, manifestName(m.FileID), data); err != nil {
				return fmt.Errorf("blade %s: manifest of %s: %w", qb.fs.Root(), m.Path, err)
			}
		}
		a.index(&nm)
		m = &nm
		hit(StepManifestWidened)
	}
	if err := mkdirDurable(b.fs, path.Dir(manifestName(m.FileID))); err != nil {
		return err
	}
	if err := writeAtomic(b.fs, manifestName(m.FileID), encodeManifest(m)); err != nil {
		return err
	}
	hit(StepFileRebuilt)
	// Every unit of the chunk on r was rebuilt and checked: bad units
	// recorded there are gone.
	a.clearRole(m.FileID, r)
	return nil
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

// reAdd brings a stale blade (same uuid; it was away while the array was
// written degraded, or its re-add was cut short) up to date: only the
// files written without its role, or whose current manifest it lacks, are
// rebuilt onto it.
func (a *Array) reAdd(b *blade) error {
	r := b.role
	n, err := a.resync(r, nil)
	if err != nil {
		a.note("re-add", fmt.Sprintf("role %d (%s) could not be re-added: %v", r, b.fs.Root(), err))
		return fmt.Errorf("re-adding role %d (%s): %w", r, b.fs.Root(), err)
	}
	a.note("re-add", fmt.Sprintf("role %d (%s) was stale: %d file(s) rebuilt onto it", r, b.fs.Root(), n))
	a.readded = append(a.readded, n)
	return nil
}
