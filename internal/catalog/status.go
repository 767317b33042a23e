package catalog

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Progress is a card's latest read-side sample: how far its current phase
// is and how fast it went over the last interval (raw); Recent are the
// card's last read-side samples of that phase, oldest first (at most
// RecentSamples), from which a front end smooths the rate the way the
// engine does (offload.SmoothedRate).
type Progress struct {
	Phase  string    `json:"phase"`
	Bytes  int64     `json:"bytes"`
	Rate   float64   `json:"rate"`
	T      time.Time `json:"t"`
	Recent []Sample  `json:"-"`
}

// RecentSamples is how many of a card's latest samples LatestProgress
// gives (Progress.Recent).
const RecentSamples = 60

// LatestProgress returns the latest read-side sample of each card of a
// job, by card id.
func (c *Catalog) LatestProgress(jobID int64) (map[int64]Progress, error) {
	rows, err := c.Query(`SELECT card_id, phase, bytes, rate, t FROM samples WHERE id IN
		(SELECT MAX(id) FROM samples WHERE job_id=? AND dest_id IS NULL AND card_id IS NOT NULL GROUP BY card_id)`, jobID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]Progress{}
	for rows.Next() {
		var id int64
		var p Progress
		var t sql.NullString
		if err := rows.Scan(&id, &p.Phase, &p.Bytes, &p.Rate, &t); err != nil {
			return nil, c.wrap(err)
		}
		p.T = ParseTime(t)
		out[id] = p
	}
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	rows.Close()
	for id, p := range out {
		if p.Recent, err = c.recentSamples(jobID, id, p.Phase); err != nil {
			return nil, err
		}
		// The two reads are two statements: a sample written between
		// them (another process: the engine) is in Recent, not above.
		// The figures follow Recent's latest, so bytes and rate agree.
		if n := len(p.Recent); n > 0 {
			last := p.Recent[n-1]
			p.Bytes, p.Rate, p.T = last.Bytes, last.Rate, last.T
		}
		out[id] = p
	}
	return out, nil
}

// recentSamples gives card's latest read-side samples of phase, oldest
// first.
func (c *Catalog) recentSamples(jobID, cardID int64, phase string) ([]Sample, error) {
	rows, err := c.Query(`SELECT t, bytes, rate, COALESCE(seconds, 0) FROM samples WHERE job_id=? AND card_id=? AND dest_id IS NULL AND phase=?
		ORDER BY id DESC LIMIT ?`, jobID, cardID, phase, RecentSamples)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		s := Sample{CardID: cardID, Phase: phase}
		var t sql.NullString
		if err := rows.Scan(&t, &s.Bytes, &s.Rate, &s.Seconds); err != nil {
			return nil, c.wrap(err)
		}
		s.T = ParseTime(t)
		out = append(out, s)
	}
	slices.Reverse(out)
	return out, c.wrap(rows.Err())
}

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
