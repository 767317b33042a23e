package offload

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/source"
)

type planMode int

const (
	modeWrite   planMode = iota // no file at the target: write a temp, rename
	modeCompare                 // a file is there: compare bytes
	modeDone                    // verified by an earlier run of this job
	modeRefuse                  // verified earlier, but the card's file changed since: keep the copy
	// modeSealed: the card's ASC MHL chain file, at its copy's place the
	// card's chain extended by this job's own seal (sealedChain), not
	// recorded verified: the card's file is read (its hashes), nothing is
	// written, and the copy counts as verified.
	modeSealed
)

type destPlan struct {
	mode       planMode
	rel        string // relative to the destination root (slash)
	root       string // the destination root (its one string, shared)
	replaceOwn bool   // the file at target was written by this job and never verified
	prev       *catalog.Copy
	// partial: an interrupted run left a temp of this copy with a
	// checkpoint (mid-file resume); Temp is its full path.
	partial *catalog.Partial
	// rechecked: a copy an earlier run verified, read again (vouch); a
	// copy found different is refused as changed since it was verified.
	rechecked bool
}

// target is where the copy goes (absolute): made when asked, not held
// for every file of the card.
func (dp *destPlan) target() string { return filepath.Join(dp.root, filepath.FromSlash(dp.rel)) }

type filePlan struct {
	ent   source.Entry
	dests []destPlan
	prev  *catalog.File
	// prevErr: the earlier runs' record of the file could not be read
	// (prevRecords): the plan refuses the job, the run fails the file.
	prevErr error
	// probe: the file failed in an earlier run and a copy this job wrote
	// may be replaced; it is replaced only by a stable read: the card's
	// file is hashed once before the copy read, and both reads must agree.
	probe bool
	// counted: made for the pipeline, and counted live until its file's
	// final state is recorded (Job.plans).
	counted bool
}

// computeTotals sums what the plan will read and read back; called once
// after planning, before the pipeline starts.
func (c *cardRun) computeTotals() {
	if c.storeRun() {
		c.planStore()
		return
	}
	l := c.list
	for i := range l.len() {
		readNeeded := false
		size := l.size(i)
		for di := range c.dests {
			if !l.planned(i, di) {
				continue
			}
			if m := l.mode(i, di); m != modeDone && m != modeRefuse {
				readNeeded = true
				if c.j.opts.Verify != VerifyNone && m != modeSealed {
					c.verifyTotal += size
					c.destVerifTotal[di] += size
					c.lc.dests[di].verifyFiles++
				}
			}
		}
		if readNeeded {
			c.copyTotal += size
			c.lc.copyFiles++
		}
	}
}

// checkDestFolders refuses a symbolic link on the way from destination di's
// root to any folder of the card's copy: it could lead onto the card (the
// "copy" would be the card's own file, compared with itself and read back
// as verified, and temps would be written onto the card) or into another
// destination (one physical copy counted as two).
func (c *cardRun) checkDestFolders(di int) error {
	root := c.dests[di].root
	base := filepath.Join(root, filepath.FromSlash(c.out))
	dirs := []string{base}
	for _, dir := range c.scan.Dirs {
		dirs = append(dirs, filepath.Join(base, filepath.FromSlash(dir.Rel)))
	}
	checked := map[string]bool{}
	for _, p := range dirs {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		cur := root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, part)
			exists, seen := checked[cur]
			if !seen {
				fi, err := c.j.opts.FS.Lstat(cur)
				switch {
				case errors.Is(err, fs.ErrNotExist):
				case err != nil:
					return fmt.Errorf("cannot check %s: %w", cur, err)
				case fi.Mode()&fs.ModeSymlink != 0:
					return usageErrorf("%s is a symbolic link: dit writes a card's copy only into real folders of the destination (a link could lead onto the card or into another destination): replace it with a folder, or use another --layout", cur)
				}
				exists = err == nil
				checked[cur] = exists
			}
			if !exists {
				break // created by dit as a real folder
			}
		}
	}
	return nil
}

// plan decides, for destination di, what to do with each file, and returns
// the bytes that will be written there.
func (c *cardRun) plan(di int) (int64, error) {
	d := c.dests[di]
	if err := c.checkDestFolders(di); err != nil {
		return 0, err
	}
	// Temps of an interrupted run go; only after the check above, so that
	// nothing is removed through a link.
	resumable, keepTemp := c.resumableTemps(di)
	base := filepath.Join(d.root, filepath.FromSlash(c.out))
	aside := map[string][]string{}
	removeTemps(c.j.opts.FS, base, "", func(rel string) bool {
		return c.list.has(rel) || keepTemp[filepath.Join(base, filepath.FromSlash(rel))]
	}, func(p, of string) {
		aside[relJoin(c.out, of)] = append(aside[relJoin(c.out, of)], p)
	})
	c.mu.Lock()
	if len(c.asides) < len(c.dests) {
		c.asides = make([]map[string][]string, len(c.dests))
	}
	c.asides[di] = aside
	c.mu.Unlock()
	if len(c.resumable) < len(c.dests) {
		c.resumable = make([]map[string]*catalog.Partial, len(c.dests))
	}
	c.resumable[di] = resumable
	var need int64
	for i := range c.list.len() {
		// The file's plan is made, planned on di and kept in the list's
		// marks: never the card's plans at once.
		fp := c.filePlanAt(i)
		if fp.prevErr != nil {
			return 0, fp.prevErr
		}
		n, err := c.planFile(di, fp, resumable, aside)
		if err != nil {
			return 0, err
		}
		c.list.keep(i, di, fp)
		need += n
	}
	c.destNeed[di] = need
	return need, nil
}

// resumableTemps are the temps a resume goes on writing on destination
// di, by the card file's path (their checkpoints) and by their own path:
// only those whose checkpoint still fits the card's file and the temp;
// any other goes with the rest.
func (c *cardRun) resumableTemps(di int) (map[string]*catalog.Partial, map[string]bool) {
	d := c.dests[di]
	keepTemp := map[string]bool{}
	resumable := map[string]*catalog.Partial{}
	if len(c.partials) > 0 {
		for i := range c.list.len() {
			e := c.list.entry(i)
			p := c.partials[e.Rel][d.rec.ID]
			if p == nil || p.Size != e.Size || !p.Mtime.Equal(e.Mtime) || !fsys.CanAppend(c.j.opts.FS, p.Temp) {
				continue
			}
			if ti, err := c.j.opts.FS.Lstat(p.Temp); err == nil && ti.Mode().IsRegular() && ti.Size() >= p.Offset {
				keepTemp[p.Temp], resumable[e.Rel] = true, p
			}
		}
	}
	return resumable, keepTemp
}

// prevCopy is the file's copy on destination destID in an earlier run of
// the job (the last one recorded), or nil.
func (fp *filePlan) prevCopy(destID int64) *catalog.Copy {
	var prevCopy *catalog.Copy
	if fp.prev != nil {
		for i := range fp.prev.Copies {
			if fp.prev.Copies[i].DestID == destID {
				prevCopy = &fp.prev.Copies[i]
			}
		}
	}
	return prevCopy
}

// planFile decides what to do with fp on destination di (fp.dests[di])
// and returns the bytes that will be written there for it.
func (c *cardRun) planFile(di int, fp *filePlan, resumable map[string]*catalog.Partial, aside map[string][]string) (int64, error) {
	d := c.dests[di]
	if len(fp.dests) < len(c.dests) {
		fp.dests = make([]destPlan, len(c.dests))
	}
	rel := relJoin(c.out, fp.ent.Rel)
	dp := destPlan{rel: rel, root: d.root}
	prevCopy := fp.prevCopy(d.rec.ID)
	unchanged := fp.prev != nil && fp.prev.Size == fp.ent.Size && fp.prev.Mtime.Equal(fp.ent.Mtime)
	if prevCopy != nil && prevCopy.Path != "" {
		dp.rel = prevCopy.Path
	}
	dp.prev = prevCopy
	// A copy counts as verified only while its file does: a file that
	// failed (the card read differently twice, a copy that did not
	// verify) has hashes that cannot be trusted, so every copy of it is
	// compared again with a new read of the card, and one this job wrote
	// is replaced when it differs.
	verified := prevCopy != nil && prevCopy.State == StateVerified && fp.prev.State != StateFailed
	// Refused before (the card's file changed after its copy was
	// verified): still the verified footage, refused again while it
	// is there.
	refused := prevCopy != nil && prevCopy.State == StateFailed && strings.HasPrefix(prevCopy.Error, ChangedSinceVerified)
	if refused {
		if _, err := c.j.opts.FS.Lstat(dp.target()); err == nil {
			dp.mode = modeRefuse
			fp.dests[di] = dp
			return 0, nil
		}
	}
	if verified {
		if mode, ok := c.planVerified(di, fp, &dp, unchanged); ok {
			dp.mode = mode
			fp.dests[di] = dp
			return 0, nil
		}
		// Changed since it was verified (or gone): compared below like
		// anyone's file, never replaced as dit's own.
	}
	var need int64
	fi, err := c.j.opts.FS.Lstat(dp.target())
	switch {
	case err == nil && c.sealedChain(di, fp, dp):
		// The card's chain that this job's seal extended, whose copy
		// is not recorded verified (a run interrupted between the
		// seal and the catalog): never replaced (it would lose the
		// generations), never a conflict.
		dp.mode = modeSealed
	case err == nil:
		dp.mode = modeCompare
		dp.replaceOwn = prevCopy != nil && prevCopy.Written && !verified
		if dp.replaceOwn && fp.prev != nil && fp.prev.State == StateFailed {
			fp.probe = true
		}
		if dp.replaceOwn || c.j.opts.OnConflict == ConflictRename || !fi.Mode().IsRegular() || fi.Size() != fp.ent.Size {
			need += fp.ent.Size
		}
	case errors.Is(err, fs.ErrNotExist):
		dp.mode = modeWrite
		need += fp.ent.Size
		dp.partial = resumable[fp.ent.Rel]
		if dp.partial != nil {
			// The kept temp is written on, in the room it has already
			// (preallocated to the file's size): only the rest is needed.
			if ti, err := c.j.opts.FS.Lstat(dp.partial.Temp); err == nil {
				need -= min(fsys.Allocated(ti), fp.ent.Size)
			}
		}
		if fp.prev != nil && fp.prev.State == StateFailed && len(aside[dp.rel]) > 0 {
			// Its failed copy was moved aside (moveAside) and goes
			// once a new one verifies: that new copy comes, as a
			// replaced one would, from two reads that agree.
			fp.probe = true
		}
	default:
		return 0, fmt.Errorf("cannot check %s: %w", dp.target(), err)
	}
	fp.dests[di] = dp
	return need, nil
}

// planVerified is the mode of a copy verified by an earlier run of the
// job, when its file at dp.target() settles it (ok); otherwise (changed
// since, or gone) it is compared like anyone's file.
func (c *cardRun) planVerified(di int, fp *filePlan, dp *destPlan, unchanged bool) (planMode, bool) {
	fi, err := c.j.opts.FS.Lstat(dp.target())
	exists := err == nil
	// Intact: still the size and time dit gave it (the card file's
	// time, within the 2 s of FAT destinations).
	intact := exists && fi.Mode().IsRegular() && fi.Size() == fp.prev.Size &&
		fi.ModTime().Sub(fp.prev.Mtime).Abs() <= 2*time.Second
	if unchanged && intact {
		if why := c.j.vouch(dp.prev, fi); why != recheckNone {
			// Not the file that was verified, or nothing says it is:
			// read again and compared with the card, like anyone's.
			c.rechecks[why]++
			dp.rechecked = true
			return 0, false
		}
	}
	switch {
	case unchanged && intact:
		return modeDone, true
	case unchanged && exists && c.sealedChain(di, fp, *dp):
		// The card's ASC MHL chain, verified, then extended by
		// this job's seal: done (a resume writes nothing).
		return modeDone, true
	case !unchanged && exists:
		// A reformatted card with the same names must never
		// overwrite footage verified from the old one.
		return modeRefuse, true
	}
	return 0, false
}
