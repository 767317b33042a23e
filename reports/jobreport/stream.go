package jobreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// This file is how a report built from the catalog reads its files: not
// at Build, but as each writer writes them (CSV, JSON, the HTML's first
// maxHTMLFiles of each card), row by row from the catalog
// (catalog.EachFile), so that memory does not grow with the job's files.
// The per-destination counts are read from the catalog's totals when
// they tell everything, else counted in a pass over the files.

// fileSource is where a report built from the catalog reads its files.
type fileSource struct {
	cat     *catalog.Catalog
	algos   []hashing.Algo
	dests   []*catalog.Dest
	destIdx map[int64]int
	cards   []cardFiles // by index in Report.Cards
}

// cardFiles are a card's rows in the catalog: its own (id) with the
// copies of its second run's (also) of the same paths.
type cardFiles struct {
	id   int64
	also []int64
	rows int // its file rows
}

// eachFile calls fn with each file of card i, in path order: read from
// the catalog as it goes (a report from Build), else from the card's
// FileList (a report made by hand). fn's *File is not kept by the caller
// after fn returns. An error from the catalog or from fn is returned.
func (r *Report) eachFile(i int, fn func(*File) error) error {
	if r.src == nil {
		for k := range r.Cards[i].FileList {
			if err := fn(&r.Cards[i].FileList[k]); err != nil {
				return err
			}
		}
		return nil
	}
	s := r.src
	cf := s.cards[i]
	var row File
	err := s.cat.EachFile(cf.id, cf.also, func(f *catalog.File) error {
		row = s.file(f)
		return fn(&row)
	})
	if err != nil {
		return fmt.Errorf("reading the files of card %s from the catalog: %w", r.Cards[i].Label, err)
	}
	return nil
}

// fileRows is the number of file rows of card i (what eachFile gives).
func (r *Report) fileRows(i int) int {
	if r.src == nil {
		return len(r.Cards[i].FileList)
	}
	return r.src.cards[i].rows
}

// file is catalog file f as a report's row: its hashes (the job's) and
// its copies on the job's destinations.
func (s *fileSource) file(f *catalog.File) File {
	row := File{Path: f.Rel, Size: f.Size, Mtime: f.Mtime.UTC(), State: f.State, Error: f.Error, Hashes: map[string]string{},
		Copies: make([]Copy, 0, len(f.Copies))}
	for _, a := range s.algos {
		if v := f.Sums.Get(a); v != "" {
			row.Hashes[a.String()] = v
		}
	}
	for _, cp := range f.Copies {
		if i, ok := s.destIdx[cp.DestID]; ok {
			row.Copies = append(row.Copies, Copy{Dest: s.dests[i].Path, State: cp.State, VerifiedAt: cp.VerifiedAt,
				VerifiedBy: cp.VerifyAlgos, Error: cp.Error})
		}
	}
	return row
}

// source makes the report's file source (before its cards are added).
func (b *builder) source() {
	algos, _ := hashing.ParseList(b.j.Hashes)
	b.r.src = &fileSource{cat: b.cat, algos: algos, dests: b.dests, destIdx: b.destIdx}
}

// count counts card c's copies on each destination (and the job's, in
// the report's destinations) and adds card k (its second run h, nil
// without one) to the file source. From the card's totals when they
// tell every count and the bytes on each destination (no second run;
// on each destination none or every file has a copy there); else in a
// pass over its files.
func (b *builder) count(c *Card, k, h *catalog.Card) error {
	cf := cardFiles{id: k.ID}
	if h != nil {
		cf.also = []int64{h.ID}
	}
	b.r.src.cards = append(b.r.src.cards, cf)
	i := len(b.r.src.cards) - 1
	if h == nil && !b.cloud() && b.fromTotals(c, b.tots[k.ID], &b.r.src.cards[i]) {
		return nil
	}
	n := 0
	err := b.cat.EachFile(cf.id, cf.also, func(f *catalog.File) error {
		n++
		for _, cp := range f.Copies {
			if d, ok := b.destIdx[cp.DestID]; ok {
				countCopy(&c.Destinations[d], &b.r.Destinations[d], cp, f.Size)
			}
		}
		return nil
	})
	b.r.src.cards[i].rows = n
	return err
}

// fromTotals fills in the counts of card c from its totals t (nil: no
// file) and says whether they told everything (else nothing is changed).
func (b *builder) fromTotals(c *Card, t *catalog.CardTotals, cf *cardFiles) bool {
	if t == nil {
		return true // no file, no copy
	}
	n := t.NFiles()
	var size int64
	for _, v := range t.Bytes {
		size += v
	}
	for _, d := range b.dests {
		cp := t.Copies[d.ID]
		if there := cp[offload.StateVerified] + cp[offload.StateCopied] + cp[offload.StatePresent]; there != 0 && there != n {
			return false // which files' bytes are there: only the files tell
		}
		if v := cp[offload.StateVerified]; v != 0 && v != n {
			return false // which files' bytes were read back: the same
		}
	}
	for i, d := range b.dests {
		cp := t.Copies[d.ID]
		cd, dt := &c.Destinations[i], &b.r.Destinations[i]
		verified, copied, skipped := cp[offload.StateVerified], cp[offload.StateCopied]+cp[offload.StatePresent], cp[offload.StateSkipped]
		failed := t.NCopies(d.ID) - verified - copied - skipped
		cd.Verified, cd.Copied, cd.Skipped, cd.Failed = verified, copied, skipped, failed
		if verified == n {
			// No cloud destination here: a verified copy was read back.
			cd.VerifiedBy = VerifiedBy{ReadBack: n, ReadBackBytes: size}
			dt.VerifiedBy.sum(cd.VerifiedBy)
		}
		dt.Verified, dt.Copied, dt.Skipped, dt.Failed = dt.Verified+verified, dt.Copied+copied, dt.Skipped+skipped, dt.Failed+failed
		if verified+copied == n {
			dt.Bytes += size
		}
	}
	cf.rows = n
	return true
}

// cloud: the job has a cloud destination (whose copies' verification
// only the files tell).
func (b *builder) cloud() bool {
	for _, d := range b.dests {
		if cloud.IsDest(d.Path) {
			return true
		}
	}
	return false
}

// countCopy counts copy cp of a file of size bytes on its card's
// destination cd and the job's dt.
func countCopy(cd *CardDest, dt *DestTotals, cp catalog.Copy, size int64) {
	switch cp.State {
	case offload.StateVerified:
		cd.Verified++
		dt.Verified++
		dt.Bytes += size
		cd.VerifiedBy.add(cp.VerifyAlgos, size)
		dt.VerifiedBy.add(cp.VerifyAlgos, size)
	case offload.StateCopied, offload.StatePresent:
		cd.Copied++
		dt.Copied++
		dt.Bytes += size
	case offload.StateSkipped:
		cd.Skipped++
		dt.Skipped++
	default:
		cd.Failed++
		dt.Failed++
	}
}

// jsonFilesKey is each card's file list in the JSON of the report
// without its files: a key can only be a key there (a quote in a string
// is escaped), and only a card has this one.
const jsonFilesKey = `"file_list": null`

// WriteJSON writes the report as indented JSON (see the package doc):
// what encoding/json writes of the whole report, each card's files
// written one by one as they are read.
func (r *Report) WriteJSON(w io.Writer) error {
	head := *r
	head.Cards = make([]Card, len(r.Cards))
	for i, c := range r.Cards {
		c.FileList = nil
		head.Cards[i] = c
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&head); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	rest := buf.Bytes()
	for i := range r.Cards {
		k := bytes.Index(rest, []byte(jsonFilesKey))
		if k < 0 {
			return fmt.Errorf("the JSON of card %s has no file list", r.Cards[i].Label)
		}
		bw.Write(rest[:k+len(jsonFilesKey)-len("null")])
		rest = rest[k+len(jsonFilesKey):]
		if err := r.jsonFiles(bw, i); err != nil {
			return err // the file is not complete: no closing bracket
		}
	}
	bw.Write(rest)
	return bw.Flush()
}

// jsonFiles writes card i's file list as the encoder indents it in the
// whole report: each file at the depth of a card's field's items.
func (r *Report) jsonFiles(w *bufio.Writer, i int) error {
	const indent = "        "
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetIndent(indent, "  ")
	enc.SetEscapeHTML(false)
	n := 0
	err := r.eachFile(i, func(f *File) error {
		item.Reset()
		if err := enc.Encode(f); err != nil {
			return err
		}
		if n == 0 {
			w.WriteString("[\n" + indent)
		} else {
			w.WriteString(",\n" + indent)
		}
		n++
		_, err := w.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		return err
	})
	switch {
	case err != nil:
		return err
	case n > 0:
		w.WriteString("\n      ]")
	case r.src == nil && r.Cards[i].FileList != nil:
		w.WriteString("[]") // as the encoder writes an empty list
	default:
		w.WriteString("null") // and a nil one
	}
	return nil
}

// errEnough stops a walk over the files that has read what it needs.
var errEnough = errors.New("enough files")

// firstFiles are the first n files of card i (the HTML's table).
func (r *Report) firstFiles(i, n int) ([]File, error) {
	var out []File
	if n <= 0 {
		return nil, nil
	}
	err := r.eachFile(i, func(f *File) error {
		out = append(out, *f)
		if len(out) == n {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return out, err
}
