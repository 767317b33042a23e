package cascade

import "github.com/dit-org/dit/internal/catalog"

// Second reports whether card row k is a second run (hop 2).
func Second(k *catalog.Card) bool { return k.Hop == 2 }

// EventHop is the hop the events and progress of card row k carry: 2 for
// a second run, 0 (not said) for a first run, so a job without a
// cascade says no hop at all.
func EventHop(k *catalog.Card) int {
	if Second(k) {
		return 2
	}
	return 0
}

// Split returns the paths of a job's recorded destinations by run: the
// first run's (Dests) and the second run's (Then), each in the order
// recorded.
func Split(dests []*catalog.Dest) (first, then []string) {
	for _, d := range dests {
		if d.Run() == 2 { // the second run, from the first copy: Then
			then = append(then, d.Path)
		} else {
			first = append(first, d.Path)
		}
	}
	return first, then
}
