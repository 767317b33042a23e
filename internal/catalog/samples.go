package catalog

import (
	"database/sql"
	"time"
)

// CardSamples lists the samples of a job's cards' own side (dest_id
// NULL: what was read from each card and read back from its copies), in
// no particular order, with CardID, T, Rate, Phase and Seconds set (0
// for a sample recorded before samples had an interval) and DestID 0.
// They are read from the index samples_card_side alone; [Catalog.Samples]
// gives every sample, in order.
func (c *Catalog) CardSamples(jobID int64) ([]Sample, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT card_id, t, rate, phase, COALESCE(seconds,0) FROM samples WHERE job_id=? AND dest_id IS NULL`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		var s Sample
		var t sql.NullString
		var card sql.NullInt64
		if err := rows.Scan(&card, &t, &s.Rate, &s.Phase, &s.Seconds); err != nil {
			return nil, c.wrap(err)
		}
		s.CardID, s.T = card.Int64, ParseTime(t)
		out = append(out, s)
	}
	return out, c.wrap(rows.Err())
}

// SampleTimes lists the times of every sample of a job (each card's and
// each destination's), in no particular order: where a run that was
// killed ended.
func (c *Catalog) SampleTimes(jobID int64) ([]time.Time, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT t FROM samples WHERE job_id=?`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var t sql.NullString
		if err := rows.Scan(&t); err != nil {
			return nil, c.wrap(err)
		}
		out = append(out, ParseTime(t))
	}
	return out, c.wrap(rows.Err())
}
