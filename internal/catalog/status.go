package catalog

import (
	"fmt"
	"strings"
)

// StationTotals are a station's figures over every job in the catalog.
type StationTotals struct {
	Station string
	// BytesCopied: the bytes of files copied (verified or not yet);
	// FilesVerified, FilesFailed: files in those states; CopiesFailed:
	// copies that failed (written or read back wrong) on a destination.
	BytesCopied   int64
	FilesVerified int64
	FilesFailed   int64
	CopiesFailed  int64
}

// Totals returns the figures of every station, by station name.
func (c *Catalog) Totals() (map[string]*StationTotals, error) {
	out := map[string]*StationTotals{}
	get := func(s string) *StationTotals {
		if out[s] == nil {
			out[s] = &StationTotals{Station: s}
		}
		return out[s]
	}
	// From the cards' totals (card_totals), not from every file.
	rows, err := c.Query(`SELECT j.station,
		CAST(COALESCE(SUM(CASE WHEN t.dest_id=0 AND t.state IN ('copied','verified') THEN t.bytes ELSE 0 END),0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN t.dest_id=0 AND t.state='verified' THEN t.n ELSE 0 END),0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN t.dest_id=0 AND t.state='failed' THEN t.n ELSE 0 END),0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN t.dest_id<>0 AND t.state='failed' THEN t.n ELSE 0 END),0) AS BIGINT)
		FROM card_totals t JOIN cards k ON k.id=t.card_id JOIN jobs j ON j.id=k.job_id GROUP BY j.station`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var b, v, f, cf int64
		if err := rows.Scan(&s, &b, &v, &f, &cf); err != nil {
			return nil, c.wrap(err)
		}
		t := get(s)
		t.BytesCopied, t.FilesVerified, t.FilesFailed, t.CopiesFailed = b, v, f, cf
	}
	return out, c.wrap(rows.Err())
}

// JobCounts is what a job's files and copies are, by state: a cheap
// fingerprint of everything its verdicts are read from (a copy withdrawn
// by dit verify, a file failed, a copy verified all change it), read
// from the cards' totals.
func (c *Catalog) JobCounts(jobID int64) (string, error) {
	rows, err := c.Query(`SELECT CASE WHEN t.dest_id=0 THEN 'files' ELSE 'copies' END, t.state, CAST(SUM(t.n) AS BIGINT)
		FROM card_totals t JOIN cards k ON k.id=t.card_id WHERE k.job_id=? AND t.n<>0 GROUP BY 1, 2 ORDER BY 1 DESC, 2`, jobID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var what, st string
		var n int64
		if err := rows.Scan(&what, &st, &n); err != nil {
			return "", c.wrap(err)
		}
		fmt.Fprintf(&b, "%s:%s=%d,", what, st, n)
	}
	return b.String(), c.wrap(rows.Err())
}
