package offload

import (
	"context"
	"path/filepath"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// Limiter paces the pipeline (bandwidth budgets, simulation). WaitRead is
// called before each block read from card (the index of the card in the
// job, command-line order); WaitWrite before each block written by that
// card to dest; WaitVerify before each block read back for verification:
// a copy of card on dest (or a file already at the copy's place, read to
// compare), or with dest -1 the card itself re-read (VerifySourceDest). n is the bytes about to be read or written. All must
// return early with ctx.Err() when ctx ends.
type Limiter interface {
	WaitRead(ctx context.Context, card int, n int) error
	WaitWrite(ctx context.Context, card, dest int, n int) error
	WaitVerify(ctx context.Context, card, dest int, n int) error
}

// SealFile is one file of a card as recorded, for a sealer.
type SealFile struct {
	Rel   string
	Size  int64
	Mtime time.Time
	Sums  hashing.Sums // source hashes (action "original")
	// State is the copy's state on this destination (verified, failed,
	// copied, present, skipped); Verified the time it was read back.
	State    string
	Verified time.Time
	// VerifyAlgos are the algorithms recomputed on read-back.
	VerifyAlgos []hashing.Algo
	Error       string
}

// SealInfo describes one card on one destination once every file of the
// card has reached its final state. A sealer (ASC MHL writer) turns it into
// the proof that travels with the copy.
type SealInfo struct {
	JobID       int64
	JobName     string
	Host        string
	ToolVersion string
	Started     time.Time
	Algos       []hashing.Algo
	Card        catalog.Card
	CardRoot    string // the card itself (read-only), e.g. to find an earlier ascmhl history
	DestRoot    string // the -d folder
	CardDir     string // the card's folder on this destination (absolute)
	Files       []SealFile
	Skipped     []catalog.Skip
	Finished    time.Time
	// FS is the job's filesystem: on a dit array destination the card's
	// folder is a logical folder of the array, reachable only through it.
	FS fsys.FS
}

// seal runs Options.Seal for every destination of a finished card.
func (c *cardRun) seal(ctx context.Context) {
	j := c.j
	if j.opts.Seal == nil || ctx.Err() != nil {
		return
	}
	if err := j.cat.Flush(); err != nil {
		j.emit(Event{Type: EvWarning, Card: c.rec.Label, Message: "catalog: " + err.Error()})
		return
	}
	files, err := j.cat.Files(c.rec.ID)
	if err != nil {
		j.emit(Event{Type: EvWarning, Card: c.rec.Label, Message: "catalog: " + err.Error()})
		return
	}
	skipped, _ := j.cat.Skipped(c.rec.ID)
	for _, d := range j.dests {
		info := SealInfo{JobID: j.rec.ID, JobName: j.rec.Name, Host: j.rec.Host, ToolVersion: j.opts.ToolVersion,
			Started: j.rec.Started, Algos: j.algos, Card: *c.rec, CardRoot: c.scan.Root, DestRoot: d.root,
			CardDir: filepath.Join(d.root, filepath.FromSlash(c.out)), Skipped: skipped, Finished: j.opts.Now(), FS: j.opts.FS}
		for _, f := range files {
			sf := SealFile{Rel: f.Rel, Size: f.Size, Mtime: f.Mtime, Sums: f.Sums, Error: f.Error}
			for _, cp := range f.Copies {
				if cp.DestID == d.rec.ID {
					sf.State, sf.Verified = cp.State, cp.VerifiedAt
					if cp.VerifyAlgos != "" {
						sf.VerifyAlgos, _ = hashing.ParseList(cp.VerifyAlgos)
					}
					if cp.Error != "" {
						sf.Error = cp.Error
					}
				}
			}
			info.Files = append(info.Files, sf)
		}
		if err := j.opts.Seal(ctx, info); err != nil {
			j.emit(Event{Type: EvWarning, Card: c.rec.Label, Path: info.CardDir, Message: "sealing " + info.CardDir + ": " + err.Error()})
		}
	}
}
