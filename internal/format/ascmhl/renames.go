package ascmhl

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// detectRenames pairs the new files of sc with recorded files that are
// gone: the same size and the same value in every format both have (a
// format only the old record has is computed).
func (c *creator) detectRenames(ctx context.Context, sc *cscope) error {
	bySize := map[int64][]string{}
	var anySize []string
	for r := range sc.recs.All() {
		p := r.Path
		if sc.seen[p] || len(r.Values) == 0 || c.ignored(sc.prefix+p, false, sc) {
			continue
		}
		if r.Size < 0 {
			anySize = append(anySize, p)
		} else {
			bySize[r.Size] = append(bySize[r.Size], p)
		}
	}
	taken := map[string]bool{}
	for _, f := range sc.files {
		if f.rec != nil || f.sums == nil || f.bad {
			continue
		}
		cands := append(append([]string(nil), bySize[f.size]...), anySize...)
		if len(cands) == 0 {
			continue
		}
		// The same name first (a folder renamed), then in path order.
		base := path.Base(f.srel)
		sort.Slice(cands, func(i, j int) bool {
			bi, bj := path.Base(cands[i]) == base, path.Base(cands[j]) == base
			if bi != bj {
				return bi
			}
			return cands[i] < cands[j]
		})
		for _, p := range cands {
			if taken[p] {
				continue
			}
			rec := sc.recs.Get(p)
			var recorded []hashing.Algo
			common := false
			for a := range rec.Values {
				recorded = append(recorded, a)
				_, ok := f.sums[a]
				common = common || ok
			}
			if !common {
				if err := c.hashAlgos(ctx, f, []hashing.Algo{hashing.Fastest(recorded)}); err != nil {
					return err
				}
				if f.bad {
					break
				}
			}
			if _, _, differs := compare(f, rec); differs {
				continue
			}
			taken[p] = true
			f.rec, f.prev = rec, p
			sc.renamed = append(sc.renamed, Renamed{From: p, To: f.srel})
			c.res.Renamed = append(c.res.Renamed, Renamed{From: sc.prefix + p, To: f.rel})
			break
		}
	}
	for p := range sc.recs.Paths() {
		if !sc.seen[p] && !taken[p] && !c.ignored(sc.prefix+p, false, sc) {
			sc.missing = append(sc.missing, p)
		}
	}
	sort.Strings(sc.missing)
	return nil
}

// detectDirRenames pairs the new folders of sc with recorded folders that
// are gone: the one folder every renamed file of the old folder moved to
// (with the same path inside it), or else the one new folder with the same
// content hash.
func (c *creator) detectDirRenames(sc *cscope, dh map[string][]DirHash) {
	var gone []string
	for p := range sc.dirRecs {
		if !sc.seen[p] && !c.ignored(sc.prefix+p, true, sc) {
			gone = append(gone, p)
		}
	}
	if len(gone) == 0 {
		return
	}
	sort.Strings(gone)
	fresh := map[string]*cdir{}
	for _, d := range sc.dirs {
		if _, rec := sc.dirRecs[d.srel]; !rec && d.srel != "" {
			fresh[d.srel] = d
		}
	}
	var left []string
	for _, old := range gone {
		to, ok, n := "", true, 0
		for _, r := range sc.renamed {
			if !strings.HasPrefix(r.From, old+"/") {
				continue
			}
			suffix := r.From[len(old):]
			if !strings.HasSuffix(r.To, suffix) {
				ok = false
				break
			}
			nd := strings.TrimSuffix(r.To, suffix)
			if to != "" && nd != to {
				ok = false
				break
			}
			to, n = nd, n+1
		}
		if d := fresh[to]; ok && n > 0 && d != nil {
			c.renameDir(sc, d, old)
			delete(fresh, to)
			continue
		}
		left = append(left, old)
	}
	if dh != nil {
		var still []string
		for _, old := range left {
			var match *cdir
			count := 0
			for p, d := range fresh {
				if sameContent(sc.dirRecs[old], dh[sc.prefix+p]) {
					match, count = d, count+1
				}
			}
			if count == 1 {
				c.renameDir(sc, match, old)
				delete(fresh, match.srel)
				continue
			}
			still = append(still, old)
		}
		left = still
	}
	for _, old := range left {
		sc.missing = append(sc.missing, old+"/")
	}
	sort.Strings(sc.missing)
}

// renameDir records that folder d of sc was old in the history.
func (c *creator) renameDir(sc *cscope, d *cdir, old string) {
	d.prev = old
	sc.renamed = append(sc.renamed, Renamed{From: old, To: d.srel, Dir: true})
	c.res.Renamed = append(c.res.Renamed, Renamed{From: sc.prefix + old, To: d.rel, Dir: true})
}

// sameContent says a and b have the same content hash in every format
// both have, and have one at least.
func sameContent(a, b []DirHash) bool {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x.Algo == y.Algo {
				if x.Content != y.Content {
					return false
				}
				n++
			}
		}
	}
	return n > 0
}
