package raid

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

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
