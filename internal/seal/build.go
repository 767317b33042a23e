package seal

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/format/mhlv1"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// builder makes the new generation in two walks of the card's files
// (info.Files, from the catalog in path order), each merged with a walk
// of the card's folder on the destination in the same order (destWalk):
// the first qualifies every file, counts, and computes the folders'
// hashes (a stack of the folders open); the second writes each file's
// entry as it comes (writeEntries). Per file it holds nothing past its
// turn, but the names its warnings show (the first few); the MHL v1.1
// list, when one is written, goes to its spool (v1Spool) as it comes.
type builder struct {
	info    offload.SealInfo
	st      ascmhl.Store
	hist    *ascmhl.History
	ign     *ignore.Matcher
	algos   []hashing.Algo
	records *ascmhl.Records // the earlier history's (nil: none)
	// failedSums are the hashes of the failed copies as the first walk
	// read them (nil: could not be read, left out): the second writes
	// the same.
	failedSums map[string]map[hashing.Algo]string
	second     bool     // the second walk: nothing counted or warned again
	v1         *v1Spool // the MHL v1.1 list, when one is written (nil: none)
	warnings   []string
	q          qualified
	root       []ascmhl.DirHash
	dirs       []ascmhl.Dir // the folders listed, in the manifest's order

	verified, failed, unverified, changed int
}

func (b *builder) warn(format string, a ...any) {
	if !b.second {
		b.warnings = append(b.warnings, fmt.Sprintf(format, a...))
	}
}

func ascAlgos(algos []hashing.Algo) []hashing.Algo {
	var out []hashing.Algo
	for _, a := range algos {
		if a.InASCMHL() {
			out = append(out, a)
		}
	}
	return out
}

// qualified are the files the warnings name: how many, and the first few.
type qualified struct{ changed, gone, noCommon, foreign, aside nameList }

// nameList counts names and keeps the first ones a warning shows.
type nameList struct {
	n     int
	first []string
}

func (l *nameList) add(p string) {
	if len(l.first) < shownNames {
		l.first = append(l.first, p)
	}
	l.n++
}

// shownNames is how many names a warning shows before "and N more".
const shownNames = 5

func (l *nameList) String() string {
	var shown []string
	for _, p := range l.first {
		shown = append(shown, ascmhl.DisplayName(p))
	}
	if l.n > len(l.first) {
		shown = append(shown, fmt.Sprintf("and %d more", l.n-len(l.first)))
	}
	return strings.Join(shown, ", ")
}

// build is the first walk: every file of the card qualified for the new
// generation (counted, warned about), the folders' hashes computed over
// the folder as it is on the destination, with the values of the files
// this job wrote (a folder holding another file gets none).
func (b *builder) build(ctx context.Context) error {
	b.algos = ascAlgos(b.info.Algos)
	if b.hist != nil {
		b.records = b.hist.Records()
	}
	b.failedSums = map[string]map[hashing.Algo]string{}
	var dh *ascmhl.DirHasher
	if !b.info.NoDirectoryHashes {
		dh = ascmhl.NewDirHasher(b.algos)
	}
	var mtimes []time.Time // of the folders open
	none := func(hashing.Algo) string { return "" }
	onDest := func(ev *destEvent, vals func(hashing.Algo) string) error {
		switch ev.kind {
		case evEnter:
			mtimes = append(mtimes, ev.mtime)
			if dh != nil {
				dh.Enter(ev.rel)
			}
		case evLeave:
			mt := mtimes[len(mtimes)-1]
			mtimes = mtimes[:len(mtimes)-1]
			b.leave(dh, ev.rel, mt)
		case evFile:
			if vals == nil {
				vals = none
				if offload.IsAsideName(pathBase(ev.rel)) {
					b.q.aside.add(ev.rel)
				} else {
					b.q.foreign.add(ev.rel)
				}
			}
			if dh != nil {
				return dh.File(ev.rel, vals)
			}
		}
		return nil
	}
	err := b.merge(ctx, onDest, func(sf *offload.SealFile, present bool) (func(hashing.Algo) string, error) {
		f, vals, err := b.add(ctx, sf, present)
		switch {
		case err != nil:
			return nil, err
		case f != nil:
			return func(a hashing.Algo) string { h, _ := f.Hash(a); return h.Value }, nil
		case vals != nil:
			return func(a hashing.Algo) string { return vals[a] }, nil
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	sort.Slice(b.dirs, func(i, j int) bool { return ascmhl.DirKey(b.dirs[i].Path) < ascmhl.DirKey(b.dirs[j].Path) })
	if b.q.changed.n > 0 {
		b.warn("%d file(s) differ from the card's earlier ASC MHL history (recorded as failed): %s", b.q.changed.n, &b.q.changed)
	}
	if b.q.noCommon.n > 0 {
		b.warn("%d file(s) are recorded in the earlier history with no hash this job computed, so they could not be checked against it (recorded as original): %s",
			b.q.noCommon.n, &b.q.noCommon)
	}
	if b.q.gone.n > 0 {
		b.warn("%d file(s) are no longer in the folder: %s", b.q.gone.n, &b.q.gone)
	}
	return nil
}

// leave closes folder rel of the first walk: listed in the manifest with
// its hashes (with none without directory hashes), the root's go to the
// root hash.
func (b *builder) leave(dh *ascmhl.DirHasher, rel string, mt time.Time) {
	var hs []ascmhl.DirHash
	if dh != nil {
		_, hs = dh.Leave()
	}
	switch {
	case rel == ".":
		b.root = hs
	case dh == nil || len(hs) > 0:
		b.dirs = append(b.dirs, ascmhl.Dir{Path: rel, Mtime: mt, Hashes: hs})
	}
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// merge walks the card's files and the destination's listing together,
// both in byte order of the path: onCard gets each file of the card not
// ignored, with whether the destination has it, and returns its values
// for the folders' hashes (nil: none); onDest gets each folder entered
// and left and each file of the destination, with the values its card
// file was given (nil: no file of the card, or one left out).
func (b *builder) merge(ctx context.Context, onDest func(*destEvent, func(hashing.Algo) string) error,
	onCard func(*offload.SealFile, bool) (func(hashing.Algo) string, error)) error {
	w := newDestWalk(ctx, b.st, b.ign)
	// upTo hands on the destination's events before the first file at or
	// after rel ("": all) and says whether that file is rel.
	upTo := func(rel string) (bool, error) {
		for {
			ev, err := w.peek()
			if err != nil || ev == nil {
				return false, err
			}
			if ev.kind == evFile && rel != "" && ev.rel >= rel {
				return ev.rel == rel, nil
			}
			w.take()
			if err := onDest(ev, nil); err != nil {
				return false, err
			}
		}
	}
	last := ""
	err := b.info.Files.Each(func(sf *offload.SealFile) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sf.Rel <= last && last != "" || sf.Rel == "" {
			return fmt.Errorf("the card's files are not in path order: %q after %q", sf.Rel, last)
		}
		last = sf.Rel
		if p := b.info.Progress; p != nil {
			p.Walked()
		}
		if b.ign.Match(sf.Rel, false) {
			return nil
		}
		present, err := upTo(sf.Rel)
		if err != nil {
			return err
		}
		vals, err := onCard(sf, present)
		if err != nil || !present {
			return err
		}
		ev, _ := w.peek()
		w.take()
		return onDest(ev, vals)
	})
	if err != nil {
		return err
	}
	_, err = upTo("")
	return err
}

// add qualifies one file of the card (present: the destination has it):
// its entry in the manifest (nil: not in it) or, for a copy not read
// back that an earlier record lists (not in the manifest), its values.
func (b *builder) add(ctx context.Context, sf *offload.SealFile, present bool) (*ascmhl.File, map[hashing.Algo]string, error) {
	switch sf.State {
	case offload.StateVerified, offload.StateCopied, offload.StatePresent:
		if !present {
			if !b.second {
				b.q.gone.add(sf.Rel)
			}
			return nil, nil, nil
		}
	case offload.StateFailed:
		return b.addFailed(ctx, sf, present)
	default: // skipped (conflict), pending: not this card's copy
		return nil, nil, nil
	}
	readBack := sf.State == offload.StateVerified
	f := &ascmhl.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime}
	vals := map[hashing.Algo]string{}
	for _, a := range b.algos {
		if v := sf.Sums.Get(a); v != "" {
			vals[a] = v
		}
	}
	if len(vals) == 0 {
		b.warn("%s has no ASC MHL hash in the catalog: left out", ascmhl.DisplayName(sf.Rel))
		return nil, nil, nil
	}
	rec := b.records.Get(sf.Rel)
	if rec == nil {
		f.Hashes = b.fresh(sf, vals, readBack)
		b.addV1(sf)
		return f, nil, nil
	}
	compared, same := 0, true
	for a, v := range vals {
		if pv, ok := rec.Values[a]; ok {
			compared++
			same = same && pv == v
		}
	}
	switch {
	case compared > 0 && !same:
		for _, a := range sortedAlgos(vals) {
			f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Failed, Date: b.info.Finished})
		}
		b.count(&b.changed)
		if !b.second {
			b.q.changed.add(sf.Rel)
		}
	case !readBack:
		b.count(&b.unverified)
		b.addV1(sf)
		return nil, vals, nil
	case compared > 0:
		for _, a := range sortedAlgos(vals) {
			f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Verified, Date: sf.Verified})
		}
		b.count(&b.verified)
	default:
		if !b.second {
			b.q.noCommon.add(sf.Rel)
		}
		f.Hashes = b.fresh(sf, vals, readBack)
	}
	b.addV1(sf)
	return f, nil, nil
}

// addFailed qualifies a copy that failed its read-back: read again from
// the destination (the first walk; the second takes what it read) and
// recorded failed under the file's name.
func (b *builder) addFailed(ctx context.Context, sf *offload.SealFile, present bool) (*ascmhl.File, map[hashing.Algo]string, error) {
	sums, read := b.failedSums[sf.Rel]
	if !b.second {
		name := sf.Rel
		if !present {
			// A copy that failed its read-back is moved aside
			// (offload.FailedSuffix): recorded failed under the
			// file's name with the hashes of what was written, as
			// when it stayed in place.
			if name = b.aside(sf.Rel); name == "" {
				return nil, nil, nil
			}
		}
		var err error
		sums, err = ascmhl.HashFile(ctx, b.st, name, b.algos)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			b.warn("%s failed and cannot be read back now (%v): left out", ascmhl.DisplayName(sf.Rel), err)
			return nil, nil, nil
		}
		b.failedSums[sf.Rel], read = sums, true
	}
	if !read {
		return nil, nil, nil
	}
	f := &ascmhl.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime}
	for _, a := range b.algos {
		f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: sums[a], Action: ascmhl.Failed, Date: b.info.Finished})
	}
	b.count(&b.failed)
	b.addV1(sf)
	return f, nil, nil
}

// aside is the last of the failed copies of rel moved aside
// (rel.dit-failed, then rel.dit-failed.2, ...), "" if there is none.
func (b *builder) aside(rel string) string {
	has := func(name string) bool {
		if b.ign.Match(name, false) {
			return false
		}
		fi, err := b.st.Lstat(name)
		return err == nil && fi.Mode().IsRegular()
	}
	name := rel + offload.FailedSuffix
	if !has(name) {
		return ""
	}
	for i := 2; has(fmt.Sprintf("%s%s.%d", rel, offload.FailedSuffix, i)); i++ {
		name = fmt.Sprintf("%s%s.%d", rel, offload.FailedSuffix, i)
	}
	return name
}

// count adds one to a figure of the first walk.
func (b *builder) count(n *int) {
	if !b.second {
		*n++
	}
}

// fresh qualifies the hashes of a file with no earlier record: every one
// is "original". The specification's "verified" means "compared with an
// earlier hash of the same format in this history, and equal"; the
// read-back of this job compared the copy with this job's own read of the
// card, which the history has no record of (the reference tool writes
// "original" on a first generation too). The read-back is in the
// generation's comment and the catalog.
func (b *builder) fresh(sf *offload.SealFile, vals map[hashing.Algo]string, readBack bool) []ascmhl.Hash {
	var out []ascmhl.Hash
	for _, a := range sortedAlgos(vals) {
		h := ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Original}
		if readBack {
			h.Date = sf.Verified
		}
		out = append(out, h)
	}
	if readBack {
		b.count(&b.verified)
	} else {
		b.count(&b.unverified)
	}
	return out
}

// addV1 lists the file for the MHL v1.1 list, when one is written.
func (b *builder) addV1(sf *offload.SealFile) {
	if b.v1 == nil || b.second {
		return
	}
	d := sf.Verified
	if d.IsZero() {
		d = b.info.Finished
	}
	b.v1.add(mhlv1.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime, Sums: sf.Sums, HashDate: d})
}

func sortedAlgos(m map[hashing.Algo]string) []hashing.Algo {
	var out []hashing.Algo
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
