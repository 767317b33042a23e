package catalog

import (
	"database/sql"
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

// FindLimit is the most copies Find returns.
const FindLimit = 5000

// Find lists every copy of the files whose card-relative path, or whose
// path on a destination or on the card, contains q (case-insensitive: a
// clip name such as A023C004, a file name, or a whole path), oldest job
// first; at most FindLimit, the bool says whether there were more.
func (c *Catalog) Find(q string) ([]Found, bool, error) {
	if err := c.Flush(); err != nil {
		return nil, false, err
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q))
	like := "%" + esc + "%"
	rows, err := c.db.Query(`SELECT j.station, j.id, j.name, j.uuid, k.label, k.path, k.hop, f.rel_path, f.size, d.path, cp.path, cp.state, cp.verified_at
		FROM copies cp
		JOIN files f ON f.card_id=cp.card_id AND f.rel_path=cp.rel_path
		JOIN cards k ON k.id=cp.card_id
		JOIN jobs j ON j.id=k.job_id
		JOIN destinations d ON d.id=cp.dest_id
		WHERE lower(f.rel_path) LIKE ? ESCAPE '\'
		   OR lower(d.path || '/' || cp.path) LIKE ? ESCAPE '\'
		   OR lower(k.path || '/' || f.rel_path) LIKE ? ESCAPE '\'
		ORDER BY j.started, j.id, k.hop, k.seq, f.rel_path, d.seq
		LIMIT ?`, like, like, like, FindLimit+1)
	if err != nil {
		return nil, false, c.wrap(err)
	}
	defer rows.Close()
	var out []Found
	for rows.Next() {
		var f Found
		var cpath string
		var vt sql.NullString
		if err := rows.Scan(&f.Station, &f.JobID, &f.Job, &f.JobUUID, &f.Card, &f.CardPath, &f.Hop, &f.Rel, &f.Size, &f.Dest, &cpath, &f.State, &vt); err != nil {
			return nil, false, c.wrap(err)
		}
		f.Path, f.VerifiedAt = strings.TrimSuffix(f.Dest, "/")+"/"+cpath, ParseTime(vt)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, false, c.wrap(err)
	}
	if len(out) > FindLimit {
		return out[:FindLimit], true, nil
	}
	return out, false, nil
}
