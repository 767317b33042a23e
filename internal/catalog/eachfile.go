package catalog

import (
	"database/sql"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// EachFile calls fn with each file of card cardID, sorted by path, with
// its copies (by destination order), reading the rows as it goes: memory
// does not grow with the card's files (what [Catalog.Files] gives whole).
// The copies of the cards in also (a cascade's second run) of the same
// paths are added to each file's; their other rows are left out. fn's
// *File is reused for the next file; an error from fn stops the walk and
// is returned.
func (c *Catalog) EachFile(cardID int64, also []int64, fn func(*File) error) error {
	rows, err := c.Query(`SELECT rel_path,size,mtime_ns,state,md5,sha1,xxh64,xxh3,xxh128,c4,blake3,error,copy_started,copy_finished
		FROM files WHERE card_id=? ORDER BY rel_path`, cardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	seq, err := c.destSeqs(cardID)
	if err != nil {
		return err
	}
	var cps []*copyCursor
	for _, id := range append([]int64{cardID}, also...) {
		cc, err := c.copyCursor(id, seq)
		if err != nil {
			return err
		}
		defer cc.rows.Close()
		cps = append(cps, cc)
	}
	f := &File{CardID: cardID}
	for rows.Next() {
		*f = File{CardID: cardID, Copies: f.Copies[:0]}
		if err := scanFileRow(rows, f); err != nil {
			return c.wrap(err)
		}
		for _, cc := range cps {
			if f.Copies, err = cc.take(f.Rel, f.Copies); err != nil {
				return c.wrap(err)
			}
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return c.wrap(rows.Err())
}

// EachCopyStart calls fn with the start of the copy and the size of
// each of card cardID's files whose copy started at or after since, in
// the order the copies started. The database sorts them (SQLite spills
// a large sort to a temporary file): nothing a file is held here, so a
// card of a million frames is walked in the memory of one.
func (c *Catalog) EachCopyStart(cardID int64, since time.Time, fn func(start time.Time, size int64) error) error {
	rows, err := c.Query(`SELECT copy_started,size FROM files WHERE card_id=? AND copy_started IS NOT NULL AND copy_started<>''
		ORDER BY copy_started`, cardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var started sql.NullString
		var size int64
		if err := rows.Scan(&started, &size); err != nil {
			return c.wrap(err)
		}
		t := ParseTime(started)
		if t.IsZero() || t.Before(since) {
			continue
		}
		if err := fn(t, size); err != nil {
			return err
		}
	}
	return c.wrap(rows.Err())
}

// destSeqs are the seq of each destination of card cardID's job, by id.
func (c *Catalog) destSeqs(cardID int64) (map[int64]int, error) {
	rows, err := c.Query(`SELECT d.id, d.seq FROM destinations d JOIN cards k ON k.job_id=d.job_id WHERE k.id=?`, cardID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var seq int
		if err := rows.Scan(&id, &seq); err != nil {
			return nil, c.wrap(err)
		}
		out[id] = seq
	}
	return out, c.wrap(rows.Err())
}

// copyCursor walks a card's copies in path order, each path's by
// destination order (seq).
type copyCursor struct {
	rows *sql.Rows
	seq  map[int64]int
	ok   bool // a row is read ahead into rel, cp
	done bool
	rel  string
	cp   Copy
}

// copyCursor reads the card's copies in the order of their primary key
// (path, then destination id), without a join or a sort: take puts each
// path's few copies in destination order.
func (c *Catalog) copyCursor(cardID int64, seq map[int64]int) (*copyCursor, error) {
	rows, err := c.Query(`SELECT rel_path,dest_id,path,state,written,verify_algos,verified_at,error,identity
		FROM copies WHERE card_id=? ORDER BY rel_path, dest_id`, cardID)
	if err != nil {
		return nil, err
	}
	return &copyCursor{rows: rows, seq: seq}, nil
}

// next reads the next copy ahead.
func (cc *copyCursor) next() error {
	if cc.done {
		return nil
	}
	if !cc.rows.Next() {
		cc.done, cc.ok = true, false
		return cc.rows.Err()
	}
	var vt sql.NullString
	cc.cp = Copy{}
	if err := cc.rows.Scan(&cc.rel, &cc.cp.DestID, &cc.cp.Path, &cc.cp.State, &cc.cp.Written, &cc.cp.VerifyAlgos, &vt, &cc.cp.Error, &cc.cp.Identity); err != nil {
		return err
	}
	cc.cp.VerifiedAt, cc.ok = ParseTime(vt), true
	return nil
}

// take appends the copies of rel to out, in destination order, skipping
// those of paths before it (copies of no file of the card).
func (cc *copyCursor) take(rel string, out []Copy) ([]Copy, error) {
	from := len(out)
	out, err := cc.collect(rel, out)
	// Insertion sort by seq: a path has a copy per destination.
	for i := from + 1; i < len(out); i++ {
		for j := i; j > from && cc.seq[out[j].DestID] < cc.seq[out[j-1].DestID]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, err
}

// collect appends the copies of rel to out as they come.
func (cc *copyCursor) collect(rel string, out []Copy) ([]Copy, error) {
	for {
		if !cc.ok {
			if err := cc.next(); err != nil || cc.done {
				return out, err
			}
		}
		switch {
		case cc.rel < rel:
			cc.ok = false
		case cc.rel == rel:
			out = append(out, cc.cp)
			cc.ok = false
		default:
			return out, nil
		}
	}
}

// FilesNamed gives those of card cardID's files whose paths are in rels,
// with their copies (by destination order), in no particular order; a
// path with no record is left out. Only their rows are read: a caller
// walks a card's records a window of its own list at a time (a resume's
// records of its earlier runs, package offload), never the card's whole.
// The paths are matched by equality, so the backends' orders of paths do
// not matter.
func (c *Catalog) FilesNamed(cardID int64, rels []string) ([]*File, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	var out []*File
	for len(rels) > 0 {
		n := min(len(rels), filesNamedChunk)
		got, err := c.filesNamed(cardID, rels[:n])
		if err != nil {
			return nil, err
		}
		out, rels = append(out, got...), rels[n:]
	}
	return out, nil
}

// filesNamedChunk is how many paths one query of FilesNamed names (well
// under either backend's limit on a query's parameters).
const filesNamedChunk = 500

func (c *Catalog) filesNamed(cardID int64, rels []string) ([]*File, error) {
	args := make([]any, 0, len(rels)+1)
	args = append(args, cardID)
	for _, r := range rels {
		args = append(args, r)
	}
	in := "(?" + strings.Repeat(",?", len(rels)-1) + ")"
	return c.filesWhere(cardID, `rel_path IN `+in, args)
}

// FilesAfter gives up to n of card cardID's files whose paths come after
// after (byte order; "": from the first), in that order, with their
// copies (by destination order): a card's records a page at a time,
// each page a short query, for a walk that does slow work between pages
// (reading copies again) without holding a read open, nor the card's
// whole.
func (c *Catalog) FilesAfter(cardID int64, after string, n int) ([]*File, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	return c.filesWhere(cardID, `rel_path>? ORDER BY rel_path LIMIT ?`, []any{cardID, after, min(n, filesNamedChunk)})
}

// FilesFrom gives up to n of card cardID's files from path from on (byte
// order, from included), without their copies: a card's records a page
// at a time for a reader that asks by path (a cascade's expectations).
func (c *Catalog) FilesFrom(cardID int64, from string, n int) ([]*File, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	out, _, err := c.queryFiles(cardID, `AND rel_path>=? ORDER BY rel_path LIMIT ?`, []any{cardID, from, n})
	return out, err
}

// filesWhere reads card cardID's files selected by where (after card_id=?;
// args: the card's id, then where's) with their copies.
func (c *Catalog) filesWhere(cardID int64, where string, args []any) ([]*File, error) {
	out, byRel, err := c.queryFiles(cardID, `AND `+where, args)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	cargs := []any{cardID}
	for _, f := range out {
		cargs = append(cargs, f.Rel)
	}
	in := "(?" + strings.Repeat(",?", len(out)-1) + ")"
	if err := c.addCopies(byRel, `AND c.rel_path IN `+in, cargs); err != nil {
		return nil, err
	}
	return out, nil
}

// queryFiles reads card cardID's files selected by more (SQL after
// "card_id=? "; args: the card's id, then more's), in the order it says,
// and indexes them by path.
func (c *Catalog) queryFiles(cardID int64, more string, args []any) ([]*File, map[string]*File, error) {
	rows, err := c.db.Query(`SELECT rel_path,size,mtime_ns,state,md5,sha1,xxh64,xxh3,xxh128,c4,blake3,error,copy_started,copy_finished
		FROM files WHERE card_id=? `+more, args...)
	if err != nil {
		return nil, nil, c.wrap(err)
	}
	defer rows.Close()
	var out []*File
	byRel := map[string]*File{}
	for rows.Next() {
		f := &File{CardID: cardID}
		if err := scanFileRow(rows, f); err != nil {
			return nil, nil, c.wrap(err)
		}
		out = append(out, f)
		byRel[f.Rel] = f
	}
	return out, byRel, c.wrap(rows.Err())
}

// addCopies appends to each file of byRel its copies selected by more
// (SQL after "c.card_id=? "; args: the card's id, then more's), in
// destination order.
func (c *Catalog) addCopies(byRel map[string]*File, more string, args []any) error {
	crow, err := c.db.Query(`SELECT c.rel_path,c.dest_id,c.path,c.state,c.written,c.verify_algos,c.verified_at,c.error,c.identity
		FROM copies c JOIN destinations d ON d.id=c.dest_id WHERE c.card_id=? `+more+` ORDER BY c.rel_path, d.seq`, args...)
	if err != nil {
		return c.wrap(err)
	}
	defer crow.Close()
	for crow.Next() {
		var rel string
		var cp Copy
		if err := scanCopyRow(crow, &rel, &cp); err != nil {
			return c.wrap(err)
		}
		if f := byRel[rel]; f != nil {
			f.Copies = append(f.Copies, cp)
		}
	}
	return c.wrap(crow.Err())
}

// scanFileRow reads a row of the files columns that EachFile, Files and
// FilesNamed select (rel_path ... copy_finished) into f.
func scanFileRow(rows *sql.Rows, f *File) error {
	var mt int64
	var h [7]sql.NullString
	var t [2]sql.NullString
	if err := rows.Scan(&f.Rel, &f.Size, &mt, &f.State, &h[0], &h[1], &h[2], &h[3], &h[4], &h[5], &h[6], &f.Error, &t[0], &t[1]); err != nil {
		return err
	}
	f.Mtime = time.Unix(0, mt)
	for i, a := range []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64, hashing.XXH3, hashing.XXH128, hashing.C4, hashing.BLAKE3} {
		f.Sums.Set(a, h[i].String)
	}
	f.CopyStarted, f.CopyFinished = ParseTime(t[0]), ParseTime(t[1])
	return nil
}

// scanCopyRow reads a row of the copies columns that Files and
// FilesNamed select (c.rel_path ... c.identity).
func scanCopyRow(rows *sql.Rows, rel *string, cp *Copy) error {
	var vt sql.NullString
	if err := rows.Scan(rel, &cp.DestID, &cp.Path, &cp.State, &cp.Written, &cp.VerifyAlgos, &vt, &cp.Error, &cp.Identity); err != nil {
		return err
	}
	cp.VerifiedAt = ParseTime(vt)
	return nil
}
