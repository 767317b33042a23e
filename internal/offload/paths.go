package offload

import (
	"fmt"

	"github.com/dit-org/dit/internal/offload/dest"
)

// Overlaps makes the overlap checks a job makes of its cards and
// destinations before it starts, on the paths alone (symlinks resolved
// where they exist): no card inside another, no destination that is, is
// inside or contains a card, no two destinations inside each other. A
// front end refuses a folder with it the moment the folder is added, in
// the job's own words; whether each exists is the job's check.
func Overlaps(cards, dests []string) error {
	var cp, dp []string
	for _, c := range cards {
		r, err := dest.Resolve(c)
		if err != nil {
			return err
		}
		for _, prev := range cp {
			if within(r, prev) || within(prev, r) {
				return fmt.Errorf("card %s and card %s overlap (one is inside the other): name each card once", prev, r)
			}
		}
		cp = append(cp, r)
	}
	for _, d := range dests {
		r, err := dest.Resolve(d)
		if err != nil {
			return err
		}
		for _, c := range cp {
			switch {
			case r == c:
				return fmt.Errorf("destination %s is the card %s itself: dit never writes to a card; choose another destination", d, c)
			case within(r, c):
				return fmt.Errorf("destination %s is inside the card %s: dit never writes to a card; choose a folder on another drive", d, c)
			case within(c, r):
				return fmt.Errorf("destination %s contains the card %s: the copy would land in what is being read; choose another folder", d, c)
			}
		}
		for _, prev := range dp {
			if within(r, prev) || within(prev, r) {
				return fmt.Errorf("destinations %s and %s overlap (one is inside the other): choose separate folders", prev, r)
			}
		}
		dp = append(dp, r)
	}
	return nil
}
