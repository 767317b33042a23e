package catalog

import (
	"database/sql"
	"time"
)

// Run is one run of a job: started by dit offload or a resume; Finished
// is zero for a run whose process was killed.
type Run struct {
	Seq      int
	Started  time.Time
	Finished time.Time
}

// StartRun records a new run of job id starting at t and returns its
// number (not batched).
func (c *Catalog) StartRun(id int64, t time.Time) (int, error) {
	var seq int
	if err := c.Flush(); err != nil {
		return 0, err
	}
	if err := c.db.QueryRow(`SELECT COALESCE(MAX(seq),0)+1 FROM runs WHERE job_id=?`, id).Scan(&seq); err != nil {
		return 0, c.wrap(err)
	}
	_, err := c.Exec(`INSERT INTO runs (job_id,seq,started) VALUES (?,?,?)`, id, seq, Time(t))
	return seq, err
}

// EndRun records when run seq of job id ended.
func (c *Catalog) EndRun(id int64, seq int, t time.Time) error {
	_, err := c.Exec(`UPDATE runs SET finished=? WHERE job_id=? AND seq=?`, Time(t), id, seq)
	return err
}

// Runs lists a job's runs in order.
func (c *Catalog) Runs(id int64) ([]Run, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT seq, started, finished FROM runs WHERE job_id=? ORDER BY seq`, id)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var st, fin sql.NullString
		if err := rows.Scan(&r.Seq, &st, &fin); err != nil {
			return nil, c.wrap(err)
		}
		r.Started, r.Finished = ParseTime(st), ParseTime(fin)
		out = append(out, r)
	}
	return out, c.wrap(rows.Err())
}
