package resume

import (
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload/cascade"
)

// Recorded is what a job recorded of where it copies: the paths a
// resume restores (its JobSpec's Cards, Dests and Then), so a resumed
// job runs as it was started.
type Recorded struct {
	// Cards are the first-run cards' paths (a second run's row is not a
	// card given), Dests the first run's destinations, Then the second
	// run's; each in the order recorded.
	Cards, Dests, Then []string
}

// RecordedPaths reads Recorded from a job's card and destination rows.
func RecordedPaths(cards []*catalog.Card, dests []*catalog.Dest) Recorded {
	var r Recorded
	for _, k := range catalog.FirstRun(cards) {
		r.Cards = append(r.Cards, k.Path)
	}
	r.Dests, r.Then = cascade.Split(dests)
	return r
}
