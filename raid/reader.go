package raid

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/zeebo/xxh3"
)

// ErrUnreadable is wrapped by read errors that no reconstruction could
// serve. The message names the file, the byte range and the blades.
var ErrUnreadable = errors.New("unreadable")

// StepReadUnreadable is the crash-test step of a read that found a stripe
// it cannot rebuild, once the health record says so.
const StepReadUnreadable = "raid: unreadable stripe recorded"

// errAbsent and errSlow wrap unit reads that failed without proving the
// unit bad: its blade is not there, or did not answer in time.
var (
	errAbsent = errors.New("not available")
	errSlow   = errors.New("no answer in time")
)

// mediaError says whether a failed unit read proves the unit bad (I/O
// error, short read, missing chunk, hash mismatch).
func mediaError(err error) bool {
	return err != nil && !errors.Is(err, errAbsent) && !errors.Is(err, errSlow)
}

// FileReader reads one logical file. Every unit is checked against its
// stored hash; a unit that cannot be read or does not match is rebuilt from
// the others and parity, and the rebuilt unit is checked too. A read either
// returns verified bytes or an error; never wrong bytes.
type FileReader struct {
	a       *Array
	m       *Manifest
	ly      Layout
	nocache bool

	mu    sync.Mutex
	files map[int]BladeFile // by position (k = parity)
	ferr  map[int]error

	off     int64
	stripe  int64
	sbuf    []byte // data of stripe `stripe`, verified
	slen    int64
	x64     *xxhash.Digest
	hashed  int64
	cacheS  int64
	cacheJ  int
	cacheB  []byte
	Repairs int // units served by reconstruction
	// bad are the units this reader found bad; Close records them in
	// the array's health record.
	bad []BadUnit
}

// OpenFile opens a logical file for reading. With nocache, each chunk's
// pages are flushed and dropped from the OS cache first, so the read-back
// comes from the blades' media.
func (a *Array) OpenFile(p string, nocache bool) (*FileReader, error) {
	m, ok := a.Lookup(p)
	if !ok {
		return nil, &os.PathError{Op: "open", Path: p, Err: os.ErrNotExist}
	}
	return a.openManifest(m, nocache), nil
}

func (a *Array) openManifest(m *Manifest, nocache bool) *FileReader {
	return &FileReader{a: a, m: m, ly: m.layout(), nocache: nocache, files: map[int]BladeFile{}, ferr: map[int]error{},
		stripe: -1, x64: xxhash.New(), cacheS: -1}
}

// Manifest returns the file's manifest.
func (r *FileReader) Manifest() *Manifest { return r.m }

// Stat describes the logical file.
func (r *FileReader) Stat() (os.FileInfo, error) { return r.m.FileInfo(), nil }

// roleOf is the blade role holding position pos of this file.
func (r *FileReader) roleOf(pos int) int {
	if pos == r.ly.K {
		return r.ly.K
	}
	return r.ly.Role(pos)
}

// available says whether position pos can be read from its blade.
func (r *FileReader) available(pos int) bool {
	role := r.roleOf(pos)
	b := r.a.blades[role]
	if b == nil || r.a.sb.Members[role].State == MemberRebuilding {
		return false
	}
	for _, w := range r.m.WrittenWith {
		if w == role {
			return !b.stale
		}
	}
	return false
}

func (r *FileReader) file(pos int) (BladeFile, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.files[pos]; ok {
		return f, nil
	}
	if err, ok := r.ferr[pos]; ok {
		return nil, err
	}
	b := r.a.blades[r.roleOf(pos)]
	f, err := b.fs.OpenFile(chunkName(r.m.FileID, pos, r.ly.K), os.O_RDONLY, 0)
	if err != nil {
		r.ferr[pos] = err
		return nil, err
	}
	if r.nocache {
		if d, ok := f.(cacheDropper); ok {
			d.DropCache()
		}
	}
	r.files[pos] = f
	return f, nil
}

// rawUnit reads unit (s, pos) from its blade and checks its hash, within
// the array's read deadline.
func (r *FileReader) rawUnit(s int64, pos int) ([]byte, error) {
	n := r.ly.UnitLen(s, 0)
	if pos < r.ly.K {
		n = r.ly.UnitLen(s, pos)
	}
	if n == 0 {
		return nil, nil
	}
	role := r.roleOf(pos)
	if !r.available(pos) {
		return nil, fmt.Errorf("blade role %d is %w", role, errAbsent)
	}
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		f, err := r.file(pos)
		if err != nil {
			ch <- res{nil, err}
			return
		}
		buf := r.a.getUnit(n)
		got, err := f.ReadAt(buf, s*r.ly.SU)
		if got == len(buf) {
			err = nil
		} else if err == nil || err == io.EOF {
			err = fmt.Errorf("short read: %d of %d bytes (chunk truncated?)", got, n)
		}
		ch <- res{buf, err}
	}()
	var out res
	timer := time.NewTimer(r.a.opts.ReadDeadline)
	defer timer.Stop()
	select {
	case out = <-ch:
	case <-timer.C:
		if r.a.sb.ParityBlades == 0 {
			out = <-ch // nothing to rebuild from: wait
		} else {
			r.a.blades[role].errors.Add(1)
			return nil, fmt.Errorf("blade %s did not answer within %s: %w", r.a.blades[role].fs.Root(), r.a.opts.ReadDeadline, errSlow)
		}
	}
	if out.err != nil {
		r.a.blades[role].errors.Add(1)
		return nil, out.err
	}
	if xxh3.Hash128(out.b).Bytes() != r.m.UnitHash(s, pos) {
		r.a.blades[role].errors.Add(1)
		return nil, errors.New("unit hash mismatch")
	}
	return out.b, nil
}

// unit returns verified unit (s, j), reconstructing it if needed.
func (r *FileReader) unit(s int64, j int) ([]byte, error) {
	b, err := r.rawUnit(s, j)
	if err == nil {
		return b, nil
	}
	first := err
	rb, rerr := r.reconstruct(s, j)
	lo := r.ly.UnitStart(s, j)
	hi := lo + r.ly.UnitLen(s, j)
	if mediaError(first) {
		// Bad on its blade. Rebuilt from parity, the file lacks
		// redundancy there: recorded at Close. Not rebuilt, the stripe
		// cannot be read: recorded at once, before the error is
		// returned. A second unit proven bad (or a rebuilt unit that
		// does not match) makes it an unrecoverable stripe; a blade
		// absent or slow leaves it a bad data unit, which the health
		// record counts as unreadable while that blade is absent.
		u := BadUnit{Stripe: s, Position: j, Role: r.roleOf(j), Kind: IssueDataUnit, From: lo, To: hi - 1}
		switch {
		case rerr == nil:
			r.mu.Lock()
			r.bad = append(r.bad, u)
			r.mu.Unlock()
		default:
			if r.a.sb.ParityBlades == 1 && mediaError(rerr) {
				u.Kind = IssueUnrecoverable
			}
			r.a.recordRead(r.m, []BadUnit{u})
			hit(StepReadUnreadable)
		}
	}
	if rerr == nil {
		r.Repairs++
		r.a.note("repaired-on-read", fmt.Sprintf("%s: stripe %d position %d (blade role %d) rebuilt from parity: %v", r.m.Path, s, j, r.roleOf(j), first))
		return rb, nil
	}
	return nil, fmt.Errorf("%s: bytes %d-%d %w: blade role %d (%s): %v; reconstruction: %v",
		r.m.Path, lo, hi-1, ErrUnreadable, r.roleOf(j), r.a.sb.Members[r.roleOf(j)].PathHint, first, rerr)
}

// reconstruct rebuilds unit (s, pos) as the XOR of the other units of the
// stripe (parity included), each checked first, and checks the result.
func (r *FileReader) reconstruct(s int64, pos int) ([]byte, error) {
	if r.a.sb.ParityBlades == 0 {
		return nil, errors.New("RAID 0 has no parity")
	}
	k := r.ly.K
	n := r.ly.UnitLen(s, 0)
	want := r.ly.UnitLen(s, 0)
	if pos < k {
		want = r.ly.UnitLen(s, pos)
	}
	out := make([]byte, n)
	others := make([][]byte, k+1)
	errs := make([]error, k+1)
	var wg sync.WaitGroup
	for i := 0; i <= k; i++ {
		if i == pos {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			others[i], errs[i] = r.rawUnit(s, i)
		}(i)
	}
	wg.Wait()
	for i := 0; i <= k; i++ {
		if i == pos {
			continue
		}
		if errs[i] != nil {
			return nil, fmt.Errorf("second bad unit in stripe %d: position %d (blade role %d): %w", s, i, r.roleOf(i), errs[i])
		}
		u := others[i]
		subtle.XORBytes(out[:len(u)], out[:len(u)], u)
		r.a.putUnit(u)
	}
	out = out[:want]
	if xxh3.Hash128(out).Bytes() != r.m.UnitHash(s, pos) {
		return nil, fmt.Errorf("rebuilt unit of stripe %d does not match its hash", s)
	}
	return out, nil
}

// loadStripe reads the data units of stripe s in parallel.
func (r *FileReader) loadStripe(s int64) error {
	k := r.ly.K
	if r.sbuf == nil {
		r.sbuf = make([]byte, int64(k)*r.ly.SU)
	}
	units := make([][]byte, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	for j := 0; j < k; j++ {
		if r.ly.UnitLen(s, j) == 0 {
			continue
		}
		wg.Add(1)
		go func(j int) {
			defer wg.Done()
			units[j], errs[j] = r.unit(s, j)
		}(j)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.stripe = -1
		return err
	}
	r.slen = 0
	for j := 0; j < k; j++ {
		copy(r.sbuf[int64(j)*r.ly.SU:], units[j])
		r.slen += int64(len(units[j]))
		r.a.putUnit(units[j])
	}
	r.stripe = s
	return nil
}

// Read reads the file sequentially, a stripe at a time (the data blades in
// parallel). At the end the whole-file xxh64 is checked against the
// manifest.
func (r *FileReader) Read(p []byte) (int, error) {
	if r.off >= r.m.Size {
		if r.hashed == r.m.Size {
			r.hashed = -1
			if got := fmt.Sprintf("%016x", r.x64.Sum64()); got != r.m.Hashes["xxh64"] {
				return 0, fmt.Errorf("%s: whole-file xxh64 %s differs from the manifest's %s", r.m.Path, got, r.m.Hashes["xxh64"])
			}
		}
		return 0, io.EOF
	}
	s := r.off / r.ly.Width()
	if s != r.stripe {
		if err := r.loadStripe(s); err != nil {
			return 0, err
		}
	}
	in := r.off - s*r.ly.Width()
	n := copy(p, r.sbuf[in:r.slen])
	if r.hashed == r.off {
		r.x64.Write(p[:n])
		r.hashed += int64(n)
	}
	r.off += int64(n)
	return n, nil
}

// ReadAt reads len(p) bytes at off (random access, for FUSE); whole units
// are read and checked, the last one cached.
func (r *FileReader) ReadAt(p []byte, off int64) (int, error) {
	total := 0
	for len(p) > 0 {
		if off >= r.m.Size {
			return total, io.EOF
		}
		s, j, b := r.ly.Locate(off)
		var u []byte
		if r.cacheS == s && r.cacheJ == j {
			u = r.cacheB
		} else {
			var err error
			if u, err = r.unit(s, j); err != nil {
				return total, err
			}
			r.cacheS, r.cacheJ, r.cacheB = s, j, u
		}
		n := copy(p, u[b:])
		p = p[n:]
		off += int64(n)
		total += n
	}
	return total, nil
}

// Seek is for io.ReadSeeker users; only sequential reads verify the
// whole-file hash.
func (r *FileReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += r.off
	case io.SeekEnd:
		off += r.m.Size
	}
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off != r.off {
		r.hashed = -1
	}
	r.off = off
	return off, nil
}

// Close releases the chunk files (and evicts their pages with nocache),
// and records the bad units the reads found in the health record.
func (r *FileReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		r.a.recordRead(r.m, r.bad)
		r.bad = nil
	}
	for pos, f := range r.files {
		if r.nocache {
			if d, ok := f.(cacheDropper); ok {
				d.DropCache()
			}
		}
		f.Close()
		delete(r.files, pos)
	}
	return nil
}
