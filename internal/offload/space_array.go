package offload

import (
	"fmt"

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
	sizes := map[*destination][]int64{}
	for _, d := range j.dests {
		if fsys.ArrayAt(j.opts.FS, d.root) != nil {
			sizes[d] = nil
		}
	}
	if len(sizes) == 0 {
		return nil // no array: no file's size is gathered (8 B a file of every card)
	}
	for _, c := range j.cards {
		if c.absent {
			continue
		}
		for di, d := range c.dests {
			l := c.list
			if _, array := sizes[d]; !array {
				continue
			}
			for i := range l.len() {
				if l.planned(i, di) && (l.mode(i, di) == modeWrite || l.mode(i, di) == modeCompare) {
					sizes[d] = append(sizes[d], l.size(i))
				}
			}
		}
		if c.rec.Hop <= 1 && j.secondOf(c) == nil {
			for _, d := range j.hopDests(2) {
				if _, array := sizes[d]; !array {
					continue
				}
				for i := range c.list.len() {
					sizes[d] = append(sizes[d], c.list.size(i))
				}
			}
		}
	}
	for _, d := range j.dests {
		if msg := fsys.ArraySpaceShortfall(j.opts.FS, d.root, sizes[d], SpaceMargin); msg != "" {
			return fmt.Errorf("not enough space on %s: %s: free space or choose another destination", d.root, msg)
		}
	}
	return nil
}
