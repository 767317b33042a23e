package catalog

import (
	"database/sql"
	"fmt"
	"time"
)

// Plan is a row of plans with its cards: what the scheduler planned for a
// job at its start (Seq 0) and at each re-plan (schema 0002_plans.sql).
type Plan struct {
	ID        int64     `json:"-"`
	JobID     int64     `json:"-"`
	Seq       int       `json:"seq"`
	T         time.Time `json:"time"`
	Reason    string    `json:"reason"`
	Simulated bool      `json:"simulated,omitempty"`
	// Scale is the --simulate-scale the job ran at (rates are in field
	// units: the job moved rate x scale bytes/s).
	Scale      float64 `json:"scale,omitempty"`
	Total      float64 `json:"total_bytes_per_s"`
	Bottleneck string  `json:"bottleneck"`
	Detail     string  `json:"-"` // the whole plan as JSON
	// RunDetail is the whole plan in the units of the run, as JSON: a
	// simulated job's at its scale (rates Scale times, and times as the
	// run takes them: the bytes' part 1/Scale times, the per-file and
	// fixed costs as they are); "" when it is Detail (scale 1), and for
	// plans recorded before schema version 21.
	RunDetail string     `json:"-"`
	Cards     []PlanCard `json:"cards"`
}

// PlanCard is one card of a Plan.
type PlanCard struct {
	Name       string   `json:"name"`
	CardID     int64    `json:"-"`
	Rate       float64  `json:"rate_bytes_per_s"`
	LimitedBy  string   `json:"limited_by"`
	ETASeconds *float64 `json:"eta_s,omitempty"`
}

// AddPlan records p for its job now, after everything queued; it sets
// p.ID and p.Seq (the next of the job).
func (c *Catalog) AddPlan(p *Plan) error {
	if err := c.Flush(); err != nil {
		return err
	}
	tx, err := c.db.Begin()
	if err != nil {
		return c.wrap(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(`SELECT COALESCE(MAX(seq)+1, 0) FROM plans WHERE job_id=?`, p.JobID).Scan(&p.Seq); err != nil {
		return c.wrap(err)
	}
	scale := p.Scale
	if scale == 0 {
		scale = 1
	}
	p.ID, err = c.db.insertID(tx, `INSERT INTO plans (job_id,seq,t,reason,simulated,scale,total_rate,bottleneck,detail,run_detail) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		p.JobID, p.Seq, Time(p.T), p.Reason, p.Simulated, scale, p.Total, p.Bottleneck, p.Detail, p.RunDetail)
	if err != nil {
		return c.wrap(err)
	}
	for _, k := range p.Cards {
		var card, eta any
		if k.CardID != 0 {
			card = k.CardID
		}
		if k.ETASeconds != nil {
			eta = *k.ETASeconds
		}
		if _, err := tx.Exec(`INSERT INTO plan_cards (plan_id,name,card_id,rate,limited_by,eta_s) VALUES (?,?,?,?,?,?)`,
			p.ID, k.Name, card, k.Rate, k.LimitedBy, eta); err != nil {
			return c.wrap(fmt.Errorf("plan card %s: %w", k.Name, err))
		}
	}
	return c.wrap(tx.Commit())
}

// Plans lists a job's plans in order, each with its cards.
func (c *Catalog) Plans(jobID int64) ([]Plan, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT id,seq,t,reason,simulated,scale,total_rate,bottleneck,detail,run_detail FROM plans WHERE job_id=? ORDER BY seq`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	var out []Plan
	for rows.Next() {
		p := Plan{JobID: jobID}
		var t sql.NullString
		if err := rows.Scan(&p.ID, &p.Seq, &t, &p.Reason, &p.Simulated, &p.Scale, &p.Total, &p.Bottleneck, &p.Detail, &p.RunDetail); err != nil {
			rows.Close()
			return nil, c.wrap(err)
		}
		p.T = ParseTime(t)
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	for i := range out {
		cr, err := c.db.Query(`SELECT name,COALESCE(card_id,0),rate,limited_by,eta_s FROM plan_cards WHERE plan_id=? ORDER BY COALESCE(card_id,0), name`, out[i].ID)
		if err != nil {
			return nil, c.wrap(err)
		}
		for cr.Next() {
			var k PlanCard
			var eta sql.NullFloat64
			if err := cr.Scan(&k.Name, &k.CardID, &k.Rate, &k.LimitedBy, &eta); err != nil {
				cr.Close()
				return nil, c.wrap(err)
			}
			if eta.Valid {
				v := eta.Float64
				k.ETASeconds = &v
			}
			out[i].Cards = append(out[i].Cards, k)
		}
		cr.Close()
		if err := cr.Err(); err != nil {
			return nil, c.wrap(err)
		}
	}
	return out, nil
}

// CPUBench returns the hash speeds (bytes/s by algorithm name) measured on
// host/arch no earlier than since, and the core count then; empty when
// none.
func (c *Catalog) CPUBench(host, arch string, since time.Time) (map[string]float64, int, error) {
	if err := c.Flush(); err != nil {
		return nil, 0, err
	}
	rows, err := c.db.Query(`SELECT algo,bytes_per_s,cores,measured FROM cpu_bench WHERE host=? AND arch=?`, host, arch)
	if err != nil {
		return nil, 0, c.wrap(err)
	}
	defer rows.Close()
	out := map[string]float64{}
	cores := 0
	for rows.Next() {
		var algo string
		var v float64
		var n int
		var m sql.NullString
		if err := rows.Scan(&algo, &v, &n, &m); err != nil {
			return nil, 0, c.wrap(err)
		}
		if ParseTime(m).Before(since) {
			continue
		}
		out[algo], cores = v, n
	}
	return out, cores, c.wrap(rows.Err())
}

// PutCPUBench records hash speeds measured on host/arch at t.
func (c *Catalog) PutCPUBench(host, arch string, cores int, rates map[string]float64, t time.Time) error {
	for algo, v := range rates {
		if _, err := c.Exec(`INSERT INTO cpu_bench (host,arch,algo,bytes_per_s,cores,measured) VALUES (?,?,?,?,?,?)
			ON CONFLICT (host,arch,algo) DO UPDATE SET bytes_per_s=excluded.bytes_per_s, cores=excluded.cores, measured=excluded.measured`,
			host, arch, algo, v, cores, Time(t)); err != nil {
			return err
		}
	}
	return nil
}
