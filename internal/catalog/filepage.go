package catalog

// FileCount is the number of card cardID's files, read from its totals
// (card_totals): no file row is read, however many the card has.
func (c *Catalog) FileCount(cardID int64) (int, error) {
	if err := c.Flush(); err != nil {
		return 0, err
	}
	var n int
	err := c.db.QueryRow(`SELECT CAST(COALESCE(SUM(n),0) AS BIGINT) FROM card_totals WHERE card_id=? AND dest_id=0`, cardID).Scan(&n)
	return n, c.wrap(err)
}

// FilesAt gives up to n (at most 500) of card cardID's files from row
// from on (0: the first), in path order (byte order, as [Catalog.FilesAfter]),
// with their copies (by destination order): a page of a card's records
// addressed by its row number, for a view that shows any row of a card
// of a million frames at once (the GUI's file table) without holding
// the card's whole. The row is found in the files' primary key (the
// rows before it are stepped over, not read); a row at or past the
// card's count gives none.
func (c *Catalog) FilesAt(cardID int64, from, n int) ([]*File, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	if from < 0 || n <= 0 {
		return nil, nil
	}
	return c.filesWhere(cardID, `rel_path>=(SELECT rel_path FROM files WHERE card_id=? ORDER BY rel_path LIMIT 1 OFFSET ?)
		ORDER BY rel_path LIMIT ?`, []any{cardID, cardID, from, min(n, filesNamedChunk)})
}

// SkipCount is how many entries of a card were skipped, and how many of
// them were unreadable (kind "unreadable": a card with one is not
// wholly copied).
type SkipCount struct {
	N, Unreadable int
}

// SkippedCount counts card cardID's skipped entries in the database (a
// count over the skipped table's key, no entry read here): a card of a
// million frames may carry as many.
func (c *Catalog) SkippedCount(cardID int64) (SkipCount, error) {
	if err := c.Flush(); err != nil {
		return SkipCount{}, err
	}
	var n SkipCount
	err := c.db.QueryRow(`SELECT CAST(count(*) AS BIGINT), CAST(COALESCE(SUM(CASE WHEN kind='unreadable' THEN 1 ELSE 0 END),0) AS BIGINT)
		FROM skipped WHERE card_id=?`, cardID).Scan(&n.N, &n.Unreadable)
	return n, c.wrap(err)
}

// EachSkipped calls fn with each of card cardID's skipped entries, by
// path (byte order), reading them as it goes: a card of a million frames
// may carry as many skipped entries (a macOS AppleDouble file beside
// each frame), never held whole here. An error from fn stops the walk
// and is returned.
func (c *Catalog) EachSkipped(cardID int64, fn func(Skip) error) error {
	rows, err := c.Query(`SELECT rel_path,kind,reason FROM skipped WHERE card_id=? ORDER BY rel_path`, cardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s Skip
		if err := rows.Scan(&s.Rel, &s.Kind, &s.Reason); err != nil {
			return c.wrap(err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return c.wrap(rows.Err())
}
