package catalog

// CardTotals are a card's files and copies counted by state (the table
// card_totals, kept by triggers as the rows are written: schema version
// 12): what a job's verdict is read from without reading every file.
type CardTotals struct {
	CardID int64
	// Files counts the card's file rows by state; Bytes sums their size
	// by state.
	Files map[string]int
	Bytes map[string]int64
	// MtimeS is the sum of the files' modification times in whole
	// seconds (with Files and Bytes: a fingerprint of the card's files
	// that needs no file read, see dit day).
	MtimeS int64
	// Copies counts the card's copies rows by destination id and state.
	Copies map[int64]map[string]int
}

// NFiles is the number of the card's file rows.
func (t *CardTotals) NFiles() int {
	n := 0
	for _, v := range t.Files {
		n += v
	}
	return n
}

// NCopies is the number of the card's copies rows on destination dest.
func (t *CardTotals) NCopies(dest int64) int {
	n := 0
	for _, v := range t.Copies[dest] {
		n += v
	}
	return n
}

// JobTotals returns the totals of every card of job jobID, by card id (a
// card with no file yet has empty totals).
func (c *Catalog) JobTotals(jobID int64) (map[int64]*CardTotals, error) {
	rows, err := c.Query(`SELECT k.id, t.dest_id, t.state, t.n, t.bytes, t.mtime_s FROM cards k
		JOIN card_totals t ON t.card_id=k.id WHERE k.job_id=? AND t.n<>0`, jobID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*CardTotals{}
	for rows.Next() {
		var card, dest, bytes, mtime int64
		var state string
		var n int
		if err := rows.Scan(&card, &dest, &state, &n, &bytes, &mtime); err != nil {
			return nil, c.wrap(err)
		}
		t := out[card]
		if t == nil {
			t = &CardTotals{CardID: card, Files: map[string]int{}, Bytes: map[string]int64{}, Copies: map[int64]map[string]int{}}
			out[card] = t
		}
		if dest == 0 {
			t.Files[state] += n
			t.Bytes[state] += bytes
			t.MtimeS += mtime
			continue
		}
		if t.Copies[dest] == nil {
			t.Copies[dest] = map[string]int{}
		}
		t.Copies[dest][state] += n
	}
	return out, c.wrap(rows.Err())
}

// FailedFileList lists a card's failed files (path and error), sorted by
// path (EachFailedFile, held whole).
func (c *Catalog) FailedFileList(cardID int64) ([]File, error) {
	var out []File
	err := c.EachFailedFile(cardID, func(f File) error {
		out = append(out, f)
		return nil
	})
	return out, err
}

// EachFailedFile calls fn with each of card cardID's failed files (path
// and error), sorted by path, reading them as it goes: a card of a
// million frames whose every frame failed is never held whole here. An
// error from fn stops the walk and is returned.
func (c *Catalog) EachFailedFile(cardID int64, fn func(File) error) error {
	// +card_id: SQLite would read the card's every file by the primary
	// key; the partial index files_failed holds only failed files.
	rows, err := c.Query(`SELECT rel_path, error FROM files WHERE state='failed' AND +card_id=? ORDER BY rel_path`, cardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		f := File{CardID: cardID, State: "failed"}
		if err := rows.Scan(&f.Rel, &f.Error); err != nil {
			return c.wrap(err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return c.wrap(rows.Err())
}
