package earlier

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/summary"
)

// A card offloaded again to a remote folder that holds its history from an
// earlier job: dit cannot add this job's generation (the chain object is
// never replaced), but the history there may already say all this job
// would. It is read back whole (every object of the folder's top-level
// ascmhl folder, read back) and kept as the card's history when it reads
// whole (each manifest's C4 as the chain gives it) and records every file
// whose cloud copy this job verified, with the card's hashes in every
// format both have (one at least), none of them last recorded as failed.
// Nothing is sent; the seal ends with a warning that says so. Anything
// else (another tool's file at the chain's name, a damaged history, a
// file it lacks or records otherwise) is refused as before.

// maxHistoryObject bounds an ascmhl object read back from the remote.
const maxHistoryObject = 256 << 20

// Recorded is what a job recorded of one of a card's files on a
// destination: its path in the card, size, source hashes and the copy's
// state there.
type Recorded struct {
	Rel   string
	Size  int64
	Sums  hashing.Sums
	State string
}

// RemoteHistory checks the history in the card's folder out on the remote
// destination st against the card's files as the job recorded them
// (files: only those verified there are asked for); it returns how its
// chain was checked (verify_algos), or why it is not the card's, and
// whether one of its generations is this job's own for the card there
// (its comment starts with own, the seal's SealInfo.OwnComment): a
// history this job wrote in an earlier run, once every file was
// verified, to which a resume has more to add.
func RemoteHistory(ctx context.Context, st dest.Store, out string, files iter.Seq[Recorded], own string) (how string, ours bool, err error) {
	how, h, err := readHistoryThere(ctx, st, out)
	if h != nil {
		for _, g := range h.Generations {
			ours = ours || g.Manifest != nil && strings.HasPrefix(g.Manifest.Comment, own)
		}
	}
	if err != nil {
		return "", ours, err
	}
	if bad := NotRecorded(h.Records(), files); len(bad) > 0 {
		return "", ours, fmt.Errorf("it does not record this card's files with the card's hashes: %s", strings.Join(bad, ", "))
	}
	return how, ours, nil
}

// readHistoryThere reads back the history in the card's folder out on
// the remote destination st and loads it (nil: it could not be loaded);
// an error says why it is not whole.
func readHistoryThere(ctx context.Context, st dest.Store, out string) (string, *ascmhl.History, error) {
	held, err := st.ListDir(ctx, path.Join(out, ascmhl.HistoryDir)) // its files only, not the card's
	if err != nil {
		return "", nil, err
	}
	tmp, err := st.Stage("dit-history-there-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, ascmhl.HistoryDir), 0o755); err != nil {
		return "", nil, err
	}
	for name, o := range held {
		rel := historyPrefix + name
		if !ascmhl.ValidName(name) {
			continue
		}
		if o.Size > maxHistoryObject {
			return "", nil, fmt.Errorf("%s is %d bytes, not a history file dit reads back", rel, o.Size)
		}
		rc, err := st.Open(ctx, path.Join(out, rel), o.Size)
		if err != nil {
			return "", nil, err
		}
		// Into the temporary folder as it comes (a manifest is ~330 B a
		// file of the card: never held whole).
		n, err := copyToFile(filepath.Join(tmp, ascmhl.HistoryDir, name), io.LimitReader(rc, o.Size+1))
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err == nil && n != o.Size {
			err = fmt.Errorf("read %d bytes of %d", n, o.Size)
		}
		if err != nil {
			return "", nil, fmt.Errorf("reading back %s: %w", rel, err)
		}
	}
	hs, err := ascmhl.OpenOSStore(tmp)
	if err != nil {
		return "", nil, err
	}
	defer hs.Close()
	h, err := ascmhl.LoadHistoryIndexed(hs) // heads and records only
	if err != nil {
		return "", nil, err
	}
	if len(h.Problems) > 0 {
		return "", h, fmt.Errorf("it does not read whole: %s", strings.Join(h.Problems, ", "))
	}
	return dest.ByReadBack + hashing.Names([]hashing.Algo{hashing.C4}), h, nil
}

// historyPrefix starts the paths of the card's top-level ascmhl folder.
const historyPrefix = ascmhl.HistoryDir + "/"

// NotRecorded lists (at most 5, then a count) the verified files the
// records lack or record otherwise (the card's own history files and
// copies not verified are not asked for).
func NotRecorded(recs *ascmhl.Records, files iter.Seq[Recorded]) []string {
	var bad []string
	n := 0
	for f := range files {
		if f.State != summary.StateVerified || strings.HasPrefix(f.Rel, historyPrefix) {
			continue
		}
		rec := recs.Get(f.Rel)
		ok := rec != nil && !rec.LastFailed && (rec.Size < 0 || rec.Size == f.Size)
		common := 0
		if ok {
			for a, v := range rec.Values {
				if w := f.Sums.Get(a); w != "" {
					common++
					ok = ok && strings.EqualFold(w, v)
				}
			}
		}
		if ok && common > 0 {
			continue
		}
		if n++; n <= 5 {
			bad = append(bad, ascmhl.DisplayName(f.Rel))
		}
	}
	if n > 5 {
		bad = append(bad, fmt.Sprintf("and %d more", n-5))
	}
	return bad
}

// copyToFile writes what r gives to a new file p; it returns the bytes
// written.
func copyToFile(p string, r io.Reader) (int64, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
