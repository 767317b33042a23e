package offload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/raid"
)

// RecheckResult is one copy read back by [Recheck].
type RecheckResult struct {
	Card  string `json:"card"`
	Path  string `json:"path"` // the copy, absolute
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// RecheckOptions are the choices of [RecheckWith].
type RecheckOptions struct {
	// All recomputes every recorded hash, not only the fastest.
	All bool
	// OnResult, if set, is called once per copy read back (or found
	// missing), in order.
	OnResult func(RecheckResult)
	// OnProgress, if set, is called from the goroutine running
	// RecheckWith after each block read back and after each copy, with
	// the totals so far; it must return quickly (a front end that prints
	// keeps the last value and prints on its own schedule).
	OnProgress func(RecheckProgress)
}

// RecheckProgress is how far a [RecheckWith] is.
type RecheckProgress struct {
	Copies     int   `json:"copies"`      // copies to check: files x destinations
	CopiesDone int   `json:"copies_done"` // checked (or found missing) so far
	Bytes      int64 `json:"bytes"`       // bytes to read back: recorded sizes of the copies to read
	BytesRead  int64 `json:"bytes_read"`  // read back so far
}

// Recheck reads every copy of a job back from its medium now and compares
// it with the source hashes in the catalog: the fastest recorded hash, or
// all of them with all=true. Copies that differ or are missing are marked
// failed in the catalog; copies that match get a new verified time. A file
// the job never copied is reported as missing on that destination.
func Recheck(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, all bool, onResult func(RecheckResult)) (ok bool, err error) {
	return RecheckWith(ctx, cat, fsy, jobID, RecheckOptions{All: all, OnResult: onResult})
}

// RecheckWith is [Recheck] with its options, and progress reports.
func RecheckWith(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, jobID int64, opt RecheckOptions) (ok bool, err error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	onResult, onProgress := opt.OnResult, opt.OnProgress
	if onResult == nil {
		onResult = func(RecheckResult) {}
	}
	if onProgress == nil {
		onProgress = func(RecheckProgress) {}
	}
	j, err := cat.Job(jobID)
	if err != nil {
		return false, err
	}
	if j.State == catalog.JobRunning {
		return false, fmt.Errorf("job %d is still running: verify it when it has finished", jobID)
	}
	if err := cat.DropStrayCopies(jobID); err != nil {
		return false, err
	}
	algos, err := hashing.ParseList(j.Hashes)
	if err != nil {
		return false, err
	}
	valgos := verifyAlgos(algos, opt.All)
	dests, err := cat.Dests(jobID)
	if err != nil {
		return false, err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return false, err
	}
	// Each card's copies are on the destinations of its run: a
	// cascade's card (hop 1) on the -d destinations, its second run (hop
	// 2, read from the first copy) on the --then ones; a job without a
	// cascade has only the first. Each copy is read once, by the run that
	// made it, and checked against the hashes that run recorded.
	cardDests := make([][]*catalog.Dest, len(cards))
	for i, k := range cards {
		for _, d := range dests {
			if destHop(d) == max(k.Hop, 1) {
				cardDests[i] = append(cardDests[i], d)
			}
		}
	}
	// Every card's files first, for the totals of the progress reports.
	cardFiles := make([][]*catalog.File, len(cards))
	var prog RecheckProgress
	for i, k := range cards {
		if cardFiles[i], err = cat.Files(k.ID); err != nil {
			return false, err
		}
		for _, f := range cardFiles[i] {
			prog.Copies += len(cardDests[i])
			prog.Bytes += f.Size * int64(len(cardDests[i]))
		}
	}
	roots := make([]string, len(dests))
	for i, d := range dests {
		roots[i] = d.Path
	}
	fsy, arrays, err := MountArrays(fsy, roots, raid.OpenOptions{})
	if err != nil {
		return false, err
	}
	defer func() {
		for _, a := range arrays {
			a.Close()
		}
	}()
	mh := hashing.NewMulti(valgos, 2)
	defer mh.Close()
	bufs := [][]byte{fsys.Block(4 << 20), fsys.Block(4 << 20)}
	onProgress(prog)
	ok = true
	for ci, k := range cards {
		files := cardFiles[ci]
		out, _ := ExpandLayout(j.Layout, j.Name, k.Label, j.Started)
		for _, f := range files {
			byDest := map[int64]*catalog.Copy{}
			for i := range f.Copies {
				byDest[f.Copies[i].DestID] = &f.Copies[i]
			}
			for _, d := range cardDests[ci] {
				cp := byDest[d.ID]
				rel := relJoin(out, f.Rel)
				if cp != nil && cp.Path != "" {
					rel = cp.Path
				}
				p := filepath.Join(d.Path, filepath.FromSlash(rel))
				res := RecheckResult{Card: k.Label, Path: p}
				// Counted as read once its turn is over, whatever was read.
				readTo := prog.BytesRead + f.Size
				done := func() {
					prog.CopiesDone++
					prog.BytesRead = readTo
					onProgress(prog)
				}
				// A copy dit wrote and later found bad (by dit verify, or
				// by a cascade's second run) is read again: it is there.
				if f.State == StateFailed && (cp == nil || cp.State == StateSkipped || (cp.State == StateFailed && !cp.Written)) {
					res.State, res.Error = "missing", "never copied: "+f.Error
					ok = false
					onResult(res)
					done()
					continue
				}
				got, n, err := hashFile(ctx, fsy, p, f.Size, bufs, mh, nil, func(n int) {
					prog.BytesRead = min(prog.BytesRead+int64(n), readTo)
					onProgress(prog)
				})
				switch {
				case errors.Is(err, context.Canceled):
					return false, err
				case errors.Is(err, fs.ErrNotExist):
					res.State, res.Error = "missing", "the copy is gone"
				case err != nil:
					res.State, res.Error = StateFailed, "read-back failed: "+err.Error()
				case n != f.Size:
					res.State, res.Error = StateFailed, fmt.Sprintf("size %d, the source had %d", n, f.Size)
				default:
					if _, bad, same := got.Compare(f.Sums); !same {
						res.State, res.Error = StateFailed, fmt.Sprintf("%s differs: source %s, copy %s", bad, f.Sums.Get(bad), got.Get(bad))
					} else {
						res.State = StateVerified
					}
				}
				if res.State == StateFailed && isHistoryChain(f.Rel) {
					// The card carried an ASC MHL history: the seal appended
					// a generation to the copy's chain by design. The chain
					// is checked by dit mhl verify, not against the card.
					res.State, res.Error = StateVerified, ""
					onResult(RecheckResult{Card: k.Label, Path: p, State: "resealed",
						Error: "ASC MHL chain extended by dit after the copy; check it with dit mhl verify"})
					done()
					continue
				}
				ncp := catalog.Copy{DestID: d.ID, Path: rel, State: res.State, VerifyAlgos: hashing.Names(valgos), Error: res.Error}
				if cp != nil {
					ncp.Written = cp.Written
				}
				if res.State == StateVerified {
					ncp.VerifiedAt = time.Now() // when this re-read compared it
				} else {
					ok = false
					ncp.State = StateFailed
					ncp.Error = "dit verify: " + res.Error
					if f.State != StateFailed {
						f.State, f.Error = StateFailed, "dit verify: copy at "+p+": "+res.Error
						cat.PutFile(f)
					}
				}
				if res.State != StateVerified || cp == nil || cp.State != StateVerified {
					cat.PutCopy(k.ID, f.Rel, &ncp)
				}
				onResult(res)
				done()
			}
		}
	}
	return ok, cat.Flush()
}

// isHistoryChain reports an ASC MHL chain file (ascmhl/ascmhl_chain.xml at
// any depth), which dit's seal rewrites on the destination after the copy.
func isHistoryChain(rel string) bool {
	return path.Base(rel) == "ascmhl_chain.xml" && path.Base(path.Dir(rel)) == "ascmhl"
}
