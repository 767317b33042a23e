package offload

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/offload/earlier"
)

// earlierHistory checks the history an earlier job left in the card's
// folder on remote destination di against the card's files as this job
// recorded them (earlier.RemoteHistory): how its chain was checked, or
// why it is not the card's, and whether it holds a generation of this
// job's own for the card there (own).
func (c *cardRun) earlierHistory(ctx context.Context, di int, files SealFiles, own string) (how string, ours bool, err error) {
	var werr error
	seq := func(yield func(earlier.Recorded) bool) {
		werr = files.Each(func(f *SealFile) error {
			if !yield(earlier.Recorded{Rel: f.Rel, Size: f.Size, Sums: f.Sums, State: f.State}) {
				return errWalkStopped
			}
			return nil
		})
		if errors.Is(werr, errWalkStopped) {
			werr = nil
		}
	}
	how, ours, err = earlier.RemoteHistory(ctx, c.stores[di], c.out, seq, own)
	if werr != nil {
		// A walk cut short checked only some files: nothing is kept.
		return "", false, fmt.Errorf("catalog: %w", werr)
	}
	return how, ours, err
}

// errWalkStopped ends a walk of the files its reader left.
var errWalkStopped = errors.New("walk stopped")

// notRecorded lists (at most 5, then a count) the verified files the
// records lack or record otherwise (earlier.NotRecorded).
func notRecorded(recs *ascmhl.Records, files []SealFile) []string {
	return earlier.NotRecorded(recs, recordedOf(files))
}

// recordedOf is what earlier reads of the files a seal is given.
func recordedOf(files []SealFile) iter.Seq[earlier.Recorded] {
	return func(yield func(earlier.Recorded) bool) {
		for _, f := range files {
			if !yield(earlier.Recorded{Rel: f.Rel, Size: f.Size, Sums: f.Sums, State: f.State}) {
				return
			}
		}
	}
}
