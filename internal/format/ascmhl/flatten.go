package ascmhl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
)

// FlattenOptions tune Flatten.
type FlattenOptions struct {
	// Ignore are patterns (gitignore syntax) of files left out, besides
	// the history's own list.
	Ignore []string
	// Creator info: Tool defaults to "dit", Host to the host name.
	Host, Tool, ToolVersion string
	Authors                 []Author
	Location, Comment       string
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// FlattenResult is what Flatten consolidated.
type FlattenResult struct {
	Manifest *Manifest
	// Histories are the histories read: "" for the folder's own, then
	// each nested one's folder ("A001/").
	Histories   []string
	Generations int
	// LeftOut are files recorded only with failed hashes: nothing
	// vouches for them, so they are not in the manifest.
	LeftOut  []string
	Warnings []string
}

// flatRec is what a flattened file keeps.
type flatRec struct {
	size   int64
	mtime  time.Time
	prev   string
	hashes map[hashing.Algo]Hash
	failed bool
}

// Flatten consolidates the history of the folder st, and every nested
// history in it, into one manifest (process "flatten"), as the
// specification's ASC MHL Flatten operation and `ascmhl flatten` do: each
// file the history records under its current path (renames followed;
// previousPath kept), with, per hash format, the earliest value not marked
// failed and its action and hashdate as recorded; size and modification
// time from the latest record. Files the ignore lists match are left out,
// and so are files recorded only as failed. Folder hashes are not carried
// over. No file is read but the histories' own, and nothing is written:
// the caller writes the manifest (outside the history; see
// PackingListName). A damaged history is refused (ErrDamaged).
func Flatten(ctx context.Context, st Store, opt FlattenOptions) (*FlattenResult, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Tool == "" {
		opt.Tool = "dit"
	}
	if opt.Host == "" {
		opt.Host, _ = os.Hostname()
	}
	h, err := LoadHistory(st)
	if err != nil {
		return nil, err
	}
	if len(h.Problems) > 0 {
		return nil, fmt.Errorf("%w, not flattened: %s", ErrDamaged, strings.Join(h.Problems, "; "))
	}
	res := &FlattenResult{Histories: []string{""}, Generations: len(h.Generations), Warnings: h.Warnings}
	patterns := append([]string(nil), h.IgnorePatterns()...)
	for _, p := range opt.Ignore {
		patterns = appendNew(patterns, p)
	}
	fl := &flattener{ctx: ctx, st: st, res: res, rootIgn: ignore.New(patterns)}
	fl.hists = []*flatHist{{"", h, fl.rootIgn}}
	// Nested histories: every ascmhl folder below, outside what is ignored.
	if err := fl.walk(".", nil); err != nil {
		return nil, err
	}
	all := map[string]*flatRec{}
	for _, hs := range fl.hists {
		fl.collect(hs, replay(hs.h), all)
	}
	sort.Strings(res.LeftOut)
	if len(res.LeftOut) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d file(s) recorded only with failed hashes are left out", len(res.LeftOut)))
	}
	m := &Manifest{Created: opt.Now(), Host: opt.Host, Tool: opt.Tool, ToolVersion: opt.ToolVersion, Authors: opt.Authors,
		Location: opt.Location, Comment: opt.Comment, Process: ProcessFlatten, Ignore: patterns}
	for p, r := range all {
		f := File{Path: p, Size: r.size, Mtime: r.mtime, PreviousPath: r.prev}
		for _, a := range hashing.All {
			if hv, ok := r.hashes[a]; ok {
				f.Hashes = append(f.Hashes, hv)
			}
		}
		m.Files = append(m.Files, f)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	res.Manifest = m
	return res, nil
}

// flatHist is one history being flattened: the folder's own (prefix "")
// or a nested one (prefix "A001/"), with its ignore list.
type flatHist struct {
	prefix string
	h      *History
	ign    *ignore.Matcher
}

// flattener is a Flatten under way: the histories found so far.
type flattener struct {
	ctx     context.Context
	st      Store
	res     *FlattenResult
	rootIgn *ignore.Matcher
	hists   []*flatHist
}

// walk finds the nested histories in dir and below, outside what the
// folder's ignore list or an enclosing history's (stack) leaves out.
func (fl *flattener) walk(dir string, stack []*flatHist) error {
	if err := fl.ctx.Err(); err != nil {
		return err
	}
	ents, err := fl.st.ReadDir(dir)
	if err != nil {
		fl.res.Warnings = append(fl.res.Warnings, fmt.Sprintf("%s: cannot list the folder (%v): nested histories in it not read", DisplayName(dir), err))
		return nil
	}
	if dir != "." {
		if stack, err = fl.nested(dir, ents, stack); err != nil {
			return err
		}
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		rel := e.Name()
		if dir != "." {
			rel = dir + "/" + rel
		}
		ignored := fl.rootIgn.Match(rel, true)
		for _, s := range stack {
			ignored = ignored || s.ign.Match(rel[len(s.prefix):], true)
		}
		if ignored {
			continue
		}
		if err := fl.walk(rel, stack); err != nil {
			return err
		}
	}
	return nil
}

// nested reads the history of dir when it has one (ents are its
// entries) and returns stack with it on top; a damaged one is refused.
func (fl *flattener) nested(dir string, ents []fs.DirEntry, stack []*flatHist) ([]*flatHist, error) {
	res := fl.res
	for _, e := range ents {
		if e.Name() != HistoryDir || !e.IsDir() {
			continue
		}
		sub := &subStore{Store: fl.st, prefix: dir + "/"}
		nh, err := LoadHistory(sub)
		if errors.Is(err, ErrNoHistory) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the nested history in %s: %w", DisplayName(dir), err)
		}
		if len(nh.Problems) > 0 {
			return nil, fmt.Errorf("%w in %s, not flattened: %s", ErrDamaged, DisplayName(dir), strings.Join(nh.Problems, "; "))
		}
		nested := &flatHist{dir + "/", nh, ignore.New(nh.IgnorePatterns())}
		fl.hists = append(fl.hists, nested)
		stack = append(stack[:len(stack):len(stack)], nested)
		res.Histories = append(res.Histories, dir+"/")
		res.Generations += len(nh.Generations)
		res.Warnings = append(res.Warnings, prefixAll(dir+"/", nh.Warnings)...)
		break
	}
	return stack, nil
}

// replay plays a history's generations in order: per current path (renames
// followed), the earliest value of each format not marked failed, size and
// modification time from the latest record, and whether the latest
// record marks a hash failed.
func replay(h *History) map[string]*flatRec {
	recs := map[string]*flatRec{}
	for _, g := range h.Generations {
		if g.Manifest == nil {
			continue
		}
		for _, f := range g.Manifest.Files {
			r := recs[f.Path]
			if p := f.PreviousPath; p != "" && p != f.Path {
				if old, ok := recs[p]; ok {
					delete(recs, p)
					if r == nil {
						r = old
					} else {
						for a, v := range old.hashes {
							if _, has := r.hashes[a]; !has {
								r.hashes[a] = v
							}
						}
					}
				}
			}
			if r == nil {
				r = &flatRec{size: -1, hashes: map[hashing.Algo]Hash{}}
			}
			recs[f.Path] = r
			if f.PreviousPath != "" && f.PreviousPath != f.Path {
				r.prev = f.PreviousPath
			}
			if f.Size >= 0 {
				r.size = f.Size
			}
			if !f.Mtime.IsZero() {
				r.mtime = f.Mtime
			}
			r.failed = false
			for _, hv := range f.Hashes {
				if hv.Action == Failed {
					r.failed = true
					continue
				}
				if _, has := r.hashes[hv.Algo]; !has {
					r.hashes[hv.Algo] = hv
				}
			}
		}
	}
	return recs
}

// collect adds the records of history hs to all, under their paths in
// the folder: ignored files left out, files with no hash that is not
// failed listed in LeftOut.
func (fl *flattener) collect(hs *flatHist, recs map[string]*flatRec, all map[string]*flatRec) {
	for p, r := range recs {
		full := hs.prefix + p
		if hs.ign.Match(p, false) || fl.rootIgn.Match(full, false) {
			continue
		}
		if len(r.hashes) == 0 {
			fl.res.LeftOut = append(fl.res.LeftOut, full)
			continue
		}
		if r.prev != "" {
			r.prev = hs.prefix + r.prev
		}
		if have, ok := all[full]; ok {
			// Recorded by the folder's history and a nested one: the
			// formats the first lacks are added.
			for a, v := range r.hashes {
				if _, has := have.hashes[a]; !has {
					have.hashes[a] = v
				}
			}
			continue
		}
		all[full] = r
	}
}
