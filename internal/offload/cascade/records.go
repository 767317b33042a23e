package cascade

import (
	"database/sql"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// catalogRecords are a first run's card's records in the catalog, in the
// byte order of their paths (SQLite's BINARY; the catalog's text columns
// are COLLATE "C" on PostgreSQL), each page a short query on the files'
// primary key (card, path).
type catalogRecords struct {
	cat    *catalog.Catalog
	cardID int64
}

const recordColumns = `rel_path,state,md5,sha1,xxh64,xxh3,xxh128,c4,blake3`

var recordAlgos = []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64, hashing.XXH3, hashing.XXH128, hashing.C4, hashing.BLAKE3}

func (c catalogRecords) page(from string, n int) ([]expectRow, error) {
	rows, err := c.cat.Query(`SELECT `+recordColumns+` FROM files WHERE card_id=? AND rel_path>=? ORDER BY rel_path LIMIT ?`, c.cardID, from, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []expectRow
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c catalogRecords) all(fn func(expectRow) error) error {
	rows, err := c.cat.Query(`SELECT `+recordColumns+` FROM files WHERE card_id=?`, c.cardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

func scanRecord(rows *sql.Rows) (expectRow, error) {
	var r expectRow
	var h [7]sql.NullString
	if err := rows.Scan(&r.rel, &r.state, &h[0], &h[1], &h[2], &h[3], &h[4], &h[5], &h[6]); err != nil {
		return r, err
	}
	for i, a := range recordAlgos {
		r.sums.Set(a, h[i].String)
	}
	return r, nil
}
