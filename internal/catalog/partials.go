package catalog

import "time"

// Partial is a checkpoint of a file being copied to one destination: the
// temp it is written to is durable up to Offset, and Digest is the xxh3-64
// (hex) of those first Offset bytes as read from the card. Prev is the
// checkpoint before (0 if none). Size and Mtime are the card file's.
type Partial struct {
	CardID             int64
	Rel                string
	DestID             int64
	Temp               string
	Size               int64
	Mtime              time.Time
	Offset, PrevOffset int64
	Digest, PrevDigest string
	// State, PrevState: the card side at Offset and PrevOffset
	// ([CardState] text form; "" none).
	State, PrevState string
}

// At returns the digest recorded for offset off ("" if none).
func (p *Partial) At(off int64) string {
	switch {
	case off <= 0:
		return ""
	case off == p.Offset:
		return p.Digest
	case off == p.PrevOffset:
		return p.PrevDigest
	}
	return ""
}

// PutPartial records a checkpoint now (it is worth a copy's worth of
// reading only once it is durable); the one it replaces becomes Prev (when
// it is of the same temp).
func (c *Catalog) PutPartial(p *Partial) error {
	_, err := c.Exec(`INSERT INTO partials (card_id,rel_path,dest_id,temp,size,mtime_ns,offset,digest,states) VALUES (?,?,?,?,?,?,?,?,?)
		ON CONFLICT (card_id,rel_path,dest_id) DO UPDATE SET
		prev_offset=CASE WHEN partials.temp=excluded.temp THEN partials.offset ELSE 0 END,
		prev_digest=CASE WHEN partials.temp=excluded.temp THEN partials.digest ELSE '' END,
		prev_states=CASE WHEN partials.temp=excluded.temp THEN partials.states ELSE '' END,
		temp=excluded.temp, size=excluded.size, mtime_ns=excluded.mtime_ns, offset=excluded.offset, digest=excluded.digest,
		states=excluded.states`,
		p.CardID, p.Rel, p.DestID, p.Temp, p.Size, p.Mtime.UnixNano(), p.Offset, p.Digest, p.State)
	return err
}

// DeletePartials queues the removal of a file's checkpoints.
func (c *Catalog) DeletePartials(cardID int64, rel string) {
	c.Submit(`DELETE FROM partials WHERE card_id=? AND rel_path=?`, cardID, rel)
}

// Partials returns a card's checkpoints: rel path -> destination id ->
// checkpoint.
func (c *Catalog) Partials(cardID int64) (map[string]map[int64]*Partial, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT rel_path,dest_id,temp,size,mtime_ns,offset,digest,prev_offset,prev_digest,states,prev_states FROM partials WHERE card_id=?`, cardID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	out := map[string]map[int64]*Partial{}
	for rows.Next() {
		p := &Partial{CardID: cardID}
		var mt int64
		if err := rows.Scan(&p.Rel, &p.DestID, &p.Temp, &p.Size, &mt, &p.Offset, &p.Digest, &p.PrevOffset, &p.PrevDigest, &p.State, &p.PrevState); err != nil {
			return nil, c.wrap(err)
		}
		p.Mtime = time.Unix(0, mt)
		if out[p.Rel] == nil {
			out[p.Rel] = map[int64]*Partial{}
		}
		out[p.Rel][p.DestID] = p
	}
	return out, c.wrap(rows.Err())
}
