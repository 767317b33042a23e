package offload

import (
	"context"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/recheck"
)

// Recheck (dit verify, package recheck) under offload's names, the API
// the front ends have always used.

// RecheckResult is one copy read back by [Recheck] (recheck.Result).
type RecheckResult = recheck.Result

// RecheckOptions are the choices of [RecheckWith] (recheck.Options).
type RecheckOptions = recheck.Options

// RecheckProgress is how far a [RecheckWith] is (recheck.Progress).
type RecheckProgress = recheck.Progress

// States of a RecheckResult besides a copy's (verified, failed), and what
// a card whose history dit verify found changed records.
const (
	RecheckMissing  = recheck.Missing
	RecheckResealed = recheck.Resealed
	HistoryChanged  = recheck.HistoryChanged
)

// Recheck reads every copy of a job back from its medium now and compares
// it with the source hashes in the catalog (recheck.Job).
func Recheck(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, all bool, onResult func(RecheckResult)) (ok bool, err error) {
	return recheck.Job(ctx, cat, fsy, jobID, all, onResult)
}

// RecheckWith is [Recheck] with its options, and progress reports
// (recheck.JobWith).
func RecheckWith(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, opt RecheckOptions) (ok bool, err error) {
	return recheck.JobWith(ctx, cat, fsy, jobID, opt)
}
