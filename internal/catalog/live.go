package catalog

import (
	"database/sql"
	"time"
)

// PutLive records the live model's latest snapshot of job jobID (JSON),
// taken at t, replacing the one before (through the batched writer).
func (c *Catalog) PutLive(jobID int64, t time.Time, snapshot []byte) {
	c.Submit(`INSERT INTO live (job_id,t,snapshot) VALUES (?,?,?) ON CONFLICT (job_id) DO UPDATE SET t=excluded.t, snapshot=excluded.snapshot`,
		jobID, Time(t), string(snapshot))
}

// Live returns the latest live snapshot of job jobID and when it was
// taken (nil: none recorded).
func (c *Catalog) Live(jobID int64) ([]byte, time.Time, error) {
	rows, err := c.Query(`SELECT t, snapshot FROM live WHERE job_id=?`, jobID)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, time.Time{}, c.wrap(rows.Err())
	}
	var t sql.NullString
	var s string
	if err := rows.Scan(&t, &s); err != nil {
		return nil, time.Time{}, c.wrap(err)
	}
	return []byte(s), ParseTime(t), nil
}
