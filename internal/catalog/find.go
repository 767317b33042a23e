package catalog

import (
	"database/sql"
	"sort"
	"strings"
	"time"
)

// Found is one copy of a file that [Catalog.Find] matched: which station
// and job made it, of which card, where it is and when it was verified.
type Found struct {
	Station    string    `json:"station"`
	JobID      int64     `json:"job_id"`
	Job        string    `json:"job"`
	JobUUID    string    `json:"job_uuid"`
	Card       string    `json:"card"`
	CardPath   string    `json:"card_path"`
	Hop        int       `json:"hop"`
	Rel        string    `json:"file"`
	Size       int64     `json:"size"`
	Dest       string    `json:"destination"`
	Path       string    `json:"path"` // the copy: Dest joined with its path there
	State      string    `json:"state"`
	VerifiedAt time.Time `json:"verified_at,omitzero"`
}

// FindLimit is the most copies Find returns when not told (limit 0).
const FindLimit = 100

const foundCols = `j.station, j.id, j.name, j.uuid, k.label, k.path, k.hop, f.rel_path, f.size, d.path, cp.path, cp.state, cp.verified_at`

const foundJoins = `FROM copies cp
		JOIN files f ON f.card_id=cp.card_id AND f.rel_path=cp.rel_path
		JOIN cards k ON k.id=cp.card_id
		JOIN jobs j ON j.id=k.job_id
		JOIN destinations d ON d.id=cp.dest_id`

// Find lists the copies of the files whose card-relative path, or whose
// path on a destination or on the card, contains q (case-insensitive: a
// clip name such as A023C004, a file name, or a whole path), oldest job
// first, then by card, path and destination: limit of them (0:
// FindLimit) after the first offset; the bool says whether more follow.
//
// A q that is part of no card's, job's or destination's own path or
// name (and has no "/") can only match file names: those are looked up
// in the names index (schema version 13), not in every file; any other
// q reads every copy.
func (c *Catalog) Find(q string, offset, limit int) ([]Found, bool, error) {
	if limit <= 0 {
		limit = FindLimit
	}
	offset = max(offset, 0)
	if err := c.Flush(); err != nil {
		return nil, false, err
	}
	ql := strings.ToLower(q)
	scan, err := c.findNeedsScan(ql)
	if err != nil {
		return nil, false, err
	}
	var out []Found
	if scan {
		out, err = c.findScan(ql, offset+limit+1)
	} else {
		out, err = c.findIndexed(ql, offset+limit+1)
	}
	if err != nil {
		return nil, false, err
	}
	if offset >= len(out) {
		return nil, false, nil
	}
	out = out[offset:]
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// findNeedsScan says whether ql may match something other than a file's
// card-relative path: it has a "/", or is part of a card's path or
// label, a job's name or layout, a destination's path, the folder a
// card's copies are in on a destination, or a copy's path in a job that
// renames copies on a conflict ("name (2).ext").
func (c *Catalog) findNeedsScan(ql string) (bool, error) {
	if strings.Contains(ql, "/") || ql == "" {
		return true, nil
	}
	esc := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ql) + "%"
	var n int
	err := c.db.QueryRow(`SELECT
		(SELECT count(*) FROM cards k JOIN jobs j ON j.id=k.job_id WHERE lower(k.path) LIKE ? ESCAPE '\' OR lower(k.label) LIKE ? ESCAPE '\'
			OR lower(j.name) LIKE ? ESCAPE '\' OR lower(j.layout) LIKE ? ESCAPE '\')
		+ (SELECT count(*) FROM destinations WHERE lower(path) LIKE ? ESCAPE '\')`, esc, esc, esc, esc, esc).Scan(&n)
	if err != nil || n > 0 {
		return true, c.wrap(err)
	}
	// The folder of each card's copies: a copy's path less its file's.
	rows, err := c.db.Query(`SELECT k.id, COALESCE((SELECT cp.path FROM copies cp WHERE cp.card_id=k.id ORDER BY cp.rel_path, cp.dest_id LIMIT 1), ''),
		COALESCE((SELECT cp.rel_path FROM copies cp WHERE cp.card_id=k.id ORDER BY cp.rel_path, cp.dest_id LIMIT 1), '') FROM cards k`)
	if err != nil {
		return false, c.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p, rel string
		if err := rows.Scan(&id, &p, &rel); err != nil {
			return false, c.wrap(err)
		}
		if strings.Contains(strings.ToLower(strings.TrimSuffix(p, rel)), ql) {
			return true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return false, c.wrap(err)
	}
	// Only the copies of jobs that rename (by card: the copies' key).
	err = c.db.QueryRow(`SELECT count(*) FROM copies cp WHERE cp.card_id IN (SELECT k.id FROM cards k JOIN jobs j ON j.id=k.job_id WHERE j.on_conflict='rename')
		AND lower(cp.path) LIKE ? ESCAPE '\' AND lower(cp.rel_path) NOT LIKE ? ESCAPE '\'`, esc, esc).Scan(&n)
	return n > 0, c.wrap(err)
}

// findScan is Find by reading every copy: at most n.
func (c *Catalog) findScan(ql string, n int) ([]Found, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ql) + "%"
	rows, err := c.db.Query(`SELECT `+foundCols+` `+foundJoins+`
		WHERE lower(f.rel_path) LIKE ? ESCAPE '\'
		   OR lower(d.path || '/' || cp.path) LIKE ? ESCAPE '\'
		   OR lower(k.path || '/' || f.rel_path) LIKE ? ESCAPE '\'
		ORDER BY j.started, j.id, k.hop, k.seq, f.rel_path, d.seq
		LIMIT ?`, like, like, like, n)
	if err != nil {
		return nil, c.wrap(err)
	}
	return c.scanFound(rows)
}

func (c *Catalog) scanFound(rows *sql.Rows) ([]Found, error) {
	defer rows.Close()
	var out []Found
	for rows.Next() {
		var f Found
		var cpath string
		var vt sql.NullString
		if err := rows.Scan(&f.Station, &f.JobID, &f.Job, &f.JobUUID, &f.Card, &f.CardPath, &f.Hop, &f.Rel, &f.Size, &f.Dest, &cpath, &f.State, &vt); err != nil {
			return nil, c.wrap(err)
		}
		f.Path, f.VerifiedAt = strings.TrimSuffix(f.Dest, "/")+"/"+cpath, ParseTime(vt)
		out = append(out, f)
	}
	return out, c.wrap(rows.Err())
}

// findIndexed is Find of a q that can only match file names: the files
// are found by the names index, sorted like findScan's, and their copies
// read until there are n.
func (c *Catalog) findIndexed(ql string, n int) ([]Found, error) {
	type key struct {
		card int64
		rel  string
	}
	var q string
	var arg any
	if c.db.d == postgresDialect {
		// pg_trgm's index (or a scan of the names where it is missing).
		q, arg = `SELECT card_id, rel_path FROM files WHERE lower(rel_path) LIKE ? ESCAPE '\'`,
			"%"+strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ql)+"%"
	} else {
		// FTS5's trigram index; its LIKE has no ESCAPE: % and _ in q match
		// more, the names are checked below.
		q, arg = `SELECT card_id, rel_path FROM file_names WHERE rel_path LIKE ?`, "%"+ql+"%"
	}
	args := []any{arg}
	if c.db.d != postgresDialect && c.pendingNames {
		// With the names of rows not yet moved into it (flushNames: none
		// once a transaction is committed; read all the same).
		q += ` UNION ALL SELECT card_id, rel_path FROM file_names_pending WHERE rel_path LIKE ?`
		args = append(args, arg)
	}
	rows, err := c.db.Query(q, args...)
	if err != nil {
		return nil, c.wrap(err)
	}
	var keys []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.card, &k.rel); err != nil {
			rows.Close()
			return nil, c.wrap(err)
		}
		if strings.Contains(strings.ToLower(k.rel), ql) {
			keys = append(keys, k)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	order, err := c.cardOrder()
	if err != nil {
		return nil, err
	}
	sort.Slice(keys, func(a, b int) bool {
		if oa, ob := order[keys[a].card], order[keys[b].card]; oa != ob {
			return oa < ob
		}
		return keys[a].rel < keys[b].rel
	})
	var out []Found
	for i := 0; i < len(keys) && len(out) < n; i++ {
		if i > 0 && keys[i] == keys[i-1] {
			continue
		}
		rows, err := c.db.Query(`SELECT `+foundCols+` `+foundJoins+` WHERE cp.card_id=? AND cp.rel_path=? ORDER BY d.seq`, keys[i].card, keys[i].rel)
		if err != nil {
			return nil, c.wrap(err)
		}
		fs, err := c.scanFound(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// cardOrder ranks every card as Find lists them: by its job's start and
// id, then hop and seq.
func (c *Catalog) cardOrder() (map[int64]int, error) {
	rows, err := c.db.Query(`SELECT k.id FROM cards k JOIN jobs j ON j.id=k.job_id ORDER BY j.started, j.id, k.hop, k.seq`)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, c.wrap(err)
		}
		out[id] = len(out)
	}
	return out, c.wrap(rows.Err())
}
