package catalog

import "fmt"

// CardsLike lists the cards of finished jobs that ended verified (safe to
// format) with exactly this many files and bytes, newest first: the
// candidates for "this card was already offloaded".
func (c *Catalog) CardsLike(files int, bytes int64) ([]*Card, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT k.id FROM cards k JOIN jobs j ON j.id=k.job_id
		WHERE k.files=? AND k.bytes=? AND k.state='verified' AND j.state=? AND j.verify_mode<>'none'
		ORDER BY k.id DESC`, files, bytes, JobDone)
	if err != nil {
		return nil, c.wrap(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, c.wrap(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	var out []*Card
	for _, id := range ids {
		k, err := c.Card(id)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// Card returns one card by id.
func (c *Catalog) Card(id int64) (*Card, error) {
	var jobID int64
	if err := c.db.QueryRow(`SELECT job_id FROM cards WHERE id=?`, id).Scan(&jobID); err != nil {
		return nil, c.wrap(err)
	}
	cards, err := c.Cards(jobID)
	if err != nil {
		return nil, err
	}
	for _, k := range cards {
		if k.ID == id {
			return k, nil
		}
	}
	return nil, fmt.Errorf("card %d: not in %s", id, c.path)
}
