package catalog

import (
	"database/sql"
	"errors"
	"time"
)

// SpeedTest is a row of speedtests: one measurement of a volume (schema
// 0014_speedtests.sql).
type SpeedTest struct {
	ID        int64     `json:"id"`
	Volume    string    `json:"volume"`
	Kind      string    `json:"kind"`
	Path      string    `json:"path"`
	T         time.Time `json:"time"`
	Station   string    `json:"station,omitempty"`
	Link      string    `json:"link,omitempty"`
	Size      int64     `json:"size"`
	Block     int       `json:"block"`
	Streams   int       `json:"streams"`
	Write     float64   `json:"write_bytes_per_s"`
	Read      float64   `json:"read_bytes_per_s"`
	Sustained float64   `json:"sustained_write_bytes_per_s,omitempty"`
	CliffAt   int64     `json:"cliff_at_bytes,omitempty"`
	Direct    bool      `json:"direct"`
	Detail    string    `json:"-"`
}

// AddSpeedTest records s and sets its ID.
func (c *Catalog) AddSpeedTest(s *SpeedTest) error {
	if err := c.Flush(); err != nil {
		return err
	}
	var err error
	s.ID, err = c.db.insertID(c.db, `INSERT INTO speedtests (volume,kind,path,t,station,link,size,block,streams,write_rate,read_rate,sustained,cliff_at,direct,detail)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		s.Volume, s.Kind, s.Path, Time(s.T), s.Station, s.Link, s.Size, s.Block, s.Streams, s.Write, s.Read, s.Sustained, s.CliffAt, s.Direct, s.Detail)
	return c.wrap(err)
}

// LatestSpeedTest is the newest measurement of volume (written: the newest
// that wrote to it, not a card's read-only test); nil, nil when there is
// none.
func (c *Catalog) LatestSpeedTest(volume string, written bool) (*SpeedTest, error) {
	cond := ""
	if written {
		cond = " AND write_rate > 0"
	}
	var s SpeedTest
	var t sql.NullString
	err := c.db.QueryRow(`SELECT id,volume,kind,path,t,station,link,size,block,streams,write_rate,read_rate,sustained,cliff_at,direct,detail
		FROM speedtests WHERE volume=?`+cond+` ORDER BY t DESC, id DESC LIMIT 1`, volume).Scan(
		&s.ID, &s.Volume, &s.Kind, &s.Path, &t, &s.Station, &s.Link, &s.Size, &s.Block, &s.Streams, &s.Write, &s.Read, &s.Sustained, &s.CliffAt, &s.Direct, &s.Detail)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, c.wrap(err)
	}
	s.T = ParseTime(t)
	return &s, nil
}
