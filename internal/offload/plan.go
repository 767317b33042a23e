package offload

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
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
	target     string // absolute
	replaceOwn bool   // the file at target was written by this job and never verified
	prev       *catalog.Copy
	// partial: an interrupted run left a temp of this copy with a
	// checkpoint (mid-file resume); Temp is its full path.
	partial *catalog.Partial
}

type filePlan struct {
	ent   source.Entry
	dests []destPlan
	prev  *catalog.File
	// probe: the file failed in an earlier run and a copy this job wrote
	// may be replaced; it is replaced only by a stable read: the card's
	// file is hashed once before the copy read, and both reads must agree.
	probe bool
}

// computeTotals sums what the plan will read and read back; called once
// after planning, before the pipeline starts.
func (c *cardRun) computeTotals() {
	for _, fp := range c.files {
		readNeeded := false
		for di := range fp.dests {
			if m := fp.dests[di].mode; m != modeDone && m != modeRefuse {
				readNeeded = true
				if c.j.opts.Verify != VerifyNone && m != modeSealed {
					c.verifyTotal += fp.ent.Size
					c.destVerifTotal[di] += fp.ent.Size
				}
			}
		}
		if readNeeded {
			c.copyTotal += fp.ent.Size
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
