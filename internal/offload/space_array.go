package offload

import (
	"fmt"
	"iter"
	"slices"

	"github.com/dit-org/dit/internal/fsys"
)

// checkArraySpace refuses a job whose files do not fit on the blades of a
// destination that is a dit array: what a file takes there depends on its
// size (a RAID 4 parity blade takes a whole stripe unit for a file of up
// to one), so the array's logical free space alone lets many small files
// through. Every file that may be written counts (to write, or to
// compare: it may be replaced), and a cascade's second run writes every
// file of the card. Folder destinations are not checked here, and their
// files' sizes are not gathered.
func (j *Job) checkArraySpace() error {
	for _, d := range j.dests {
		if fsys.ArrayAt(j.opts.FS, d.root) == nil {
			continue // not an array: no file's size is walked
		}
		if msg := fsys.ArraySpaceShortfall(j.opts.FS, d.root, j.arraySizes(d), SpaceMargin); msg != "" {
			return fmt.Errorf("not enough space on %s: %s: free space or choose another destination", d.root, msg)
		}
	}
	return nil
}

// arraySizes walks the sizes of the files the job may write to d, card
// by card, from their plans (nothing gathered: a walk reads the plans
// again).
func (j *Job) arraySizes(d *destination) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for _, c := range j.cards {
			if c.absent {
				continue
			}
			l := c.list
			for di, cd := range c.dests {
				if cd != d {
					continue
				}
				for i := range l.len() {
					if m := l.mode(i, di); l.planned(i, di) && (m == modeWrite || m == modeCompare) && !yield(l.size(i)) {
						return
					}
				}
			}
			if c.rec.Hop > 1 || j.secondOf(c) != nil || !slices.Contains(j.hopDests(2), d) {
				continue
			}
			for i := range l.len() {
				if !yield(l.size(i)) {
					return
				}
			}
		}
	}
}
