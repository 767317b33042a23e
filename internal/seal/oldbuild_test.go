package seal

// The seal's manifest builder as it was before it streamed (2026-12-03,
// the whole manifest assembled in memory, then marshalled): the
// reference TestStreamedManifestIsTheOldBytes compares the streamed
// manifest's bytes with.

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/format/mhlv1"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// oldListing is the card folder on the destination as it is now.
type oldListing struct {
	dirs  map[string]time.Time // "." included
	files map[string]bool
}

// aside is the last of the failed copies of rel moved aside
// (rel.dit-failed, then rel.dit-failed.2, ...), "" if there is none.
func (ls *oldListing) aside(rel string) string {
	name := rel + offload.FailedSuffix
	if !ls.files[name] {
		return ""
	}
	for i := 2; ls.files[fmt.Sprintf("%s%s.%d", rel, offload.FailedSuffix, i)]; i++ {
		name = fmt.Sprintf("%s%s.%d", rel, offload.FailedSuffix, i)
	}
	return name
}

func oldList(ctx context.Context, st ascmhl.Store, ign *ignore.Matcher) (*oldListing, error) {
	ls := &oldListing{dirs: map[string]time.Time{".": {}}, files: map[string]bool{}}
	var walk func(dir string) error
	walk = func(dir string) error {
		ents, err := st.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("oldListing %s: %w", dir, err)
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return err
			}
			rel := e.Name()
			if dir != "." {
				rel = dir + "/" + rel
			}
			if ign.Match(rel, e.IsDir()) {
				continue
			}
			switch {
			case e.IsDir():
				var mt time.Time
				if fi, err := e.Info(); err == nil {
					mt = fi.ModTime()
				}
				ls.dirs[rel] = mt
				if err := walk(rel); err != nil {
					return err
				}
			case e.Type().IsRegular():
				ls.files[rel] = true
			}
		}
		return nil
	}
	return ls, walk(".")
}

type oldBuilder struct {
	info  offload.SealInfo
	st    ascmhl.Store
	hist  *ascmhl.History
	ls    *oldListing
	ign   *ignore.Matcher
	files []ascmhl.File
	// vals says where each listed file's values are, for its folders'
	// hashes: its entry in files (an index), or (-1) in unread (a copy
	// not read back that an earlier record lists: not in the manifest).
	vals     map[string]int32
	unread   map[string]map[hashing.Algo]string
	v1       mhlv1.List
	withV1   bool // the MHL v1.1 list is written (v1 is filled)
	warnings []string

	verified, failed, unverified, changed int
}

func (b *oldBuilder) warn(format string, a ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, a...))
}

// build qualifies every file of the card (info.Files, walked from the
// catalog one at a time) for the new generation: what it holds per file
// is the manifest's entry and the values its folders' hashes need.
func (b *oldBuilder) build(ctx context.Context) error {
	var records *ascmhl.Records
	if b.hist != nil {
		records = b.hist.Records()
	}
	b.vals, b.unread = map[string]int32{}, map[string]map[hashing.Algo]string{}
	var q oldQualified
	err := b.info.Files.Each(func(sf *offload.SealFile) error {
		return b.add(ctx, sf, records.Get(sf.Rel), &q)
	})
	if err != nil {
		return err
	}
	if len(q.changed) > 0 {
		b.warn("%d file(s) differ from the card's earlier ASC MHL history (recorded as failed): %s", len(q.changed), oldNames(q.changed))
	}
	if len(q.noCommon) > 0 {
		b.warn("%d file(s) are recorded in the earlier history with no hash this job computed, so they could not be checked against it (recorded as original): %s",
			len(q.noCommon), oldNames(q.noCommon))
	}
	if len(q.gone) > 0 {
		b.warn("%d file(s) are no longer in the folder: %s", len(q.gone), oldNames(q.gone))
	}
	return nil
}

// oldQualified are the files build names in its warnings.
type oldQualified struct{ changed, gone, noCommon []string }

// add qualifies one file (rec: its earlier record, nil if none).
func (b *oldBuilder) add(ctx context.Context, sf *offload.SealFile, rec *ascmhl.Record, q *oldQualified) error {
	info := b.info
	algos := ascAlgos(info.Algos)
	if b.ign.Match(sf.Rel, false) {
		return nil
	}
	present := b.ls.files[sf.Rel]
	switch sf.State {
	case offload.StateVerified, offload.StateCopied, offload.StatePresent:
		if !present {
			q.gone = append(q.gone, sf.Rel)
			return nil
		}
	case offload.StateFailed:
		name := sf.Rel
		if !present {
			// A copy that failed its read-back is moved aside
			// (offload.FailedSuffix): recorded failed under the
			// file's name with the hashes of what was written, as
			// when it stayed in place.
			if name = b.ls.aside(sf.Rel); name == "" {
				return nil
			}
		}
		sums, err := ascmhl.HashFile(ctx, b.st, name, algos)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			b.warn("%s failed and cannot be read back now (%v): left out", ascmhl.DisplayName(sf.Rel), err)
			return nil
		}
		f := ascmhl.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime}
		now := info.Finished
		for _, a := range algos {
			f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: sums[a], Action: ascmhl.Failed, Date: now})
		}
		b.vals[sf.Rel] = int32(len(b.files))
		b.files = append(b.files, f)
		b.failed++
		b.addV1(sf)
		return nil
	default: // skipped (conflict), pending: not this card's copy
		return nil
	}
	readBack := sf.State == offload.StateVerified
	f := ascmhl.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime}
	vals := map[hashing.Algo]string{}
	for _, a := range algos {
		if v := sf.Sums.Get(a); v != "" {
			vals[a] = v
		}
	}
	if len(vals) == 0 {
		b.warn("%s has no ASC MHL hash in the catalog: left out", ascmhl.DisplayName(sf.Rel))
		return nil
	}
	if rec != nil {
		compared, same := 0, true
		for a, v := range vals {
			if pv, ok := rec.Values[a]; ok {
				compared++
				same = same && pv == v
			}
		}
		switch {
		case compared > 0 && !same:
			q.changed = append(q.changed, sf.Rel)
			for _, a := range sortedAlgos(vals) {
				f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Failed, Date: info.Finished})
			}
			b.changed++
		case !readBack:
			b.unverified++
			b.vals[sf.Rel] = -1
			b.unread[sf.Rel] = vals
			b.addV1(sf)
			return nil
		case compared > 0:
			for _, a := range sortedAlgos(vals) {
				f.Hashes = append(f.Hashes, ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Verified, Date: sf.Verified})
			}
			b.verified++
		default:
			q.noCommon = append(q.noCommon, sf.Rel)
			f.Hashes = b.fresh(sf, vals, readBack)
		}
	} else {
		f.Hashes = b.fresh(sf, vals, readBack)
	}
	b.vals[sf.Rel] = int32(len(b.files))
	b.files = append(b.files, f)
	b.addV1(sf)
	return nil
}

// value is file's value in a for its folders' hashes ("": none, a file
// this job did not write).
func (b *oldBuilder) value(file string, a hashing.Algo) string {
	i, ok := b.vals[file]
	switch {
	case !ok:
		return ""
	case i < 0:
		return b.unread[file][a]
	}
	h, _ := b.files[i].Hash(a)
	return h.Value
}

// fresh qualifies the hashes of a file with no earlier record: every one
// is "original". The specification's "verified" means "compared with an
// earlier hash of the same format in this history, and equal"; the
// read-back of this job compared the copy with this job's own read of the
// card, which the history has no record of (the reference tool writes
// "original" on a first generation too). The read-back is in the
// generation's comment and the catalog.
func (b *oldBuilder) fresh(sf *offload.SealFile, vals map[hashing.Algo]string, readBack bool) []ascmhl.Hash {
	var out []ascmhl.Hash
	for _, a := range sortedAlgos(vals) {
		h := ascmhl.Hash{Algo: a, Value: vals[a], Action: ascmhl.Original}
		if readBack {
			h.Date = sf.Verified
		}
		out = append(out, h)
	}
	if readBack {
		b.verified++
	} else {
		b.unverified++
	}
	return out
}

// addV1 lists the file for the MHL v1.1 list, when one is written.
func (b *oldBuilder) addV1(sf *offload.SealFile) {
	if !b.withV1 {
		return
	}
	d := sf.Verified
	if d.IsZero() {
		d = b.info.Finished
	}
	b.v1.Files = append(b.v1.Files, mhlv1.File{Path: sf.Rel, Size: sf.Size, Mtime: sf.Mtime, Sums: sf.Sums, HashDate: d})
}

func oldNames(list []string) string {
	var shown []string
	for i, p := range list {
		if i == 5 {
			shown = append(shown, fmt.Sprintf("and %d more", len(list)-5))
			break
		}
		shown = append(shown, ascmhl.DisplayName(p))
	}
	return strings.Join(shown, ", ")
}

// manifest assembles the new generation.
func (b *oldBuilder) manifest(patterns []string) (*ascmhl.Manifest, error) {
	info := b.info
	algos := ascAlgos(info.Algos)
	m := &ascmhl.Manifest{Created: info.Finished, Host: info.Host, Tool: "dit", ToolVersion: info.ToolVersion,
		Process: ascmhl.ProcessTransfer, Ignore: patterns, Files: b.files}
	var parts []string
	parts = append(parts, fmt.Sprintf("%d verified by reading the copy back", b.verified))
	if b.unverified > 0 {
		parts = append(parts, fmt.Sprintf("%d copied, not read back", b.unverified))
	}
	if b.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d FAILED read-back", b.failed))
	}
	if b.changed > 0 {
		parts = append(parts, fmt.Sprintf("%d differ from the earlier history", b.changed))
	}
	m.Comment = fmt.Sprintf("%s hashes %s; files: %s", ownComment(info), hashing.Names(info.Algos), strings.Join(parts, ", "))
	// The DIT's creator info; what would make the manifest invalid is left
	// out with a warning (the card's proof matters more than a name).
	if c := strings.TrimSpace(info.Comment); c != "" {
		if ascmhl.XMLSafe(c) {
			m.Comment += "; " + c // after dit's text: sealedBefore reads its start
		} else {
			b.warn("the comment holds characters XML cannot carry: left out")
		}
	}
	if a := (ascmhl.Author{Name: info.Author.Name, Email: info.Author.Email, Phone: info.Author.Phone, Role: info.Author.Role}); !a.IsZero() {
		if err := a.Check(); err != nil {
			b.warn("%v: author left out", err)
		} else {
			m.Authors = []ascmhl.Author{a}
		}
	}
	if ascmhl.XMLSafe(info.Location) {
		m.Location = info.Location
	} else {
		b.warn("the location holds characters XML cannot carry: left out")
	}
	if info.NoDirectoryHashes {
		// Folders listed without hashes, and an empty root hash (the
		// reference tool's verify -dh needs the element).
		m.EmptyRootHash = true
		for d, mt := range b.ls.dirs {
			if d != "." {
				m.Dirs = append(m.Dirs, ascmhl.Dir{Path: d, Mtime: mt})
			}
		}
		sort.Slice(m.Dirs, func(i, j int) bool { return m.Dirs[i].Path < m.Dirs[j].Path })
		return m, nil
	}

	tree := ascmhl.Tree{Files: make(map[string]map[hashing.Algo]string, len(b.ls.files)), Value: b.value}
	for d := range b.ls.dirs {
		tree.Dirs = append(tree.Dirs, d)
	}
	foreign := 0
	for p := range b.ls.files {
		tree.Files[p] = nil
		if _, ok := b.vals[p]; !ok {
			foreign++
		}
	}
	if foreign > 0 {
		var list, aside []string
		for p := range b.ls.files {
			if _, ok := b.vals[p]; !ok {
				if offload.IsAsideName(path.Base(p)) {
					aside = append(aside, p)
				} else {
					list = append(list, p)
				}
			}
		}
		sort.Strings(list)
		sort.Strings(aside)
		if len(list) > 0 {
			b.warn("%d file(s) in the folder were not written by this job (%s): the folders holding them get no directory hash", len(list), oldNames(list))
		}
		if len(aside) > 0 {
			// A copy that failed its read-back, moved off the card's file
			// name (offload.FailedSuffix): listed by name, never hashed as
			// footage; a resume that copies the file again removes it.
			b.warn("%d copy(ies) that failed verification were moved aside (%s): the folders holding them get no directory hash", len(aside), oldNames(aside))
		}
	}
	dh, err := ascmhl.DirHashes(tree, algos)
	if err != nil {
		return nil, err
	}
	m.Root = dh["."]
	for d, mt := range b.ls.dirs {
		if d == "." || len(dh[d]) == 0 {
			continue
		}
		m.Dirs = append(m.Dirs, ascmhl.Dir{Path: d, Mtime: mt, Hashes: dh[d]})
	}
	sort.Slice(m.Dirs, func(i, j int) bool { return m.Dirs[i].Path < m.Dirs[j].Path })
	return m, nil
}
