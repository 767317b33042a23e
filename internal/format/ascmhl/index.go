package ascmhl

import (
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"

	"github.com/dit-org/dit/internal/fsys"
)

// index is what a history knows of each path, generation after
// generation, in the little that verifying needs: for a file its latest
// size and, per algorithm, the earliest value not marked failed (as
// bytes); for a folder that it was recorded. Renames (previousPath) move a
// record to its new path.
//
// Verify builds it while the manifests stream in, and it is laid out for
// size: a file's folder is kept once for all its files (a folder number
// in the record), its name and values are packed together in 1 MiB
// blocks (no allocation, header or rounding per string), a file record
// is 32 bytes in pages of 16,384 (no slice grown by copying), and the
// table from path to record holds 4-byte slots. A file costs about 40
// bytes plus its name (not its folder) and values (see the package doc
// for a measured figure; footprint counts it).
type index struct {
	pages [][]irec // records, recPage a page
	n     int      // records
	table []uint32 // open addressing: 0 empty, tombstone, else record number + 1
	tags  []uint8  // per slot, 8 bits of its record's hash: a probe reads a record only when they match
	used  int      // slots not empty (entries and tombstones)
	seed  maphash.Seed
	mem   arena
	// frozen: loaded, read only; pages nil are on disk at pageAt
	// (indexspill.go). seen: the records Verify found on disk, a bit each.
	// finalFrom: the first record of the last generation (-1: not
	// reached), which no later record changes; finalPages: pages of them
	// written while the history loaded.
	frozen     bool
	finalFrom  int
	finalPages int
	pageAt     []int64
	seen       []uint64
	// folders: each file's folder by number (0 the scope's root, ""),
	// with its hash (of the folder's path and a "/").
	folderNum  map[string]uint32
	folderName []string
	folderHash []uint64
	dirs       map[string]idir

	// dirsOnly: files are not kept, only checked to come in the
	// manifest's order with no previousPath (unsorted says one did
	// not), for Verify's merge (verifymerge.go).
	dirsOnly  bool
	unsorted  bool
	orderSeq  int32
	orderLast string
}

const (
	tombstone = ^uint32(0)
	recShift  = 14
	recPage   = 1 << recShift
)

// irec is the record of one file: in the arena at ref its name (the last
// element of its path: nameLen bytes) and then its values (valsLen bytes:
// per value, algo byte, length byte, raw bytes).
type irec struct {
	size                         int64 // -1: not recorded
	ref, folder                  uint32
	nameLen                      uint16
	valsLen                      uint8
	flags                        uint8
	firstSeq, lastSeq, failedSeq int32
}

const (
	flagLastFailed = 1 << iota
	flagSeen       // the index before's "found on disk" (oldindex_test.go; now index.seen)
	flagGone       // renamed away: no longer in the table
)

// idir is the record of one folder.
type idir struct {
	lastSeq int32
	seen    bool
}

// newIndex is an empty index held in memory (Verify's merge: a window of
// records).
func newIndex() *index {
	x := &index{table: make([]uint32, 1024), tags: make([]uint8, 1024), seed: maphash.MakeSeed(), folderNum: map[string]uint32{}, dirs: map[string]idir{}, finalFrom: -1}
	x.mem.blockCap = testBlockCap
	x.folderOf("")
	return x
}

// newDiskIndex is an empty index whose bulk goes to a spill in
// fsys.SpillDir() (indexspill.go): a history's, until freeze.
func newDiskIndex() *index {
	x := newIndex()
	x.mem.sp = newSpill(fsys.SpillDir())
	return x
}

// rec returns record number i, to change while the index loads: in its
// page, or a copy when the page is on disk already (a record of the last
// generation, which the load never changes: see spillFinal).
func (x *index) rec(i int) *irec {
	if x.frozen {
		panic("ascmhl: a history's index changed after its load")
	}
	if page := x.pages[i>>recShift]; page != nil {
		return &page[i&(recPage-1)]
	}
	r := x.recAt(i)
	return &r
}

// footprint is what the index holds in memory in bytes (its blocks and
// pages not on disk, table, tags, seen bits and folders; not its folder
// records, dirs, nor the spill's cache: spill.held): what Verify's
// memory grows by with the files of a history.
func (x *index) footprint() int {
	n := x.mem.held() + 5*len(x.table) + 8*(len(x.seen)+len(x.pageAt))
	for _, p := range x.pages {
		n += cap(p) * recSize
	}
	for _, f := range x.folderName {
		n += len(f) + 16 + 8 + 4 + 16 // name, its header, hash, number, map entry (roughly)
	}
	return n
}

func (x *index) nameOf(r *irec) string { return x.mem.get(r.ref, int(r.nameLen)) }
func (x *index) valsOf(r *irec) string {
	return x.mem.get(r.ref, int(r.nameLen)+int(r.valsLen))[r.nameLen:]
}

// pathOf is r's path (a new string).
func (x *index) pathOf(r *irec) string {
	if r.folder == 0 {
		return strings.Clone(x.nameOf(r))
	}
	return x.folderName[r.folder] + "/" + x.nameOf(r)
}

// split is p's folder and name.
func split(p string) (folder, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// folderOf returns the number of folder f, numbering it when new.
func (x *index) folderOf(f string) uint32 {
	if n, ok := x.folderNum[f]; ok {
		return n
	}
	n := uint32(len(x.folderName))
	f = strings.Clone(f)
	x.folderNum[f] = n
	x.folderName = append(x.folderName, f)
	x.folderHash = append(x.folderHash, maphash.String(x.seed, f))
	return n
}

// hashOf is the table's hash of a file named name in folder number f:
// its low bits choose the slot, its top 8 are the slot's tag.
func (x *index) hashOf(f uint32, name string) uint64 {
	return maphash.String(x.seed, name) ^ x.folderHash[f]*0x9e3779b97f4a7c15
}

// lookup returns the slot of p in the table and p's record number, or
// -1 with the slot where p would go (-1 too when p's folder holds no
// record: no slot).
func (x *index) lookup(p string) (slot int, rec int) {
	folder, name := split(p)
	f, ok := x.folderNum[folder]
	if !ok {
		return -1, -1
	}
	return x.lookupIn(f, name)
}

func (x *index) lookupIn(f uint32, name string) (slot int, rec int) {
	mask := len(x.table) - 1
	h := x.hashOf(f, name)
	i, tag := int(h&uint64(mask)), uint8(h>>56)
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
		case x.tags[i] == tag:
			if r := x.recAt(int(v - 1)); r.folder == f && x.nameOf(&r) == name {
				return i, int(v - 1)
			}
		}
		i = (i + 1) & mask
	}
}

// grow doubles the table, its records placed again in their order (the
// table holds every record not gone), so that their names are read in
// the arena's order.
func (x *index) grow() {
	x.table = make([]uint32, 2*len(x.table))
	x.tags = make([]uint8, len(x.table))
	x.used = 0
	mask := len(x.table) - 1
	for n := range x.n {
		r := x.recAt(n)
		if r.flags&flagGone != 0 {
			continue
		}
		h := x.hashOf(r.folder, x.nameOf(&r))
		i := int(h & uint64(mask))
		for x.table[i] != 0 {
			i = (i + 1) & mask
		}
		x.table[i], x.tags[i] = uint32(n+1), uint8(h>>56)
		x.used++
	}
}

// find returns the record of the file p, a copy (any time).
func (x *index) find(p string) (irec, int, bool) {
	_, i := x.lookup(p)
	if i < 0 {
		return irec{}, -1, false
	}
	return x.recAt(i), i, true
}

// file returns the record of the file p, to change while the index
// loads.
func (x *index) file(p string) (*irec, bool) {
	_, i := x.lookup(p)
	if i < 0 {
		return nil, false
	}
	return x.rec(i), true
}

// insert adds a record for p (not in the table), with r's values and
// then packed, and returns it.
func (x *index) insert(p string, r irec, packed []byte) (*irec, error) {
	if len(p) > 0xffff {
		return nil, fmt.Errorf("path %q...: longer than 65535 bytes", p[:64])
	}
	if x.n == math.MaxUint32-1 {
		return nil, errTooLarge
	}
	if (x.used+1)*4 > len(x.table)*3 {
		x.grow()
	}
	folder, name := split(p)
	vals := x.valsOf(&r) + string(packed)
	if len(vals) > 0xff {
		return nil, fmt.Errorf("too many hash values")
	}
	ref, err := x.mem.add(name + vals)
	if err != nil {
		return nil, err
	}
	r.ref, r.nameLen, r.valsLen, r.folder = ref, uint16(len(name)), uint8(len(vals)), x.folderOf(folder)
	slot, _ := x.lookupIn(r.folder, name)
	if x.table[slot] == 0 {
		x.used++
	}
	if x.n>>recShift == len(x.pages) {
		x.spillFinal(len(x.pages) - 1)
		x.pages = append(x.pages, make([]irec, recPage))
	}
	*x.rec(x.n) = r
	x.n++
	x.table[slot], x.tags[slot] = uint32(x.n), uint8(x.hashOf(r.folder, name)>>56)
	return x.rec(x.n - 1), nil
}

// remove takes p out of the table; its record stays, marked gone.
func (x *index) remove(p string) {
	slot, i := x.lookup(p)
	if i >= 0 {
		x.table[slot] = tombstone
		x.rec(i).flags |= flagGone
	}
}

// each calls f with every file in the table and its record number (its
// path, a new string, is pathOf's: asked for only when needed).
func (x *index) each(f func(i int, r *irec)) {
	for i := range x.n {
		if r := x.recAt(i); r.flags&flagGone == 0 {
			f(i, &r)
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

// addValues appends packed values to r's (one write to the arena: its
// name again, then its values).
func (x *index) addValues(r *irec, packed []byte) error {
	if len(packed) == 0 {
		return nil
	}
	vals := x.valsOf(r) + string(packed)
	if len(vals) > 0xff {
		return fmt.Errorf("too many hash values")
	}
	ref, err := x.mem.add(x.nameOf(r) + vals)
	if err != nil {
		return err
	}
	r.ref, r.valsLen = ref, uint8(len(vals))
	return nil
}

// addFile records f, read from generation seq. A path recorded twice in
// one generation is an error.
func (x *index) addFile(seq int, f *File) error {
	s := int32(seq)
	if x.dirsOnly {
		if x.orderSeq == s && f.Path <= x.orderLast || f.PreviousPath != "" {
			x.unsorted = true
		}
		x.orderSeq, x.orderLast = s, f.Path
		return nil
	}
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
				moved.flags &^= flagGone
				var err error
				if r, err = x.insert(f.Path, moved, nil); err != nil {
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
	failed, usable := false, false
	var packed []byte
	for _, h := range f.Hashes {
		if h.Action == Failed {
			failed = true
			continue
		}
		usable = true
		if !ok || !x.has(r, h.Algo) {
			var err error
			if packed, err = packValue(packed, h.Algo, h.Value); err != nil {
				return fmt.Errorf("path %q: %w", f.Path, err)
			}
		}
	}
	// A new record is written with its values at once (the arena keeps
	// no first copy without them).
	if !ok {
		var err error
		if r, err = x.insert(f.Path, irec{size: -1, firstSeq: s}, packed); err != nil {
			return fmt.Errorf("path %q: %w", f.Path, err)
		}
	} else if err := x.addValues(r, packed); err != nil {
		return fmt.Errorf("path %q: %w", f.Path, err)
	}
	if f.Size >= 0 {
		r.size = f.Size
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
// record is the Record of r, at path p.
func (x *index) record(r *irec, p string) *Record {
	rec := &Record{Path: p, Size: r.size, Values: map[hashing.Algo]string{}, FirstSeq: int(r.firstSeq),
		LastFailed: r.flags&flagLastFailed != 0, FailedSeq: int(r.failedSeq)}
	for _, a := range x.algos(r) {
		rec.Values[a], _ = x.value(r, a)
	}
	return rec
}
