package catalog

import (
	"database/sql"
	"time"
)

// Costs is a row of costs: what a destination cost a card's run beyond
// its bytes, measured after the job (schema 0021_costs.sql). A nil
// figure was not measured.
type Costs struct {
	ID      int64     `json:"id"`
	Volume  string    `json:"volume"`
	Kind    string    `json:"kind"` // folder | array | cloud
	Path    string    `json:"path"`
	T       time.Time `json:"time"`
	Station string    `json:"station,omitempty"`
	JobUUID string    `json:"job_uuid,omitempty"`
	Card    string    `json:"card"`
	Hop     int       `json:"hop"`
	Files   int       `json:"files"`
	Bytes   int64     `json:"bytes"`
	// Seconds: each file's part of the copy and of the read-back, the
	// card's before its first byte and after its last byte read back.
	PerFile       *float64 `json:"per_file_s"`
	VerifyPerFile *float64 `json:"verify_per_file_s"`
	Start         *float64 `json:"start_s"`
	Fixed         *float64 `json:"fixed_s"`
	Detail        string   `json:"detail,omitempty"`
}

func nullFloat(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// AddCosts records k and sets its ID.
func (c *Catalog) AddCosts(k *Costs) error {
	if err := c.Flush(); err != nil {
		return err
	}
	var err error
	k.ID, err = c.db.insertID(c.db, `INSERT INTO costs (volume,kind,path,t,station,job_uuid,card,hop,files,bytes,per_file_s,verify_per_file_s,start_s,fixed_s,detail)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		k.Volume, k.Kind, k.Path, Time(k.T), k.Station, k.JobUUID, k.Card, max(k.Hop, 1), k.Files, k.Bytes,
		nullFloat(k.PerFile), nullFloat(k.VerifyPerFile), nullFloat(k.Start), nullFloat(k.Fixed), k.Detail)
	return c.wrap(err)
}

// RecentCosts lists the newest n measurements of volume, newest first
// (none: empty).
func (c *Catalog) RecentCosts(volume string, n int) ([]Costs, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT id,volume,kind,path,t,station,job_uuid,card,hop,files,bytes,per_file_s,verify_per_file_s,start_s,fixed_s,detail
		FROM costs WHERE volume=? ORDER BY t DESC, id DESC LIMIT ?`, volume, n)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Costs
	for rows.Next() {
		var k Costs
		var t sql.NullString
		var f [4]sql.NullFloat64
		if err := rows.Scan(&k.ID, &k.Volume, &k.Kind, &k.Path, &t, &k.Station, &k.JobUUID, &k.Card, &k.Hop, &k.Files, &k.Bytes,
			&f[0], &f[1], &f[2], &f[3], &k.Detail); err != nil {
			return nil, c.wrap(err)
		}
		k.T = ParseTime(t)
		for i, dst := range []**float64{&k.PerFile, &k.VerifyPerFile, &k.Start, &k.Fixed} {
			if f[i].Valid {
				v := f[i].Float64
				*dst = &v
			}
		}
		out = append(out, k)
	}
	return out, c.wrap(rows.Err())
}
