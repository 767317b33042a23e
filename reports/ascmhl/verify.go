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

	"github.com/dit-org/dit/internal/hashing"
)

// Finding kinds.
const (
	FindMissing   = "missing" // recorded, not on disk
	FindChanged   = "changed" // on disk, different from its record
	FindNew       = "new"     // on disk, not recorded and not ignored
	FindFailed    = "failed"  // recorded only with failed hashes
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
	prefix  string // "" for the root, else "dir/"
	records map[string]*Record
}

// Verify re-hashes every file of the scope st and compares it with the
// history: each file missing, changed, new (neither recorded nor ignored)
// or recorded only as failed is a finding, and so is a damaged history (a
// manifest missing, edited, not in the chain or invalid). Nested histories
// (an ascmhl folder in a sub-folder) are read too: a file recorded in
// none of them is new. Paths in manifests never lead outside st: they are
// refused when parsed. Verify returns ErrNoHistory for a folder without
// history; other errors mean it could not run.
func Verify(ctx context.Context, st Store, opt VerifyOptions) (*VerifyResult, error) {
	h, err := LoadHistory(st)
	if err != nil {
		return nil, err
	}
	res := &VerifyResult{History: h, Warnings: append([]string(nil), h.Warnings...)}
	add := func(f Finding) {
		res.Findings = append(res.Findings, f)
		if opt.OnFinding != nil {
			opt.OnFinding(f)
		}
	}
	for _, p := range h.Problems {
		add(Finding{Kind: FindHistory, Detail: p})
	}
	if len(h.Generations) == 0 {
		add(Finding{Kind: FindHistory, Detail: "the chain lists no generation"})
	}
	ign := NewIgnore(h.IgnorePatterns())
	scopes := []*scope{{records: h.Records()}}

	// Directory hashes to check, and the algorithms they need.
	var dirGen *Manifest
	var dirAlgos []hashing.Algo
	if opt.DirectoryHashes {
		for i := len(h.Generations) - 1; i >= 0 && dirGen == nil; i-- {
			if m := h.Generations[i].Manifest; m != nil && len(m.Root) > 0 {
				dirGen = m
				for _, d := range m.Root {
					dirAlgos = append(dirAlgos, d.Algo)
				}
			}
		}
		if dirGen == nil {
			res.Warnings = append(res.Warnings, "no generation has directory hashes: only files were checked")
		}
	}
	tree := Tree{Dirs: []string{"."}, Files: map[string]map[hashing.Algo]string{}}
	seen := map[string]bool{}
	buf := make([]byte, 1<<20)

	var walk func(dir string) error
	walk = func(dir string) error {
		ents, err := st.ReadDir(dir)
		if err != nil {
			add(Finding{Kind: FindUnread, Path: dir, Detail: "cannot list the folder: " + err.Error()})
			return nil
		}
		if dir != "." {
			for _, e := range ents {
				if e.Name() == HistoryDir && e.IsDir() {
					sub := &subStore{Store: st, prefix: dir + "/"}
					nh, err := LoadHistory(sub)
					if err != nil {
						add(Finding{Kind: FindHistory, Path: dir, Detail: "nested history: " + err.Error()})
						break
					}
					for _, p := range nh.Problems {
						add(Finding{Kind: FindHistory, Path: dir, Detail: "nested history: " + p})
					}
					res.Warnings = append(res.Warnings, prefixAll(dir+"/", nh.Warnings)...)
					scopes = append(scopes, &scope{prefix: dir + "/", records: nh.Records()})
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
			if ign.Match(rel, e.IsDir()) {
				continue
			}
			if e.IsDir() {
				tree.Dirs = append(tree.Dirs, rel)
				seen[rel] = true
				if err := walk(rel); err != nil {
					return err
				}
				continue
			}
			if !e.Type().IsRegular() {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not a regular file (%s): not followed", DisplayName(rel), e.Type()))
				continue
			}
			seen[rel] = true
			rec := lookup(scopes, rel)
			if rec == nil {
				add(Finding{Kind: FindNew, Path: rel, Detail: "not recorded in the history"})
				continue
			}
			if len(rec.Values) == 0 {
				add(Finding{Kind: FindFailed, Path: rel, Detail: fmt.Sprintf("recorded only with failed hashes (generation %d): the copy was bad when it was recorded", rec.FailedSeq)})
				continue
			}
			var algos []hashing.Algo
			for a := range rec.Values {
				algos = append(algos, a)
			}
			sort.Slice(algos, func(i, j int) bool { return algos[i] < algos[j] })
			check := algos
			if !opt.AllHashes {
				check = []hashing.Algo{hashing.Fastest(algos)}
			}
			if rec.Size >= 0 {
				if fi, err := e.Info(); err == nil && fi.Size() != rec.Size {
					add(Finding{Kind: FindChanged, Path: rel, Detail: fmt.Sprintf("size %d, recorded %d", fi.Size(), rec.Size)})
					continue
				}
			}
			sums, n, err := hashFile(ctx, st, rel, union(check, dirAlgos), buf)
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			if err != nil {
				add(Finding{Kind: FindUnread, Path: rel, Detail: err.Error()})
				continue
			}
			tree.Files[rel] = sums
			bad := ""
			for _, a := range check {
				if sums[a] != rec.Values[a] {
					bad = fmt.Sprintf("%s %s, recorded %s", a, sums[a], rec.Values[a])
					break
				}
			}
			if bad != "" {
				add(Finding{Kind: FindChanged, Path: rel, Detail: bad})
				continue
			}
			res.Files++
			res.Bytes += n
		}
		return nil
	}
	if err := walk("."); err != nil {
		return res, err
	}
	var missing []string
	for _, sc := range scopes {
		for p := range sc.records {
			full := sc.prefix + p
			if !seen[full] && !ign.Match(full, false) {
				missing = append(missing, full)
			}
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		add(Finding{Kind: FindMissing, Path: p, Detail: "recorded in the history, not in the folder"})
	}
	if dirGen != nil {
		got, err := DirHashes(tree, dirAlgos)
		if err != nil {
			return res, err
		}
		cmp := func(p string, want []DirHash) {
			for _, w := range want {
				for _, g := range got[p] {
					if g.Algo == w.Algo && (g.Content != w.Content || g.Structure != w.Structure) {
						what := "folder"
						if p == "." {
							what = "root"
						}
						add(Finding{Kind: FindDirectory, Path: p, Detail: fmt.Sprintf("%s %s hash: content %s structure %s, recorded content %s structure %s",
							what, w.Algo, g.Content, g.Structure, w.Content, w.Structure)})
					}
				}
			}
		}
		for _, d := range dirGen.Dirs {
			if seen[d.Path] {
				cmp(d.Path, d.Hashes)
			}
		}
		cmp(".", dirGen.Root)
	}
	return res, nil
}

func lookup(scopes []*scope, rel string) *Record {
	if r := scopes[0].records[rel]; r != nil {
		return r
	}
	// The nearest nested history wins.
	var best *Record
	bestLen := -1
	for _, sc := range scopes[1:] {
		if strings.HasPrefix(rel, sc.prefix) && len(sc.prefix) > bestLen {
			if r := sc.records[strings.TrimPrefix(rel, sc.prefix)]; r != nil {
				best, bestLen = r, len(sc.prefix)
			}
		}
	}
	return best
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
func (s *subStore) WriteFileAtomic(n string, d []byte, r bool) error {
	return s.Store.WriteFileAtomic(s.name(n), d, r)
}
