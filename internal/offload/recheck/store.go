package recheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/summary"
)

// storeCopy checks f's copy on the cloud destination d (cp: its record,
// nil: none; out: the card's folder) as dit verify does: the storage's
// own MD5 of the object as it holds it now, or, where it has none (a
// multipart object, another storage) or with --all, the object read back
// from the remote and hashed. A remote that cannot be listed stops the
// check with an error (nothing is recorded for it): the copies are not
// known bad for it (the copies before it, in folders listed, are).
// What the remote holds is read a folder at a time, as the walk comes to
// the copy's folder (r.lister).
func (r *rechecker) storeCopy(ctx context.Context, k *catalog.Card, f *catalog.File, d *catalog.Dest, cp *catalog.Copy, out string) error {
	rel := path.Join(out, f.Rel)
	if cp != nil && cp.Path != "" {
		rel = cp.Path
	}
	where := strings.TrimSuffix(d.Path, "/") + "/" + rel
	res := Result{Card: k.Label, Path: where}
	// Its bytes count only once it is read back (--all: planned so).
	readTo := r.prog.BytesRead
	if r.all {
		readTo += f.Size
	}
	defer func() { r.done(readTo) }()
	if f.State == summary.StateFailed && (cp == nil || cp.State == summary.StateSkipped || (cp.State == summary.StateFailed && !cp.Written)) {
		res.State, res.Error = Missing, "never copied: "+f.Error
		r.ok = false
		r.onResult(res)
		return nil
	}
	cd, err := r.store(d.Path)
	if err != nil {
		return err
	}
	l := r.lister(cd)
	o, ok, err := l.Lookup(ctx, rel)
	if err != nil {
		return notChecked(cd, l.Folder(rel), err, "the copies there were not checked")
	}
	if ok && cp != nil && strings.HasPrefix(cp.VerifyAlgos, dest.ByHistory) {
		// The card's ASC MHL chain went up as the chain of its history,
		// extended by this job's generation (storeseal.go): it is not the
		// card's file, and is checked with the history.
		n, herr := r.history(ctx, cd, path.Dir(rel))
		if errors.Is(herr, context.Canceled) {
			return herr
		}
		var nl notListed
		if errors.As(herr, &nl) {
			return notChecked(cd, nl.dir, nl.err, "the copies there were not checked")
		}
		if herr != nil {
			res.State, res.Error = summary.StateFailed, herr.Error()
			r.record(k, f, d, cp, rel, where, res, cp.VerifyAlgos)
			r.onResult(res)
			return nil
		}
		res.State, res.Error = Resealed, fmt.Sprintf("ASC MHL chain extended by dit in the cloud: read back with the %d manifests it lists, each as the chain records it (c4); check the history's files with dit mhl verify after a download (rclone copy)", n)
		r.onResult(res)
		return nil
	}
	how := storeMethod(dest.ByStorage, []hashing.Algo{hashing.MD5})
	switch {
	case !ok:
		res.State, res.Error = Missing, "the object is gone from the remote"
	case o.Size != f.Size:
		res.State, res.Error = summary.StateFailed, fmt.Sprintf("the object holds %d bytes, the source had %d", o.Size, f.Size)
	case o.StorageMD5 != "" && f.Sums.Get(hashing.MD5) != "" && !strings.EqualFold(o.StorageMD5, f.Sums.Get(hashing.MD5)):
		// The storage's own MD5 proves it differs: nothing to download.
		res.State, res.Error = summary.StateFailed, fmt.Sprintf("md5 differs: source %s, the storage's own (S3 ETag) %s: %s", f.Sums.Get(hashing.MD5), o.StorageMD5, storeChange(cp))
	case !r.all && o.StorageMD5 != "" && f.Sums.Get(hashing.MD5) != "":
		res.State = summary.StateVerified
	default:
		if !r.all {
			// No checksum of the storage's: read back after all.
			r.prog.Checked--
			r.prog.Bytes += f.Size
			readTo += f.Size
		}
		rc, err := cd.Open(ctx, rel, f.Size)
		var got hashing.Sums
		var n int64
		if err == nil {
			got, n, err = dest.HashOpen(ctx, rc, 0, f.Size, r.bufs, r.mh, nil, func(n int) {
				r.prog.BytesRead = min(r.prog.BytesRead+int64(n), readTo)
				r.onProgress(r.prog)
			})
			if cerr := rc.Close(); err == nil {
				err = cerr
			}
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		res.State, res.Error = readBackState(f, got, n, err)
		compared, _, _ := got.Compare(f.Sums)
		how = storeMethod(dest.ByReadBack, compared)
	}
	r.record(k, f, d, cp, rel, where, res, how)
	r.onResult(res)
	return nil
}

// store is the remote destination at root, opened once per check.
func (r *rechecker) store(root string) (dest.Store, error) {
	if st, ok := r.stores[root]; ok {
		return st, nil
	}
	st, err := dest.OpenStore(root, r.remote)
	if err != nil {
		return nil, err
	}
	if r.wrap != nil {
		st = r.wrap(st)
	}
	r.stores[root] = st
	return st, nil
}

// lister is what cd holds, read a folder at a time as the check comes
// to it (names relative to its root), one for the whole check: the
// cards' files come in path order, a card's after another's, each card
// of a folder of its own, so that each folder is listed once (again
// when the walk comes back to one after dest.ListsKept others).
func (r *rechecker) lister(cd dest.Store) *dest.Lister {
	l, ok := r.listers[cd.String()]
	if !ok {
		l = dest.NewLister(cd, "", false)
		r.listers[cd.String()] = l
	}
	return l
}

// notListed is a folder of a remote's (dir, relative to its root) that
// could not be listed (err):
// what is there is not known, so nothing is found bad for it.
type notListed struct {
	dir string
	err error
}

func (e notListed) Error() string { return "cannot list " + e.dir + ": " + e.err.Error() }
func (e notListed) Unwrap() error { return e.err }

// notChecked is the error that stops a check at a folder dir of cd that
// could not be listed (err); what says what was not checked.
func notChecked(cd dest.Store, dir string, err error, what string) error {
	return fmt.Errorf("cannot list %s/%s: %w: %s; run it again once the remote answers", cd, dir, err, what)
}

// storeHistory reads back the ASC MHL history dit wrote in the cloud
// (its chain at dir/ascmhl_chain.xml, dir the folder's path on cd) and
// checks that the chain is one, and that every manifest it lists is
// there and hashes as it records (C4, hashed as it is read: a manifest
// of a million files is never held): a history changed since it was
// written fails, naming the object. It returns the manifests checked;
// a folder that cannot be listed is a notListed error.
func (r *rechecker) storeHistory(ctx context.Context, cd dest.Store, dir string) (int, error) {
	l := r.lister(cd)
	open := func(name string) (io.ReadCloser, error) {
		rel := path.Join(dir, name)
		o, ok, err := l.Lookup(ctx, rel)
		if err != nil {
			return nil, notListed{dir: l.Folder(rel), err: err}
		}
		if !ok {
			return nil, fmt.Errorf("%s/%s is gone from the remote: the ASC MHL history dit wrote there is incomplete", cd, rel)
		}
		return cd.Open(ctx, rel, o.Size)
	}
	rc, err := open(ascmhl.ChainFile)
	if err != nil {
		return 0, err
	}
	data, err := io.ReadAll(io.LimitReader(rc, 256<<20)) // an entry a generation
	rc.Close()
	if err != nil {
		return 0, err
	}
	entries, err := ascmhl.ParseChain(data)
	if err != nil {
		return 0, fmt.Errorf("%s/%s/%s is not the ASC MHL chain dit wrote (%v): it changed since; the history there cannot be trusted", cd, dir, ascmhl.ChainFile, err)
	}
	for _, e := range entries {
		rc, err := open(e.Path)
		if err != nil {
			return 0, err
		}
		h := hashing.C4.New()
		_, err = io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return 0, err
		}
		if got := hashing.EncodeC4(h.Sum(nil)); got != e.C4 {
			return 0, fmt.Errorf("%s/%s/%s differs from what its chain records (c4 %s, the chain's %s): the ASC MHL history dit wrote there changed", cd, dir, e.Path, got, e.C4)
		}
	}
	return len(entries), nil
}

// storeChange says what is known of a cloud object that differs from the
// card's file, from its copy row cp: changed since dit verified it (and
// when), or as it was when the job ran (it did not verify then either).
func storeChange(cp *catalog.Copy) string {
	switch {
	case cp != nil && cp.State == summary.StateVerified && !cp.VerifiedAt.IsZero():
		return fmt.Sprintf("the object was replaced or changed since dit verified it (%s, by %s)", cp.VerifiedAt.UTC().Format("2006-01-02 15:04 UTC"), dest.VerifiedBy(cp.VerifyAlgos))
	case cp != nil && cp.State == summary.StateVerified:
		return "the object was replaced or changed since dit verified it"
	case cp != nil && cp.Error != "":
		return "it did not verify when the job ran either (" + cp.Error + ")"
	}
	return "it was never verified"
}

// historyCheck is the outcome of one check of a history in the cloud.
type historyCheck struct {
	n   int
	err error
}

// history is storeHistory, once per history (an interruption, or a
// folder that could not be listed, is not kept).
func (r *rechecker) history(ctx context.Context, cd dest.Store, dir string) (int, error) {
	key := cd.String() + "\x00" + dir
	if h, ok := r.histories[key]; ok {
		return h.n, h.err
	}
	n, err := r.storeHistory(ctx, cd, dir)
	if errors.Is(err, context.Canceled) || errors.As(err, new(notListed)) {
		return n, err
	}
	if r.histories == nil {
		r.histories = map[string]historyCheck{}
	}
	r.histories[key] = historyCheck{n, err}
	return n, err
}

// HistoryChanged starts what a card records (cards.error, state
// sealing: its hash lists are not written) when dit verify finds the ASC
// MHL history dit wrote for it in the cloud changed or gone: the summary
// lists it as the card's "(hash lists)" failure, and a resume seals the
// card again (storeseal.go): it writes the history where its objects are
// gone, and fails naming any object there that differs.
const HistoryChanged = "hash lists not written: dit verify found the card's ASC MHL history in the cloud changed: "

// historyChanged reports a card that dit verify found with its cloud
// history changed, not sealed again since (or whose seal since found
// objects of another history there: summary.MoveHistoryAside).
func historyChanged(k *catalog.Card) bool {
	return k.State == catalog.CardSealing && (strings.Contains(k.Error, HistoryChanged) || strings.Contains(k.Error, summary.MoveHistoryAside))
}

// storeCardHistory checks the ASC MHL history dit wrote for card k on
// cloud destination d (out: the card's folder there), once its copies
// are checked: a card sealed of a job writing ASC MHL has one there, its
// chain and the manifests it lists as the chain records them. What it
// finds is a result (one the card's chain row reported already is not
// reported again); a changed or missing history fails the check, naming
// the object, and the card: no longer safe to format, it records
// HistoryChanged and the reason, so a resume seals it again. A card found
// so before is checked again, and fails the check until a resume seals
// it, whatever the history holds now.
func (r *rechecker) storeCardHistory(ctx context.Context, j *catalog.Job, k *catalog.Card, d *catalog.Dest, out string) error {
	changed := historyChanged(k)
	if (k.State != summary.StateVerified && !changed) || k.Sealed.IsZero() || (j.MHL != "" && j.MHL != "asc" && j.MHL != "both") {
		return nil
	}
	if dest.ParseRemote(d.Path) != nil {
		return nil
	}
	cd, err := r.store(d.Path)
	if err != nil {
		return nil
	}
	dir := path.Join(out, ascmhl.HistoryDir)
	_, reported := r.histories[cd.String()+"\x00"+dir]
	n, err := r.history(ctx, cd, dir)
	if errors.Is(err, context.Canceled) {
		return err
	}
	var nl notListed
	if errors.As(err, &nl) {
		return notChecked(cd, nl.dir, nl.err, "the ASC MHL history there was not checked")
	}
	res := Result{Card: k.Label, Path: cd.String() + "/" + dir + "/" + ascmhl.ChainFile, State: Resealed,
		Error: fmt.Sprintf("the ASC MHL history dit wrote in the cloud: read back, its chain and the %d manifests it lists agree (c4)", n)}
	switch {
	case err != nil:
		res.State, res.Error = summary.StateFailed, err.Error()
		r.ok = false
		// Its history is part of what made the card safe to format:
		// the card's lists are not written until a resume seals it.
		if !changed {
			// (A card found so before keeps what it records.)
			k.State, k.Error = catalog.CardSealing, HistoryChanged+err.Error()+": "+historyChangedNext(j.ID)
			r.cat.UpdateCard(k)
		}
	case changed:
		res.State, res.Error = summary.StateFailed, fmt.Sprintf("the history reads back whole now, but dit verify found it changed before: the card is NOT safe to format until dit offload --resume %d checks it again and seals the card", j.ID)
		r.ok, reported = false, false
	}
	if !reported {
		r.onResult(res)
	}
	return nil
}

// historyChangedNext says what to do for a card whose cloud history
// changed.
func historyChangedNext(jobID int64) string {
	return fmt.Sprintf("dit offload --resume %d writes it again if its objects are gone; one there that differs is never replaced: %s first", jobID, summary.MoveHistoryAside)
}
