package ascmhl

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
	"unsafe"

	"github.com/dit-org/dit/internal/hashing"
)

// index is what a history knows of each path, generation after
// generation, in the little that verifying needs: for a file its latest
// size and, per algorithm, the earliest value not marked failed (as
// bytes); for a folder that it was recorded. Renames (previousPath) move a
// record to its new path.
//
// Verify builds it while the manifests stream in, and it is laid out for
// size: paths and values are packed in 1 MiB blocks (no allocation,
// header or rounding per string), a file record is 32 bytes, and the
// table from path to record holds 4-byte slots. A file costs about 45
// bytes plus its path and values (see the package doc for a measured
// figure).
type index struct {
	recs  []irec
	table []uint32 // open addressing: 0 empty, tombstone, else recs index + 1
	used  int      // slots not empty (entries and tombstones)
	seed  maphash.Seed
	mem   arena
	dirs  map[string]idir
}

const tombstone = ^uint32(0)

// irec is the record of one file.
type irec struct {
	size                         int64 // -1: not recorded
	path, vals                   uint32
	pathLen                      uint16
	valsLen                      uint8 // vals packed: per value, algo byte, length byte, raw bytes
	flags                        uint8
	firstSeq, lastSeq, failedSeq int32
}

const (
	flagLastFailed = 1 << iota
	flagSeen       // found on disk (Verify)
	flagGone       // renamed away: no longer in the table
)

// idir is the record of one folder.
type idir struct {
	lastSeq int32
	seen    bool
}

func newIndex() *index {
	return &index{table: make([]uint32, 1024), seed: maphash.MakeSeed(), dirs: map[string]idir{}}
}

// arena packs small byte strings into 1 MiB blocks, addressed by a 32-bit
// reference (block number, offset): up to 4 GiB in all.
type arena struct {
	blocks [][]byte
}

const (
	arenaShift = 20
	arenaBlock = 1 << arenaShift
)

var errTooLarge = errors.New("the history is too large for this reader (more than 4 GiB of paths and hashes)")

func (a *arena) add(s string) (uint32, error) {
	if len(s) > arenaBlock {
		return 0, errTooLarge
	}
	n := len(a.blocks)
	if n == 0 || cap(a.blocks[n-1])-len(a.blocks[n-1]) < len(s) {
		if n == 1<<(32-arenaShift) {
			return 0, errTooLarge
		}
		a.blocks = append(a.blocks, make([]byte, 0, arenaBlock))
		n++
	}
	b := &a.blocks[n-1]
	off := len(*b)
	*b = append(*b, s...)
	return uint32(n-1)<<arenaShift | uint32(off), nil
}

// get returns the string at ref; it shares the arena's memory (never
// written over).
func (a *arena) get(ref uint32, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&a.blocks[ref>>arenaShift][ref&(arenaBlock-1)], n)
}

func (x *index) pathOf(r *irec) string { return x.mem.get(r.path, int(r.pathLen)) }
func (x *index) valsOf(r *irec) string { return x.mem.get(r.vals, int(r.valsLen)) }

// lookup returns the slot of p in the table and p's record index, or -1
// with the slot where p would go.
func (x *index) lookup(p string) (slot int, rec int) {
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

func (x *index) grow() {
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
func (x *index) file(p string) (*irec, bool) {
	_, i := x.lookup(p)
	if i < 0 {
		return nil, false
	}
	return &x.recs[i], true
}

// insert adds a record for p (not in the table) and returns it.
func (x *index) insert(p string, r irec) (*irec, error) {
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
func (x *index) remove(p string) {
	slot, i := x.lookup(p)
	if i >= 0 {
		x.table[slot] = tombstone
		x.recs[i].flags |= flagGone
	}
}

// each calls f with every file in the table.
func (x *index) each(f func(p string, r *irec)) {
	for i := range x.recs {
		if r := &x.recs[i]; r.flags&flagGone == 0 {
			f(x.pathOf(r), r)
		}
	}
}

// rawHash returns the bytes of the text form v of a hash of algorithm a
// (checked by CheckValue when parsed).
func rawHash(a hashing.Algo, v string) ([]byte, bool) {
	if a == hashing.C4 {
		b, err := hashing.DecodeC4(v)
		return b, err == nil
	}
	b, err := hex.DecodeString(v)
	return b, err == nil
}

func textHash(a hashing.Algo, b string) string {
	if a == hashing.C4 {
		return hashing.EncodeC4([]byte(b))
	}
	return hex.EncodeToString([]byte(b))
}

// value returns r's value of algorithm a in its text form.
func (x *index) value(r *irec, a hashing.Algo) (string, bool) {
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

func (x *index) has(r *irec, a hashing.Algo) bool {
	vals := x.valsOf(r)
	for i := 0; i+1 < len(vals); i += 2 + int(vals[i+1]) {
		if hashing.Algo(vals[i]) == a {
			return true
		}
	}
	return false
}

// algos returns the algorithms r has a value for, in order.
func (x *index) algos(r *irec) []hashing.Algo {
	var out []hashing.Algo
	vals := x.valsOf(r)
	for i := 0; i+1 < len(vals); i += 2 + int(vals[i+1]) {
		out = append(out, hashing.Algo(vals[i]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// packValue appends the value v (text form) of algorithm a to buf, packed.
func packValue(buf []byte, a hashing.Algo, v string) ([]byte, error) {
	b, ok := rawHash(a, v)
	if !ok {
		return buf, fmt.Errorf("invalid %s value %q", a, v)
	}
	buf = append(buf, byte(a), byte(len(b)))
	return append(buf, b...), nil
}

// addValues appends packed values to r's (one write to the arena).
func (x *index) addValues(r *irec, packed []byte) error {
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
func (x *index) addFile(seq int, f *File) error {
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
		if r, err = x.insert(f.Path, irec{size: -1, firstSeq: s}); err != nil {
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
func (x *index) addDir(seq int, d *Dir) error {
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
func (x *index) records() map[string]*Record {
	out := make(map[string]*Record, len(x.recs))
	x.each(func(p string, r *irec) {
		rec := &Record{Path: p, Size: r.size, Values: map[hashing.Algo]string{}, FirstSeq: int(r.firstSeq),
			LastFailed: r.flags&flagLastFailed != 0, FailedSeq: int(r.failedSeq)}
		for _, a := range x.algos(r) {
			rec.Values[a], _ = x.value(r, a)
		}
		out[p] = rec
	})
	return out
}
