package raid

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

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
	g, err := gatherBlades(dirs, o)
	if err != nil {
		return nil, err
	}
	auth := authoritative(g.cands)
	if err := checkSplitBrain(g.cands, auth); err != nil {
		return nil, err
	}
	a := &Array{sb: cloneSB(auth), opts: o, blades: make([]*blade, auth.Roles()), rw: o.ReadWrite,
		byPath: map[string]*Manifest{}, byID: map[string]*Manifest{}, dirs: map[string]bool{}, hintWhy: g.hintWhy, lost: map[string]string{}}
	if err := a.seatBlades(g.cands, auth, len(dirs) == 1); err != nil {
		return nil, err
	}
	a.noteHintsNotTaken()
	k, su := auth.DataBlades, auth.StripeUnit
	a.bufPool.New = func() any {
		b := make([]byte, int64(k+1)*su)
		return &stripeBuf{data: b[:int64(k)*su], parity: b[int64(k)*su:]}
	}
	if err := a.checkWritable(); err != nil {
		return nil, err
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

// candidate is a blade folder considered while assembling: one given
// (dirs, OpenOptions.Blades) or one a superblock's path hint names.
type candidate struct {
	dir      string
	fs       BladeFS
	sb       *Superblock
	repaired bool
	given    bool
}

// gathering collects the candidates of one array, and why a hinted
// folder that exists was not taken as a member.
type gathering struct {
	o         OpenOptions
	cands     []*candidate
	seen      map[string]bool
	hintWhy   map[string]string
	arrayUUID string
}

// gatherBlades reads the superblocks of the given folders, then of every
// folder their members' path hints name, transitively. The array is the
// one of the first readable given blade; a given folder that is no blade,
// or a blade of another array, is an error.
func gatherBlades(dirs []string, o OpenOptions) (*gathering, error) {
	g := &gathering{o: o, seen: map[string]bool{}, hintWhy: map[string]string{}}
	for _, d := range append(append([]string(nil), dirs...), o.Blades...) {
		if err := g.add(d, true); err != nil {
			return nil, err
		}
	}
	for i := 0; i < len(g.cands); i++ {
		for _, m := range g.cands[i].sb.Members {
			if m.PathHint != "" {
				g.add(m.PathHint, false)
			}
		}
	}
	return g, nil
}

// add considers folder d once. Only a given folder returns an error; a
// hinted one that is unusable is recorded in hintWhy (or left out as
// missing when it is not there).
func (g *gathering) add(d string, given bool) error {
	abs, _ := filepath.Abs(d)
	if g.seen[abs] {
		return nil
	}
	g.seen[abs] = true
	b := g.o.FS(abs)
	sb, repaired, err := readSuperblock(b)
	if err != nil {
		if given {
			if errors.Is(err, ErrNotBlade) {
				return fmt.Errorf("%s is %w: give a blade folder of the array (it holds %s/SUPERBLOCK)", d, ErrNotBlade, Dir)
			}
			return err
		}
		g.noteUnreadableHint(b, abs, err)
		return nil
	}
	if g.arrayUUID == "" {
		g.arrayUUID = sb.ArrayUUID
	}
	if sb.ArrayUUID != g.arrayUUID {
		if given {
			return fmt.Errorf("blades from two arrays mixed: %s belongs to array %s, %s to array %s: name blades of one array",
				abs, sb.ArrayUUID, g.cands[0].dir, g.arrayUUID)
		}
		g.hintWhy[abs] = fmt.Sprintf("it holds a blade of another array (%s)", sb.ArrayUUID)
		return nil
	}
	g.cands = append(g.cands, &candidate{dir: abs, fs: b, sb: sb, repaired: repaired, given: given})
	return nil
}

// noteUnreadableHint says why a hinted folder whose superblock could not
// be read is not taken. A hinted blade that is not there is missing; one
// that is there but unusable is said so (not "reconnect it").
func (g *gathering) noteUnreadableHint(b BladeFS, abs string, err error) {
	switch {
	case errors.Is(err, ErrNotBlade):
		if _, serr := b.Stat("."); serr == nil {
			if ents, _ := b.ReadDir("."); len(ents) > 0 {
				g.hintWhy[abs] = "it holds no dit array (another disk mounted there, or the blade was emptied)"
			}
		}
	case !errIsNotExist(err):
		g.hintWhy[abs] = "its superblock is damaged: " + err.Error()
	}
}

// authoritative is the superblock with the highest events (the first of
// them on a tie).
func authoritative(cands []*candidate) *Superblock {
	auth := cands[0].sb
	for _, c := range cands {
		if c.sb.Events > auth.Events {
			auth = c.sb
		}
	}
	return auth
}

// checkSplitBrain refuses a blade that claims a newer state while the
// others carried on without it (they list its role as missing).
func checkSplitBrain(cands []*candidate, auth *Superblock) error {
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
			return fmt.Errorf("blade %s claims a newer array state (events %d) than blade %s (events %d), which carried on without it: refusing to assemble; remove %s and re-add it",
				holder, auth.Events, c.dir, c.sb.Events, holder)
		}
	}
	return nil
}

// seatBlades puts each candidate in its role. A blade of another geometry,
// a role claimed twice or a blade newer than the array is refused; a blade
// its role no longer names (replaced) is left out, and refused when it is
// the only one given.
func (a *Array) seatBlades(cands []*candidate, auth *Superblock, oneGiven bool) error {
	for _, c := range cands {
		if c.sb.DataBlades != auth.DataBlades || c.sb.Level != auth.Level || c.sb.StripeUnit != auth.StripeUnit {
			return fmt.Errorf("blade %s has a different geometry from the rest of array %s: refusing to assemble", c.dir, auth.ArrayUUID)
		}
		r := c.sb.This.Role
		m := auth.Members[r]
		if c.sb.This.UUID != m.BladeUUID {
			if c.given || m.State != MemberMissing {
				a.note("rejected", fmt.Sprintf("blade %s (role %d, uuid %s) was replaced by blade %s: it is no longer a member", c.dir, r, c.sb.This.UUID, m.BladeUUID))
			}
			if c.given && oneGiven {
				return fmt.Errorf("blade %s was role %d of array %s but was replaced by another blade: it is no longer a member", c.dir, r, auth.ArrayUUID)
			}
			a.hintWhy[c.dir] = fmt.Sprintf("it is the blade role %d had before it was replaced", r)
			continue
		}
		if prev := a.blades[r]; prev != nil {
			return fmt.Errorf("duplicate role %d: %s and %s both claim it (same blade copied?): remove one", r, prev.fs.Root(), c.dir)
		}
		// A member that is not active is stale whatever its events say:
		// a re-add or rebuild that was cut short gave it the array's
		// events before every file was on it.
		b := &blade{fs: c.fs, sb: c.sb, role: r, stale: m.State != MemberActive}
		if c.sb.Events > auth.Events {
			return fmt.Errorf("blade %s has a newer state than the array: refusing", c.dir)
		}
		a.blades[r] = b
		if c.repaired {
			a.note("superblock", fmt.Sprintf("blade %s: SUPERBLOCK was damaged; SUPERBLOCK.prev used", c.dir))
		}
	}
	return nil
}

// noteHintsNotTaken notes each empty role whose path hint holds a folder
// that was not taken as its member, and why.
func (a *Array) noteHintsNotTaken() {
	for r, m := range a.sb.Members {
		if why := a.hintWhy[m.PathHint]; why != "" && a.blades[r] == nil {
			a.note("not a member", fmt.Sprintf("role %d: %s is there but %s", r, m.PathHint, why))
		}
	}
}

// checkWritable refuses a read-write open with more unusable roles than
// the level tolerates (naming the files that cannot be read now), or a
// degraded one not allowed by OpenOptions.AllowDegraded.
func (a *Array) checkWritable() error {
	if !a.opts.ReadWrite {
		return nil
	}
	missing := a.unusable(true)
	parity := a.sb.ParityBlades
	if len(missing) > parity {
		if err := a.loadManifests(); err != nil {
			return err
		}
		lost := a.Unreadable()
		list := strings.Join(lost[:min(len(lost), 20)], "\n  ")
		if len(lost) > 20 {
			list += fmt.Sprintf("\n  ... and %d more", len(lost)-20)
		}
		return fmt.Errorf("array %s cannot be written: %s are not usable and %s tolerates %d; find the blades (use --blade DIR for moved ones). %d file(s) cannot be read now:\n  %s",
			a.sb.ArrayUUID, a.roleNotes(missing), a.sb.Level, parity, len(lost), list)
	}
	if len(missing) > 0 && !a.opts.AllowDegraded {
		return fmt.Errorf("array %s is degraded (%s): writing refused; %s",
			a.sb.ArrayUUID, a.roleNotes(missing), a.degradedAdvice(missing))
	}
	return nil
}
