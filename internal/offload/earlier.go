package offload

import (
	"context"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/earlier"
	"github.com/dit-org/dit/internal/source"
)

// What earlier jobs left (package earlier) under offload's names, the API
// the front ends have always used.

// EvAlreadyOffloaded is the event a front end emits for a card it skips
// because [FindPrior] found it offloaded and verified before.
const EvAlreadyOffloaded EventType = "already_offloaded"

// Prior is an earlier offload of exactly a card's content (earlier.Prior).
type Prior = earlier.Prior

// CardHistory describes an ASC MHL history a card carries
// (earlier.CardHistory).
type CardHistory = earlier.CardHistory

// FindPrior looks each card up before an offload (earlier.FindPrior):
// the earlier offloads of each card whose copies are still whole on the
// destinations given (dests), and the ASC MHL histories the cards carry.
func FindPrior(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, cards []string, includeHidden bool, ignore []string, dests ...string) ([]*Prior, []CardHistory, error) {
	return earlier.FindPrior(ctx, cat, fsy, cards, includeHidden, ignore, dests...)
}

// ScanCard scans a card as an offload copies it (earlier.ScanCard).
func ScanCard(fsy fsys.FS, root string, includeHidden bool, ignore ...string) (*source.Card, *ascmhl.Records, error) {
	return earlier.ScanCard(fsy, root, includeHidden, ignore...)
}
