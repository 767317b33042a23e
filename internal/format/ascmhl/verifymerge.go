package ascmhl

import (
	"context"
	"fmt"
	"io"

	"github.com/dit-org/dit/internal/hashing"
)

// Verify's merge: a large history (its manifests above keepFilesUpTo)
// whose manifests each list their files in the manifest's order (paths
// in byte order, as dit and AppendFrom write them) with no previousPath,
// in a folder with no nested history, is checked without an index of
// its files: the folder is walked in the same order, and the manifests
// are read again as it goes, one stream each, merged by path. A path's
// records (one a generation at most) make its record in a small index of
// the last mergeWindow (16,384) paths (the pool may still be hashing them), let go
// after; a record the walk passes by is a missing file (held as its path
// only, as every finding is). What is held is the history's folders, the
// walk's open folders, the pool's window and the streams' batches: not a
// record a file. The first reading (loadSorted) checked the chain, the
// c4s and the order, and kept the folders; each stream takes the c4
// again, and a manifest changed in between is a finding.

// mergeWindow is how many paths' records one small index holds.
const mergeWindow = recPage // 16,384: one page of records, half a block of the arena

// verifyIndexed makes Verify use its index for every history (tests
// compare the two).
var verifyIndexed = false

// mergeable says whether h (read with loadSorted) can be merged: large,
// in order, whole, and no nested history in the folder.
func (v *verifier) mergeable(h *History) (bool, error) {
	if verifyIndexed || !h.idx.dirsOnly || h.idx.unsorted || len(h.Problems) > 0 {
		return false, nil
	}
	var nested func(dir string) (bool, error)
	nested = func(dir string) (bool, error) {
		ents, err := v.st.ReadDir(dir)
		if err != nil {
			return false, nil // the walk reports it
		}
		for _, e := range ents {
			if err := v.ctx.Err(); err != nil {
				return false, err
			}
			if !e.IsDir() {
				continue
			}
			if dir != "." && e.Name() == HistoryDir {
				return true, nil
			}
			rel := joinRel(dir, e.Name())
			if v.ign.Match(rel, true) {
				continue
			}
			if found, err := nested(rel); found || err != nil {
				return found, err
			}
		}
		return false, nil
	}
	found, err := nested(".")
	return !found && err == nil, err
}

// recStream is one manifest's file records, read on a goroutine of its
// own in batches.
type recStream struct {
	name string
	gen  int
	want string // the c4 the first reading took
	ch   chan []File
	buf  []File
	done bool
	err  error // set before ch is closed
	c4   string
}

func openStream(ctx context.Context, st Store, g Generation) *recStream {
	s := &recStream{name: HistoryDir + "/" + g.File, gen: g.Seq, want: g.C4, ch: make(chan []File, 2)}
	go func() {
		defer close(s.ch)
		f, err := st.Open(s.name)
		if err != nil {
			s.err = err
			return
		}
		defer f.Close()
		sum := hashing.C4.New()
		tee := io.TeeReader(f, sum)
		var batch []File
		send := func() error {
			select {
			case s.ch <- batch:
				batch = nil
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		_, err = parseManifest(tee, &warnList{}, func(f *File) error {
			if batch = append(batch, *f); len(batch) == 256 {
				return send()
			}
			return nil
		}, func(*Dir) error { return nil })
		if err == nil && len(batch) > 0 {
			err = send()
		}
		if _, cerr := io.Copy(io.Discard, tee); err == nil {
			err = cerr
		}
		s.err, s.c4 = err, hashing.EncodeC4(sum.Sum(nil))
	}()
	return s
}

// head is the stream's next record (nil: none left).
func (s *recStream) head() *File {
	for len(s.buf) == 0 && !s.done {
		b, ok := <-s.ch
		s.buf, s.done = b, !ok
	}
	if len(s.buf) == 0 {
		return nil
	}
	return &s.buf[0]
}

func (s *recStream) pop() { s.buf[0] = File{}; s.buf = s.buf[1:] }

// merger merges the streams by path.
type merger struct {
	hist    *History
	streams []*recStream
	win     *scope
	n       int
}

// next is the smallest path at the streams' heads ("", false: none).
func (m *merger) next() (string, bool) {
	p, ok := "", false
	for _, s := range m.streams {
		if f := s.head(); f != nil && (!ok || f.Path < p) {
			p, ok = f.Path, true
		}
	}
	return p, ok
}

// take makes the record of p from the streams' records of it (in the
// order of the generations), in the window's index.
func (m *merger) take(p string) (*scope, *irec, error) {
	if m.win == nil || m.n >= mergeWindow {
		m.win, m.n = &scope{hist: m.hist, idx: newIndex()}, 0
	}
	m.n++
	for _, s := range m.streams {
		if f := s.head(); f != nil && f.Path == p {
			if err := m.win.idx.addFile(s.gen, f); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.pop()
		}
	}
	r, _ := m.win.idx.file(p)
	return m.win, r, nil
}

// drop passes the records of p by.
func (m *merger) drop(p string) {
	for _, s := range m.streams {
		if f := s.head(); f != nil && f.Path == p {
			s.pop()
		}
	}
}

// mergeWalk checks the folder against the merged streams.
func (v *verifier) mergeWalk() error {
	ctx, cancel := context.WithCancel(v.ctx)
	defer cancel()
	h := v.scopes[0].hist
	m := &merger{hist: h}
	for _, g := range h.Generations {
		if g.Manifest != nil {
			m.streams = append(m.streams, openStream(ctx, v.st, g))
		}
	}
	if err := v.mergeDir(m, "."); err != nil {
		return err
	}
	for p, ok := m.next(); ok; p, ok = m.next() {
		v.missing = append(v.missing, p)
		m.drop(p)
	}
	for _, s := range m.streams {
		switch {
		case s.err != nil:
			v.add(Finding{Kind: FindHistory, Detail: fmt.Sprintf("%s could not be read again while the files were checked: %v", s.name, s.err)})
		case s.c4 != s.want:
			v.add(Finding{Kind: FindHistory, Detail: fmt.Sprintf("%s was changed while the files were checked: its c4 is now %s, was %s", s.name, s.c4, s.want)})
		}
	}
	return nil
}

// mergeDir is walk for the merge: dir's entries in the manifest's order,
// each file matched with the streams' records.
func (v *verifier) mergeDir(m *merger, dir string) error {
	ents, err := v.st.ReadDir(dir)
	if err != nil {
		v.add(Finding{Kind: FindUnread, Path: dir, Detail: "cannot list the folder: " + err.Error()})
		return nil
	}
	sortEntries(ents)
	for _, e := range ents {
		if err := v.ctx.Err(); err != nil {
			return err
		}
		rel := joinRel(dir, e.Name())
		if v.ign.Match(rel, e.IsDir()) {
			continue
		}
		if e.IsDir() {
			if err := v.dir(rel, func() error { return v.mergeDir(m, rel) }); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			v.res.Warnings = append(v.res.Warnings, fmt.Sprintf("%s is not a regular file (%s): not followed", DisplayName(rel), e.Type()))
			continue
		}
		p, ok := m.next()
		for ; ok && p < rel; p, ok = m.next() {
			v.missing = append(v.missing, p)
			m.drop(p)
		}
		var sc *scope
		var rec *irec
		if ok && p == rel {
			if sc, rec, err = m.take(rel); err != nil {
				return err
			}
		}
		if err := v.checkRec(e, rel, sc, rec); err != nil {
			return err
		}
	}
	return nil
}
