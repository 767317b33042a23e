package ascmhl

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
)

// Finding kinds.
const (
	FindMissing   = "missing" // recorded, not on disk
	FindChanged   = "changed" // on disk, different from its record
	FindNew       = "new"     // on disk, not recorded and not ignored
	FindFailed    = "failed"  // recorded only with failed hashes; Create: differs from its record (recorded failed)
	FindUnread    = "unreadable"
	FindHistory   = "history"   // the history itself is damaged
	FindDirectory = "directory" // a directory or root hash differs
)

// Finding is one thing that makes a verification fail.
type Finding struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"` // relative to the scope; "" for the history
	Detail string `json:"detail"`
}

func (f Finding) String() string {
	if f.Path == "" {
		return f.Kind + ": " + f.Detail
	}
	return fmt.Sprintf("%s %s: %s", f.Kind, DisplayName(f.Path), f.Detail)
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// AllHashes recomputes every recorded algorithm of a file, not only the
	// fastest one.
	AllHashes bool
	// DirectoryHashes also checks the folder and root hashes of the newest
	// generation that has a root hash.
	DirectoryHashes bool
	// OnFinding, if set, is called with each finding as it is made.
	OnFinding func(Finding)
	// SizesOnly reads no file: a recorded file of the recorded size
	// matches (what `ascmhl diff` and `dit mhl diff` do: new, missing and
	// resized files, in the time a listing takes). DirectoryHashes is then
	// not checked.
	SizesOnly bool
	// Ignore are patterns (gitignore syntax) ignored besides the
	// history's own list.
	Ignore []string
}

// VerifyResult is the outcome of Verify.
type VerifyResult struct {
	History  *History
	Files    int // files that match their records
	Bytes    int64
	Findings []Finding
	Warnings []string
}

// OK reports whether everything matched.
func (r *VerifyResult) OK() bool { return len(r.Findings) == 0 }

// scope is the root history or a nested one.
type scope struct {
	prefix string // "" for the root, else "dir/"
	hist   *History
	idx    *index
}

// Verify re-hashes every file of the scope st and compares it with the
// history: each file missing, changed, new (neither recorded nor ignored)
// or recorded only as failed is a finding, and so is a folder recorded in
// the history and missing, and a damaged history (a chain or manifest
// missing, edited, not in the chain or invalid). A file renamed (its
// record carries a previousPath) is checked under its new name against
// what was recorded under the old one, which is no longer expected.
// Nested histories (an ascmhl folder in a sub-folder) are read too: a file
// recorded in none of them is new, and each reference a manifest makes to
// a nested history's manifest must match that manifest's c4. Paths in
// manifests never lead outside st: they are refused when parsed. Verify
// returns ErrNoHistory for a folder without history; other errors mean it
// could not run.
//
// Manifests are streamed, and only what the check needs is kept of each
// record (see the package doc for the memory a large history takes).
func Verify(ctx context.Context, st Store, opt VerifyOptions) (*VerifyResult, error) {
	h, err := loadHistory(st, loadSorted)
	if err != nil {
		return nil, err
	}
	v := &verifier{ctx: ctx, st: st, opt: opt, seenDirs: map[string]bool{}, pool: newHashPool(ctx, st),
		ign: ignore.New(append(h.IgnorePatterns(), opt.Ignore...))}
	merge, err := v.mergeable(h)
	if err != nil {
		return nil, err
	}
	if h.idx.dirsOnly && !merge {
		if h, err = loadHistory(st, loadCompact); err != nil {
			return nil, err
		}
	}
	v.res = &VerifyResult{History: h, Warnings: append([]string(nil), h.Warnings...)}
	for _, p := range h.Problems {
		v.add(Finding{Kind: FindHistory, Detail: p})
	}
	if len(h.Generations) == 0 {
		v.add(Finding{Kind: FindHistory, Detail: "the chain lists no generation"})
	}
	v.scopes = []*scope{{hist: h, idx: h.idx}}
	if opt.DirectoryHashes && !opt.SizesOnly {
		v.pickDirHashes(h)
	}
	walk := func() error { return v.walk(".") }
	if merge {
		walk = v.mergeWalk
	}
	if err := walk(); err != nil {
		return v.res, err
	}
	if err := v.pool.finish(); err != nil {
		return v.res, err
	}
	v.reportMissing()
	if err := checkReferences(ctx, st, v.scopes, v.add); err != nil {
		return v.res, err
	}
	if v.dirGen != nil {
		if err := v.checkDirHashes(); err != nil {
			return v.res, err
		}
	}
	return v.res, nil
}

// verifier is a Verify under way.
type verifier struct {
	ctx    context.Context
	st     Store
	opt    VerifyOptions
	res    *VerifyResult
	ign    *ignore.Matcher
	scopes []*scope // the root history, then nested ones as found
	// dirGen is the generation whose directory hashes are checked (nil:
	// none), dirAlgos their formats; dh computes the folders' hashes as
	// the walk goes (holding only the folders open), got keeps each
	// folder's (a few dozen bytes a folder, none a file).
	dirGen   *Manifest
	dirAlgos []hashing.Algo
	dh       *DirHasher
	got      map[string][]DirHash
	seenDirs map[string]bool
	pool     *hashPool // files hashed HashWorkers at once, findings in walk order
	missing  []string  // the merge: recorded files the walk passed by (verifymerge.go)
}

// add records a finding and passes it to OnFinding.
// While files are being hashed it is queued behind them, so findings
// come in the order of the walk.
func (v *verifier) add(f Finding) {
	v.pool.later(func() {
		v.res.Findings = append(v.res.Findings, f)
		if v.opt.OnFinding != nil {
			v.opt.OnFinding(f)
		}
	})
}

// pickDirHashes chooses the latest generation with directory hashes to
// check, and the algorithms they need; the tree of hashes is only built
// for them (it holds every file).
func (v *verifier) pickDirHashes(h *History) {
	for i := len(h.Generations) - 1; i >= 0 && v.dirGen == nil; i-- {
		if m := h.Generations[i].Manifest; m != nil && len(m.Root) > 0 {
			v.dirGen = m
			for _, d := range m.Root {
				v.dirAlgos = append(v.dirAlgos, d.Algo)
			}
		}
	}
	if v.dirGen == nil {
		v.res.Warnings = append(v.res.Warnings, "no generation has directory hashes: only files were checked")
		return
	}
	v.dh = NewDirHasher(v.dirAlgos)
	v.dh.Enter(".")
	v.got = map[string][]DirHash{}
}

// walk checks every file of dir and below that is not ignored, reading
// the nested histories on the way.
func (v *verifier) walk(dir string) error {
	ents, err := v.st.ReadDir(dir)
	if err != nil {
		v.add(Finding{Kind: FindUnread, Path: dir, Detail: "cannot list the folder: " + err.Error()})
		return nil
	}
	if dir != "." {
		v.nestedHistory(dir, ents)
	}
	for _, e := range ents {
		if err := v.ctx.Err(); err != nil {
			return err
		}
		rel := e.Name()
		if dir != "." {
			rel = dir + "/" + e.Name()
		}
		if v.ign.Match(rel, e.IsDir()) {
			continue
		}
		if e.IsDir() {
			if err := v.dir(rel, func() error { return v.walk(rel) }); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			v.res.Warnings = append(v.res.Warnings, fmt.Sprintf("%s is not a regular file (%s): not followed", DisplayName(rel), e.Type()))
			continue
		}
		if err := v.checkFile(e, rel); err != nil {
			return err
		}
	}
	return nil
}

// dir marks the folder rel found and walks it (walk), its hashes
// computed on the way when they are checked.
func (v *verifier) dir(rel string, walk func() error) error {
	if v.dh != nil {
		v.pool.later(func() { v.dh.Enter(rel) })
	}
	v.seenDirs[rel] = true
	markDir(v.scopes, rel)
	if err := walk(); err != nil {
		return err
	}
	if v.dh != nil {
		v.pool.later(func() {
			p, hs := v.dh.Leave()
			v.got[p] = hs
		})
	}
	return nil
}

// nestedHistory reads the history of dir when it has one (ents are its
// entries): a scope of its own from then on.
func (v *verifier) nestedHistory(dir string, ents []fs.DirEntry) {
	for _, e := range ents {
		if e.Name() == HistoryDir && e.IsDir() {
			sub := &subStore{Store: v.st, prefix: dir + "/"}
			nh, err := loadHistory(sub, loadCompact)
			if err != nil {
				v.add(Finding{Kind: FindHistory, Path: dir, Detail: "nested history: " + err.Error()})
				break
			}
			for _, p := range nh.Problems {
				v.add(Finding{Kind: FindHistory, Path: dir, Detail: "nested history: " + p})
			}
			v.res.Warnings = append(v.res.Warnings, prefixAll(dir+"/", nh.Warnings)...)
			v.scopes = append(v.scopes, &scope{prefix: dir + "/", hist: nh, idx: nh.idx})
		}
	}
}

// checkFile checks the regular file rel (entry e) against its record:
// its size, then its hashes (the fastest recorded, or all). Only a
// cancelled context is an error; anything else found is a finding.
func (v *verifier) checkFile(e fs.DirEntry, rel string) error {
	sc, rec := markFile(v.scopes, rel)
	return v.checkRec(e, rel, sc, rec)
}

// checkRec checks the file rel against its record rec (nil: none) of
// the history sc.
func (v *verifier) checkRec(e fs.DirEntry, rel string, sc *scope, rec *irec) error {
	opt, res := v.opt, v.res
	if rec == nil {
		v.add(Finding{Kind: FindNew, Path: rel, Detail: "not recorded in the history"})
		return nil
	}
	algos := sc.idx.algos(rec)
	if len(algos) == 0 {
		v.add(Finding{Kind: FindFailed, Path: rel, Detail: fmt.Sprintf("recorded only with failed hashes (generation %d): the copy was bad when it was recorded", rec.failedSeq)})
		return nil
	}
	check := algos
	if !opt.AllHashes {
		check = []hashing.Algo{hashing.Fastest(algos)}
	}
	if rec.size >= 0 || opt.SizesOnly {
		fi, err := e.Info()
		switch {
		case err != nil && opt.SizesOnly:
			v.add(Finding{Kind: FindUnread, Path: rel, Detail: err.Error()})
			return nil
		case err == nil && rec.size >= 0 && fi.Size() != rec.size:
			v.add(Finding{Kind: FindChanged, Path: rel, Detail: fmt.Sprintf("size %d, recorded %d", fi.Size(), rec.size)})
			return nil
		case opt.SizesOnly:
			res.Files++
			res.Bytes += fi.Size()
			return nil
		}
	}
	return v.pool.hash(rel, union(check, v.dirAlgos), func(sums map[hashing.Algo]string, n int64, err error) error {
		return v.checked(sc, rec, rel, check, sums, n, err)
	})
}

// checked takes the hashes of rel (read by the pool) to its record.
func (v *verifier) checked(sc *scope, rec *irec, rel string, check []hashing.Algo, sums map[hashing.Algo]string, n int64, err error) error {
	res := v.res
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err != nil {
		v.add(Finding{Kind: FindUnread, Path: rel, Detail: err.Error()})
		return nil
	}
	if v.dh != nil {
		if err := v.dh.File(rel, func(a hashing.Algo) string { return sums[a] }); err != nil {
			return err
		}
	}
	bad := ""
	for _, a := range check {
		if want, _ := sc.idx.value(rec, a); sums[a] != want {
			bad = fmt.Sprintf("%s %s, recorded %s", a, sums[a], want)
			break
		}
	}
	if bad != "" {
		v.add(Finding{Kind: FindChanged, Path: rel, Detail: bad})
		return nil
	}
	res.Files++
	res.Bytes += n
	return nil
}

// reportMissing adds a finding, sorted by path, for each file and folder
// a history records that was not found (and is not ignored).
func (v *verifier) reportMissing() {
	var missing []Finding
	for _, sc := range v.scopes {
		sc.idx.each(func(i int, r *irec) {
			if sc.idx.isSeen(i) {
				return
			}
			if full := sc.prefix + sc.idx.pathOf(r); !v.seenDirs[full] && !v.ign.Match(full, false) {
				missing = append(missing, Finding{Kind: FindMissing, Path: full, Detail: "recorded in the history, not in the folder"})
			}
		})
		for p, d := range sc.idx.dirs {
			if full := sc.prefix + p; !d.seen && !v.seenDirs[full] && !v.ign.Match(full, true) {
				missing = append(missing, Finding{Kind: FindMissing, Path: full, Detail: "folder recorded in the history, not in the folder"})
			}
		}
	}
	for _, full := range v.missing {
		if !v.seenDirs[full] && !v.ign.Match(full, false) {
			missing = append(missing, Finding{Kind: FindMissing, Path: full, Detail: "recorded in the history, not in the folder"})
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].Path < missing[j].Path })
	for _, f := range missing {
		v.add(f)
	}
}

// checkDirHashes compares the directory hashes of the files found with
// those dirGen records, for each recorded folder found and the root.
func (v *verifier) checkDirHashes() error {
	got := v.got
	_, got["."] = v.dh.Leave()
	cmp := func(p string, want []DirHash) {
		for _, w := range want {
			for _, g := range got[p] {
				if g.Algo == w.Algo && (g.Content != w.Content || g.Structure != w.Structure) {
					what := "folder"
					if p == "." {
						what = "root"
					}
					v.add(Finding{Kind: FindDirectory, Path: p, Detail: fmt.Sprintf("%s %s hash: content %s structure %s, recorded content %s structure %s",
						what, w.Algo, g.Content, g.Structure, w.Content, w.Structure)})
				}
			}
		}
	}
	for _, d := range v.dirGen.Dirs {
		if v.seenDirs[d.Path] {
			cmp(d.Path, d.Hashes)
		}
	}
	cmp(".", v.dirGen.Root)
	return nil
}

// markFile finds the record of the file rel (the root history first, then
// the nearest nested one) and marks it, in every history that records
// rel, as found on disk. It returns nil when no history records rel.
func markFile(scopes []*scope, rel string) (*scope, *irec) {
	var best *irec
	var bestScope *scope
	bestLen := -1
	for i, sc := range scopes {
		if !strings.HasPrefix(rel, sc.prefix) {
			continue
		}
		r, n, ok := sc.idx.find(rel[len(sc.prefix):])
		if !ok {
			continue
		}
		sc.idx.markSeen(n)
		switch {
		case i == 0:
			best, bestScope, bestLen = &r, sc, 1<<30
		case len(sc.prefix) > bestLen:
			best, bestScope, bestLen = &r, sc, len(sc.prefix)
		}
	}
	return bestScope, best
}

// markDir marks the folder rel as found on disk in every history that
// records it.
func markDir(scopes []*scope, rel string) {
	for _, sc := range scopes {
		if strings.HasPrefix(rel, sc.prefix) {
			key := rel[len(sc.prefix):]
			if d, ok := sc.idx.dirs[key]; ok {
				d.seen = true
				sc.idx.dirs[key] = d
			}
		}
	}
}

// checkReferences checks each reference a manifest makes to the manifest
// of a nested history (<references><hashlistreference>): the file must be
// there, with the c4 the reference gives. The reference tool checks the
// same; a nested manifest changed together with its own chain is caught
// only here.
func checkReferences(ctx context.Context, st Store, scopes []*scope, add func(Finding)) error {
	type sum struct {
		c4  string
		err error
	}
	sums := map[string]sum{}
	for _, sc := range scopes {
		for _, g := range sc.hist.Generations {
			if g.Manifest == nil {
				continue
			}
			from := sc.prefix + HistoryDir + "/" + g.File
			for _, r := range g.Manifest.References {
				full := sc.prefix + r.Path
				if _, err := hashing.DecodeC4(r.C4); err != nil {
					add(Finding{Kind: FindHistory, Path: full, Detail: fmt.Sprintf("%s references this manifest with a malformed c4: %v", DisplayName(from), err)})
					continue
				}
				s, done := sums[full]
				if !done {
					s.c4, s.err = fileC4(ctx, st, full)
					if errors.Is(s.err, context.Canceled) || errors.Is(s.err, context.DeadlineExceeded) {
						return s.err
					}
					sums[full] = s
				}
				switch {
				case errors.Is(s.err, fs.ErrNotExist):
					add(Finding{Kind: FindHistory, Path: full, Detail: fmt.Sprintf("%s references this nested history's manifest, which is missing", DisplayName(from))})
				case s.err != nil:
					add(Finding{Kind: FindUnread, Path: full, Detail: fmt.Sprintf("referenced by %s: %v", DisplayName(from), s.err)})
				case s.c4 != r.C4:
					add(Finding{Kind: FindHistory, Path: full, Detail: fmt.Sprintf("nested history's manifest changed after it was referenced: its c4 is %s, %s says %s", s.c4, DisplayName(from), r.C4)})
				}
			}
		}
	}
	return nil
}

// fileC4 returns the C4 id of a file of st, read in one stream.
func fileC4(ctx context.Context, st Store, name string) (string, error) {
	sums, _, err := hashFile(ctx, st, name, []hashing.Algo{hashing.C4}, make([]byte, 256<<10))
	if err != nil {
		return "", err
	}
	return sums[hashing.C4], nil
}

func union(a, b []hashing.Algo) []hashing.Algo {
	out := append([]hashing.Algo(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// hashFile reads a file of st once and computes algos.
func hashFile(ctx context.Context, st Store, name string, algos []hashing.Algo, buf []byte) (map[hashing.Algo]string, int64, error) {
	f, err := st.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	hs := make([]hash.Hash, len(algos))
	for i, a := range algos {
		hs[i] = a.New()
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, n, err
		}
		k, err := f.Read(buf)
		for _, h := range hs {
			h.Write(buf[:k])
		}
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, n, fmt.Errorf("read error after %d bytes: %w", n, err)
		}
	}
	out := map[hashing.Algo]string{}
	for i, a := range algos {
		out[a] = hashing.Encode(a, hs[i].Sum(nil))
	}
	return out, n, nil
}

// HashFile computes algos over one file of st in one read.
func HashFile(ctx context.Context, st Store, name string, algos []hashing.Algo) (map[hashing.Algo]string, error) {
	sums, _, err := hashFile(ctx, st, name, algos, make([]byte, 1<<20))
	return sums, err
}

// subStore is a Store seen from one of its folders.
type subStore struct {
	Store
	prefix string
}

func (s *subStore) name(n string) string {
	if n == "" || n == "." {
		return strings.TrimSuffix(s.prefix, "/")
	}
	return s.prefix + n
}

func (s *subStore) ReadFile(n string) ([]byte, error)       { return s.Store.ReadFile(s.name(n)) }
func (s *subStore) ReadDir(n string) ([]fs.DirEntry, error) { return s.Store.ReadDir(s.name(n)) }
func (s *subStore) Lstat(n string) (fs.FileInfo, error)     { return s.Store.Lstat(s.name(n)) }
func (s *subStore) Open(n string) (io.ReadCloser, error)    { return s.Store.Open(s.name(n)) }
func (s *subStore) MkdirAll(n string) error                 { return s.Store.MkdirAll(s.name(n)) }
func (s *subStore) SetModTime(n string, t time.Time) error  { return s.Store.SetModTime(s.name(n), t) }
func (s *subStore) Remove(n string) error                   { return s.Store.Remove(s.name(n)) }
func (s *subStore) WriteFileAtomic(n string, d []byte, r bool) error {
	return s.Store.WriteFileAtomic(s.name(n), d, r)
}
