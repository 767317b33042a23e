package ascmhl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
)

// CreateOptions tune Create.
type CreateOptions struct {
	// Algos are the hashes computed for every file (ASC MHL formats only;
	// default xxh64). A file recorded before in none of them is also
	// hashed in one of its recorded formats, so that it is checked.
	Algos []hashing.Algo
	// Ignore are patterns (gitignore syntax) added to the history's ignore
	// list; the list an earlier generation recorded is kept (it only
	// grows). A nested history gets those without a slash (they mean the
	// same there); the others are the folder's own.
	Ignore []string
	// NoDirectoryHashes lists folders without hashes and writes an empty
	// root hash (ascmhl create -n).
	NoDirectoryHashes bool
	// Folder names the scope in the manifest's file name (the folder's
	// base name); default "folder".
	Folder string
	// Creator info: Tool defaults to "dit", Host to the host name.
	Host, Tool, ToolVersion string
	Authors                 []Author
	Location, Comment       string
	// TempDir holds the manifest's entries while they are written, until
	// the root hash that comes before them is known (a few hundred bytes
	// a file); default os.TempDir().
	TempDir string
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// OnFinding, if set, is called with each finding as it is made.
	OnFinding func(Finding)
	// OnFile, if set, is called after each file is hashed (progress).
	OnFile func(rel string, size int64)
}

// Renamed is a file or folder found under a new path with the content an
// old path recorded in the history had, the old path being gone: the new
// record carries previousPath.
type Renamed struct {
	From string `json:"from"`
	To   string `json:"to"`
	Dir  bool   `json:"folder,omitempty"`
}

// CreateResult is the outcome of Create.
type CreateResult struct {
	// Manifests are the generations written, relative to the folder
	// ("ascmhl/0002_A001_....mhl"); nested histories' first, the folder's
	// own last.
	Manifests []string
	// Generation is the number of the folder's new generation.
	Generation int
	// Files were hashed and recorded; by outcome: Original (not recorded
	// before), Verified (equal to the record), Failed (different: each
	// is a finding).
	Files                      int
	Bytes                      int64
	Original, Verified, Failed int
	Renamed                    []Renamed
	// Findings make the generation a failed check: files recorded as
	// failed, files and folders of the history missing, files that could
	// not be read (not recorded).
	Findings  []Finding
	Warnings  []string
	Recovered []string // what Recover did first
}

// OK reports whether every recorded file matched and nothing is missing.
func (r *CreateResult) OK() bool { return len(r.Findings) == 0 }

// ErrDamaged means a history is damaged: no generation is added to it.
var ErrDamaged = errors.New("damaged ASC MHL history")

// cscope is the folder's own history or a nested one.
type cscope struct {
	prefix   string // "" for the folder, else "A001/"
	st       Store
	parent   *cscope
	hist     *History // nil: none yet
	recs     *Records
	dirRecs  map[string][]DirHash // recorded folders, latest hashes
	patterns []string
	ign      *ignore.Matcher
	files    []*cfile
	dirs     []*cdir // folders inside the scope, the roots of nested histories included
	seen     map[string]bool
	renamed  []Renamed // scope-relative
	missing  []string  // recorded files not found (scope-relative)
	refs     []Reference
}

type cfile struct {
	rel, srel string
	sc        *cscope
	size      int64
	mtime     time.Time
	sums      map[hashing.Algo]string
	date      time.Time
	rec       *Record
	prev      string
	hashes    []Hash
	bad       bool
}

type cdir struct {
	rel, srel string
	mtime     time.Time
	prev      string
}

type creator struct {
	st     Store
	opt    CreateOptions
	algos  []hashing.Algo
	root   *cscope
	scopes []*cscope
	files  []*cfile
	dirs   []*cdir
	res    *CreateResult
	buf    []byte
}

// Create writes a new generation of the history of the folder st (process
// "in-place"; `ascmhl create -dr` is the model): every file is hashed;
// a file the history records is "verified" when equal to its record in
// every format both have, else "failed" (a finding naming both values); a
// new file is "original". A file found under a new path with the size and
// hashes of a recorded file whose path is gone is a rename: recorded with
// previousPath, checked against the old record; a folder whose files all
// moved to one new folder (or with the same content hash) likewise.
// Recorded files and folders that are gone are findings. Folder and root
// hashes are computed unless NoDirectoryHashes. Nested histories (an
// ascmhl folder in a sub-folder) get a generation of their own for their
// files, and the folder's generation references it, as the reference
// tool does.
//
// Crash leftovers are recovered first (Recover); a damaged history is
// refused (ErrDamaged) before anything is written. Each generation goes
// through Append (atomic), and the histories are read back after. The
// generation is written even with findings (as the reference tool does):
// it records what was found, failed hashes included.
func Create(ctx context.Context, st Store, opt CreateOptions) (*CreateResult, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Tool == "" {
		opt.Tool = "dit"
	}
	if opt.Host == "" {
		opt.Host, _ = os.Hostname()
	}
	if opt.Folder == "" {
		opt.Folder = "folder"
	}
	c := &creator{st: st, opt: opt, res: &CreateResult{}, buf: make([]byte, 1<<20)}
	for _, a := range opt.Algos {
		if !a.InASCMHL() {
			return nil, fmt.Errorf("%s is not an ASC MHL hash format (use c4, md5, sha1, xxh128, xxh3 or xxh64)", a)
		}
		if !hasAlgo(c.algos, a) {
			c.algos = append(c.algos, a)
		}
	}
	if len(c.algos) == 0 {
		c.algos = []hashing.Algo{hashing.XXH64}
	}
	sort.Slice(c.algos, func(i, j int) bool { return c.algos[i] < c.algos[j] })

	root, err := c.openScope(st, "", nil)
	if err != nil {
		return nil, err
	}
	c.root = root
	stream, err := c.streamable(ctx)
	if err != nil {
		return c.res, err
	}
	if stream {
		return c.res, c.createStreamed(ctx)
	}
	if err := c.walk(ctx, ".", root); err != nil {
		return c.res, err
	}
	pool := newHashPool(ctx, st)
	for _, f := range c.files {
		if err := c.hash(pool, f); err != nil {
			return c.res, err
		}
	}
	if err := pool.finish(); err != nil {
		return c.res, err
	}
	for _, sc := range c.scopes {
		if err := c.detectRenames(ctx, sc); err != nil {
			return c.res, err
		}
	}
	for _, f := range c.files {
		c.qualify(f)
	}
	var dh map[string][]DirHash
	if !opt.NoDirectoryHashes {
		tree := Tree{Dirs: []string{"."}, Files: map[string]map[hashing.Algo]string{}}
		for _, d := range c.dirs {
			tree.Dirs = append(tree.Dirs, d.rel)
		}
		for _, f := range c.files {
			if f.bad {
				tree.Files[f.rel] = nil
			} else {
				tree.Files[f.rel] = f.sums
			}
		}
		if dh, err = DirHashes(tree, c.algos); err != nil {
			return c.res, err
		}
	}
	for _, sc := range c.scopes {
		c.detectDirRenames(sc, dh)
	}
	c.reportMissing()

	// Nested histories first (deepest first), so that each parent
	// references its children's new manifests.
	order := append([]*cscope(nil), c.scopes...)
	sort.SliceStable(order, func(i, j int) bool {
		return strings.Count(order[i].prefix, "/") > strings.Count(order[j].prefix, "/")
	})
	created := opt.Now()
	for _, sc := range order {
		m := c.manifest(sc, dh, created)
		folder := opt.Folder
		if sc.prefix != "" {
			folder = path.Base(strings.TrimSuffix(sc.prefix, "/"))
		}
		name, err := Append(sc.st, sc.hist, m, folder)
		if err != nil {
			return c.res, fmt.Errorf("writing the ASC MHL history in %s: %w", c.where(sc), err)
		}
		data, err := sc.st.ReadFile(name)
		if err != nil {
			return c.res, fmt.Errorf("reading back %s%s: %w", sc.prefix, name, err)
		}
		again, err := LoadHistory(sc.st)
		switch {
		case err != nil:
			return c.res, fmt.Errorf("the ASC MHL history in %s does not read back after writing %s: %w", c.where(sc), name, err)
		case len(again.Problems) > 0:
			return c.res, fmt.Errorf("the ASC MHL history in %s does not verify after writing %s: %s", c.where(sc), name, strings.Join(again.Problems, "; "))
		}
		c.res.Manifests = append(c.res.Manifests, sc.prefix+name)
		if sc.parent != nil {
			sc.parent.refs = append(sc.parent.refs, Reference{Path: sc.prefix[len(sc.parent.prefix):] + name, C4: C4(data)})
		} else {
			c.res.Generation = sc.hist.NextSeq()
		}
	}
	return c.res, nil
}

func (c *creator) where(sc *cscope) string {
	if sc.prefix == "" {
		return "the folder"
	}
	return DisplayName(strings.TrimSuffix(sc.prefix, "/"))
}

func (c *creator) add(f Finding) {
	c.res.Findings = append(c.res.Findings, f)
	if c.opt.OnFinding != nil {
		c.opt.OnFinding(f)
	}
}

// openScope recovers and reads the history of st (the folder, or a nested
// one at prefix). It returns nil, nil for a nested folder whose ascmhl
// folder holds no history.
func (c *creator) openScope(st Store, prefix string, parent *cscope) (*cscope, error) {
	where := "the folder"
	if prefix != "" {
		where = DisplayName(strings.TrimSuffix(prefix, "/"))
	}
	// A generation an earlier dit mhl create left half written (process
	// in-place) is this command's to finish or undo; nothing else.
	did, err := Recover(st, RecoverScope{Own: func(m *Manifest) bool { return m.Tool == "dit" && m.Process == ProcessInPlace }})
	if err != nil {
		return nil, fmt.Errorf("recovering the ASC MHL history in %s: %w", where, err)
	}
	for _, d := range did {
		c.res.Recovered = append(c.res.Recovered, prefix+d)
	}
	h, err := LoadHistory(st)
	switch {
	case errors.Is(err, ErrNoHistory):
		if parent != nil {
			return nil, nil
		}
		h = nil
	case err != nil:
		return nil, fmt.Errorf("reading the ASC MHL history in %s: %w", where, err)
	case len(h.Problems) > 0:
		return nil, fmt.Errorf("%w in %s, no generation written: %s", ErrDamaged, where, strings.Join(h.Problems, "; "))
	}
	if h != nil {
		c.res.Warnings = append(c.res.Warnings, prefixAll(prefix, h.Warnings)...)
	}
	sc := &cscope{prefix: prefix, st: st, parent: parent, hist: h, dirRecs: map[string][]DirHash{}, seen: map[string]bool{}}
	sc.patterns = append([]string(nil), h.IgnorePatterns()...)
	// The history's own folder is never content, whatever a list another
	// tool wrote says.
	sc.patterns = appendNew(appendNew(sc.patterns, HistoryDir), HistoryDir+"/")
	for _, p := range c.opt.Ignore {
		if parent == nil || !strings.Contains(strings.TrimRight(p, "/"), "/") {
			sc.patterns = appendNew(sc.patterns, p)
		}
	}
	sc.ign = ignore.New(sc.patterns)
	if h != nil {
		sc.recs = h.Records()
		for _, g := range h.Generations {
			if g.Manifest == nil {
				continue
			}
			for _, d := range g.Manifest.Dirs {
				if d.PreviousPath != "" && d.PreviousPath != d.Path {
					delete(sc.dirRecs, d.PreviousPath)
				}
				if old, ok := sc.dirRecs[d.Path]; !ok || len(d.Hashes) > 0 || len(old) == 0 {
					sc.dirRecs[d.Path] = d.Hashes
				}
			}
		}
	}
	c.scopes = append(c.scopes, sc)
	return sc, nil
}

func appendNew(list []string, p string) []string {
	for _, x := range list {
		if x == p {
			return list
		}
	}
	return append(list, p)
}

func hasAlgo(list []hashing.Algo, a hashing.Algo) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// ignored reports whether rel (relative to the folder) is ignored by the
// folder's patterns or those of a nested history it is in.
func (c *creator) ignored(rel string, dir bool, sc *cscope) bool {
	if c.root.ign.Match(rel, dir) {
		return true
	}
	for s := sc; s != nil && s.parent != nil; s = s.parent {
		if s.ign.Match(rel[len(s.prefix):], dir) {
			return true
		}
	}
	return false
}

// markSeen marks rel as found on disk in every history that may record it.
func markSeen(sc *cscope, rel string) {
	for s := sc; s != nil; s = s.parent {
		s.seen[rel[len(s.prefix):]] = true
	}
}

func (c *creator) walk(ctx context.Context, dir string, sc *cscope) error {
	ents, err := c.st.ReadDir(dir)
	if err != nil {
		c.add(Finding{Kind: FindUnread, Path: dir, Detail: "cannot list the folder: " + err.Error()})
		return nil
	}
	if dir != "." {
		for _, e := range ents {
			if e.Name() == HistoryDir && e.IsDir() {
				nested, err := c.openScope(&subStore{Store: c.st, prefix: dir + "/"}, dir+"/", sc)
				if err != nil {
					return err
				}
				if nested != nil {
					sc = nested
				}
				break
			}
		}
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := e.Name()
		if dir != "." {
			rel = dir + "/" + e.Name()
		}
		if c.ignored(rel, e.IsDir(), sc) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			c.add(Finding{Kind: FindUnread, Path: rel, Detail: err.Error()})
			markSeen(sc, rel)
			continue
		}
		if e.IsDir() {
			d := &cdir{rel: rel, srel: rel[len(sc.prefix):], mtime: fi.ModTime()}
			sc.dirs = append(sc.dirs, d)
			c.dirs = append(c.dirs, d)
			markSeen(sc, rel)
			if err := c.walk(ctx, rel, sc); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			c.res.Warnings = append(c.res.Warnings, fmt.Sprintf("%s is not a regular file (%s): not recorded", DisplayName(rel), e.Type()))
			continue
		}
		f := &cfile{rel: rel, srel: rel[len(sc.prefix):], sc: sc, size: fi.Size(), mtime: fi.ModTime()}
		f.rec = sc.recs.Get(f.srel)
		sc.files = append(sc.files, f)
		c.files = append(c.files, f)
		markSeen(sc, rel)
	}
	return nil
}

// hash reads f once for the formats asked for, plus one it was recorded
// in when it was recorded in none of them.
func (c *creator) hash(pool *hashPool, f *cfile) error {
	return pool.hash(f.rel, c.algosFor(f), func(sums map[hashing.Algo]string, n int64, err error) error {
		return c.hashed(f, sums, n, err)
	})
}

// algosFor is what f is hashed in: the formats asked for, plus its
// fastest recorded one when it was recorded in none of them.
func (c *creator) algosFor(f *cfile) []hashing.Algo {
	algos := c.algos
	if f.rec != nil && len(f.rec.Values) > 0 {
		common := false
		var recorded []hashing.Algo
		for a := range f.rec.Values {
			common = common || hasAlgo(algos, a)
			recorded = append(recorded, a)
		}
		if !common {
			algos = append(append([]hashing.Algo(nil), algos...), hashing.Fastest(recorded))
		}
	}
	return algos
}

// hashAlgos reads f again for algos, on the caller's goroutine.
func (c *creator) hashAlgos(ctx context.Context, f *cfile, algos []hashing.Algo) error {
	sums, n, err := hashFile(ctx, c.st, f.rel, algos, c.buf)
	return c.hashed(f, sums, n, err)
}

// hashed takes f's hashes (or its read error).
func (c *creator) hashed(f *cfile, sums map[hashing.Algo]string, n int64, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err != nil {
		if f.sums != nil { // read before (a rename check read it again)
			c.res.Files--
			c.res.Bytes -= f.size
		}
		f.bad = true
		c.add(Finding{Kind: FindUnread, Path: f.rel, Detail: err.Error() + ": not recorded"})
		return nil
	}
	if f.sums == nil {
		f.sums = sums
		f.size = n
		f.date = c.opt.Now()
		c.res.Files++
		c.res.Bytes += n
		if c.opt.OnFile != nil {
			c.opt.OnFile(f.rel, n)
		}
		return nil
	}
	for a, v := range sums {
		f.sums[a] = v
	}
	return nil
}

// compare says how f's hashes stand against rec: the formats both have,
// and the first that differs.
func compare(f *cfile, rec *Record) (common []hashing.Algo, bad hashing.Algo, differs bool) {
	for _, a := range hashing.All {
		v, ok := f.sums[a]
		if !ok {
			continue
		}
		if want, ok := rec.Values[a]; ok {
			common = append(common, a)
			if v != want && !differs {
				bad, differs = a, true
			}
		}
	}
	return common, bad, differs
}

// qualify sets the actions of f's hashes against its record.
func (c *creator) qualify(f *cfile) {
	if f.sums == nil || f.bad {
		return
	}
	add := func(a hashing.Algo, act Action) {
		f.hashes = append(f.hashes, Hash{Algo: a, Value: f.sums[a], Action: act, Date: f.date})
	}
	switch {
	case f.rec == nil:
		for _, a := range c.algos {
			add(a, Original)
		}
		c.res.Original++
	case len(f.rec.Values) == 0:
		// Recorded before only with failed hashes: nothing vouches for
		// this content.
		for _, a := range c.algos {
			add(a, Failed)
		}
		c.res.Failed++
		c.add(Finding{Kind: FindFailed, Path: f.rel, Detail: fmt.Sprintf("recorded only with failed hashes (generation %d): nothing to check it against; recorded as failed again", f.rec.FailedSeq)})
	default:
		common, bad, differs := compare(f, f.rec)
		if f.prev != "" && !differs {
			// Renamed, and equal to the old record: recorded "original"
			// with previousPath, as the reference tool writes it (its
			// verify finds a renamed file of a nested history only so).
			for _, a := range c.algos {
				add(a, Original)
			}
			for _, a := range common {
				if !hasAlgo(c.algos, a) {
					add(a, Original)
				}
			}
			c.res.Verified++
			break
		}
		for _, a := range common {
			if f.sums[a] == f.rec.Values[a] {
				add(a, Verified)
			} else {
				add(a, Failed)
			}
		}
		if differs {
			// As the reference tool does: a format never recorded is not
			// added to a file that failed.
			c.res.Failed++
			detail := fmt.Sprintf("%s %s, recorded %s", bad, f.sums[bad], f.rec.Values[bad])
			if f.rec.Size >= 0 && f.rec.Size != f.size {
				detail = fmt.Sprintf("size %d, recorded %d; %s", f.size, f.rec.Size, detail)
			}
			if f.prev != "" {
				detail += " (as " + DisplayName(f.prev) + ")"
			}
			c.add(Finding{Kind: FindFailed, Path: f.rel, Detail: detail + ": recorded as failed"})
			break
		}
		for _, a := range c.algos {
			if _, ok := f.rec.Values[a]; !ok {
				add(a, Original)
			}
		}
		c.res.Verified++
	}
	sort.Slice(f.hashes, func(i, j int) bool { return f.hashes[i].Algo < f.hashes[j].Algo })
}

func (c *creator) reportMissing() {
	var all []Finding
	for _, sc := range c.scopes {
		for _, p := range sc.missing {
			if strings.HasSuffix(p, "/") {
				all = append(all, Finding{Kind: FindMissing, Path: sc.prefix + strings.TrimSuffix(p, "/"), Detail: "folder recorded in the history, not in the folder"})
			} else {
				all = append(all, Finding{Kind: FindMissing, Path: sc.prefix + p, Detail: "recorded in the history, not in the folder"})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	for _, f := range all {
		c.add(f)
	}
	sort.Slice(c.res.Renamed, func(i, j int) bool { return c.res.Renamed[i].To < c.res.Renamed[j].To })
}

// manifest assembles the new generation of sc.
func (c *creator) manifest(sc *cscope, dh map[string][]DirHash, created time.Time) *Manifest {
	o := c.opt
	m := &Manifest{Created: created, Host: o.Host, Tool: o.Tool, ToolVersion: o.ToolVersion, Authors: o.Authors,
		Location: o.Location, Comment: o.Comment, Process: ProcessInPlace, Ignore: sc.patterns, EmptyRootHash: true,
		References: sc.refs}
	for _, f := range sc.files {
		if len(f.hashes) > 0 {
			m.Files = append(m.Files, File{Path: f.srel, Size: f.size, Mtime: f.mtime, Hashes: f.hashes, PreviousPath: f.prev})
		}
	}
	for _, d := range sc.dirs {
		dir := Dir{Path: d.srel, Mtime: d.mtime, PreviousPath: d.prev}
		if dh != nil {
			if dir.Hashes = dh[d.rel]; len(dir.Hashes) == 0 {
				continue // a file below could not be read
			}
		}
		m.Dirs = append(m.Dirs, dir)
	}
	if dh != nil {
		m.Root = dh[strings.TrimSuffix(sc.prefix, "/")]
		if sc.prefix == "" {
			m.Root = dh["."]
		}
	}
	return m
}
