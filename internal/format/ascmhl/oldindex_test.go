package ascmhl

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// oldIndex is the index as it was before its folders were kept once
// (until 2026-12-03, each path whole in the arena): the oracle the index
// is checked against (index_test.go).
type oldIndex struct {
	recs  []oldIrec
	table []uint32 // open addressing: 0 empty, tombstone, else recs oldIndex + 1
	used  int      // slots not empty (entries and tombstones)
	seed  maphash.Seed
	mem   arena
	dirs  map[string]idir
}

// oldIrec is the record of one file.
type oldIrec struct {
	size                         int64 // -1: not recorded
	path, vals                   uint32
	pathLen                      uint16
	valsLen                      uint8 // vals packed: per value, algo byte, length byte, raw bytes
	flags                        uint8
	firstSeq, lastSeq, failedSeq int32
}

func newOldIndex() *oldIndex {
	return &oldIndex{table: make([]uint32, 1024), seed: maphash.MakeSeed(), dirs: map[string]idir{}}
}

func (x *oldIndex) pathOf(r *oldIrec) string { return x.mem.get(r.path, int(r.pathLen)) }
func (x *oldIndex) valsOf(r *oldIrec) string { return x.mem.get(r.vals, int(r.valsLen)) }

// lookup returns the slot of p in the table and p's record oldIndex, or -1
// with the slot where p would go.
func (x *oldIndex) lookup(p string) (slot int, rec int) {
	mask := len(x.table) - 1
	i := int(maphash.String(x.seed, p)) & mask
	free := -1
	for {
		v := x.table[i]
		switch {
		case v == 0:
			if free < 0 {
				free = i
			}
			return free, -1
		case v == tombstone:
			if free < 0 {
				free = i
			}
		case x.pathOf(&x.recs[v-1]) == p:
			return i, int(v - 1)
		}
		i = (i + 1) & mask
	}
}

func (x *oldIndex) grow() {
	old := x.table
	x.table = make([]uint32, 2*len(old))
	x.used = 0
	mask := len(x.table) - 1
	for _, v := range old {
		if v == 0 || v == tombstone {
			continue
		}
		i := int(maphash.String(x.seed, x.pathOf(&x.recs[v-1]))) & mask
		for x.table[i] != 0 {
			i = (i + 1) & mask
		}
		x.table[i] = v
		x.used++
	}
}

// file returns the record of the file p.
func (x *oldIndex) file(p string) (*oldIrec, bool) {
	_, i := x.lookup(p)
	if i < 0 {
		return nil, false
	}
	return &x.recs[i], true
}

// insert adds a record for p (not in the table) and returns it.
func (x *oldIndex) insert(p string, r oldIrec) (*oldIrec, error) {
	if len(p) > 0xffff {
		return nil, fmt.Errorf("path %q...: longer than 65535 bytes", p[:64])
	}
	if (x.used+1)*4 > len(x.table)*3 {
		x.grow()
	}
	ref, err := x.mem.add(p)
	if err != nil {
		return nil, err
	}
	r.path, r.pathLen = ref, uint16(len(p))
	slot, _ := x.lookup(p)
	if x.table[slot] == 0 {
		x.used++
	}
	x.recs = append(x.recs, r)
	x.table[slot] = uint32(len(x.recs))
	return &x.recs[len(x.recs)-1], nil
}

// remove takes p out of the table; its record stays, marked gone.
func (x *oldIndex) remove(p string) {
	slot, i := x.lookup(p)
	if i >= 0 {
		x.table[slot] = tombstone
		x.recs[i].flags |= flagGone
	}
}

// each calls f with every file in the table.
func (x *oldIndex) each(f func(p string, r *oldIrec)) {
	for i := range x.recs {
		if r := &x.recs[i]; r.flags&flagGone == 0 {
			f(x.pathOf(r), r)
		}
	}
}

// value returns r's value of algorithm a in its text form.
func (x *oldIndex) value(r *oldIrec, a hashing.Algo) (string, bool) {
	vals := x.valsOf(r)
	for i := 0; i+1 < len(vals); {
		n := int(vals[i+1])
		if hashing.Algo(vals[i]) == a {
			return textHash(a, vals[i+2:i+2+n]), true
		}
		i += 2 + n
	}
	return "", false
}

func (x *oldIndex) has(r *oldIrec, a hashing.Algo) bool {
	vals := x.valsOf(r)
	for i := 0; i+1 < len(vals); i += 2 + int(vals[i+1]) {
		if hashing.Algo(vals[i]) == a {
			return true
		}
	}
	return false
}

// algos returns the algorithms r has a value for, in order.
func (x *oldIndex) algos(r *oldIrec) []hashing.Algo {
	var out []hashing.Algo
	vals := x.valsOf(r)
	for i := 0; i+1 < len(vals); i += 2 + int(vals[i+1]) {
		out = append(out, hashing.Algo(vals[i]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// addValues appends packed values to r's (one write to the arena).
func (x *oldIndex) addValues(r *oldIrec, packed []byte) error {
	if len(packed) == 0 {
		return nil
	}
	vals := x.valsOf(r) + string(packed)
	if len(vals) > 0xff {
		return fmt.Errorf("too many hash values")
	}
	ref, err := x.mem.add(vals)
	if err != nil {
		return err
	}
	r.vals, r.valsLen = ref, uint8(len(vals))
	return nil
}

// addFile records f, read from generation seq. A path recorded twice in
// one generation is an error.
func (x *oldIndex) addFile(seq int, f *File) error {
	s := int32(seq)
	r, ok := x.file(f.Path)
	if ok && r.lastSeq == s {
		return fmt.Errorf("path %q is recorded twice", f.Path)
	}
	if d, dok := x.dirs[f.Path]; dok && d.lastSeq == s {
		return fmt.Errorf("path %q is recorded twice (as a folder and as a file)", f.Path)
	}
	if prev := f.PreviousPath; prev != "" && prev != f.Path {
		if q, qok := x.file(prev); qok {
			// Renamed: the record moves to the new path (it stays at the
			// old one too when this generation recorded a file there).
			moved := *q
			if q.lastSeq != s {
				x.remove(prev)
			}
			if !ok {
				moved.flags &^= flagSeen | flagGone
				var err error
				if r, err = x.insert(f.Path, moved); err != nil {
					return err
				}
				ok = true
			} else {
				var packed []byte
				for _, a := range x.algos(&moved) {
					if !x.has(r, a) {
						v, _ := x.value(&moved, a)
						var err error
						if packed, err = packValue(packed, a, v); err != nil {
							return err
						}
					}
				}
				if err := x.addValues(r, packed); err != nil {
					return err
				}
				r.firstSeq = min(r.firstSeq, moved.firstSeq)
			}
		}
	}
	if !ok {
		var err error
		if r, err = x.insert(f.Path, oldIrec{size: -1, firstSeq: s}); err != nil {
			return err
		}
	}
	if f.Size >= 0 {
		r.size = f.Size
	}
	failed, usable := false, false
	var packed []byte
	for _, h := range f.Hashes {
		if h.Action == Failed {
			failed = true
			continue
		}
		usable = true
		if !x.has(r, h.Algo) {
			var err error
			if packed, err = packValue(packed, h.Algo, h.Value); err != nil {
				return fmt.Errorf("path %q: %w", f.Path, err)
			}
		}
	}
	if err := x.addValues(r, packed); err != nil {
		return fmt.Errorf("path %q: %w", f.Path, err)
	}
	r.flags &^= flagLastFailed
	if failed && !usable {
		r.flags |= flagLastFailed
		r.failedSeq = s
	}
	r.lastSeq = s
	return nil
}

// addDir records a folder read from generation seq.
func (x *oldIndex) addDir(seq int, d *Dir) error {
	s := int32(seq)
	if r, ok := x.dirs[d.Path]; ok && r.lastSeq == s {
		return fmt.Errorf("folder %q is recorded twice", d.Path)
	}
	if r, ok := x.file(d.Path); ok && r.lastSeq == s {
		return fmt.Errorf("path %q is recorded twice (as a file and as a folder)", d.Path)
	}
	if prev := d.PreviousPath; prev != "" && prev != d.Path {
		if q, ok := x.dirs[prev]; ok && q.lastSeq != s {
			delete(x.dirs, prev)
		}
	}
	x.dirs[strings.Clone(d.Path)] = idir{lastSeq: s}
	return nil
}

// records returns the files as Records.
func (x *oldIndex) records() map[string]*Record {
	out := make(map[string]*Record, len(x.recs))
	x.each(func(p string, r *oldIrec) {
		rec := &Record{Path: p, Size: r.size, Values: map[hashing.Algo]string{}, FirstSeq: int(r.firstSeq),
			LastFailed: r.flags&flagLastFailed != 0, FailedSeq: int(r.failedSeq)}
		for _, a := range x.algos(r) {
			rec.Values[a], _ = x.value(r, a)
		}
		out[p] = rec
	})
	return out
}
