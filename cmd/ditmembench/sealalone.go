//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/seal"
)

// sealAlone seals the card of the job just run again, alone, as the
// offload's seal does (the Sealer of internal/seal, the card's files from
// the catalog a file at a time), after removing the history the offload
// wrote: what the seal holds, apart from the plan of the copy and
// read-back that the phases of the offload mix in. It returns the peak
// live heap during the seal above the live heap before it.
func sealAlone(ctx context.Context, cat *catalog.Catalog, algos []hashing.Algo) (uint64, error) {
	jobs, err := cat.Jobs()
	if err != nil || len(jobs) == 0 {
		return 0, fmt.Errorf("no job in the catalog (%v)", err)
	}
	job := jobs[len(jobs)-1]
	cards, err := cat.Cards(job.ID)
	if err != nil || len(cards) != 1 {
		return 0, fmt.Errorf("want one card in job %d (%v)", job.ID, err)
	}
	dests, err := cat.Dests(job.ID)
	if err != nil || len(dests) != 1 {
		return 0, fmt.Errorf("want one destination in job %d (%v)", job.ID, err)
	}
	card, dest := cards[0], dests[0]
	cardDir := filepath.Join(dest.Path, job.Name, card.Label)
	if err := os.RemoveAll(filepath.Join(cardDir, ascmhl.HistoryDir)); err != nil {
		return 0, err
	}
	files := offload.SealFiles(func(fn func(*offload.SealFile) error) error {
		var sf offload.SealFile
		return cat.EachFile(card.ID, nil, func(f *catalog.File) error {
			sf = offload.SealFile{Rel: f.Rel, Size: f.Size, Mtime: f.Mtime, Sums: f.Sums}
			for _, cp := range f.Copies {
				if cp.DestID == dest.ID {
					sf.State, sf.Verified = cp.State, cp.VerifiedAt
				}
			}
			return fn(&sf)
		})
	})
	info := offload.SealInfo{JobID: job.ID, JobName: job.Name, Host: "membench", ToolVersion: "ditmembench", Started: time.Now(),
		Algos: algos, Card: *card, DestRoot: dest.Path, CardDir: cardDir, Files: files, Finished: time.Now()}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > peak+peak/20 {
				runtime.GC() // the live heap now, not at the last collection
				metrics.Read(sample)
				peak = max(peak, sample[0].Value.Uint64())
			}
		}
	}()
	err = (&seal.Sealer{Format: seal.Format{ASC: true}}).Seal(ctx, info)
	close(stop)
	peak := <-done
	if err != nil {
		return 0, fmt.Errorf("sealing %s: %w", cardDir, err)
	}
	if peak < before {
		return 0, nil
	}
	return peak - before, nil
}
