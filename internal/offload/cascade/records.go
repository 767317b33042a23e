package cascade

import (
	"github.com/dit-org/dit/internal/catalog"
)

// catalogRecords are a first run's card's records in the catalog, in the
// byte order of their paths (SQLite's BINARY; the catalog's text columns
// are COLLATE "C" on PostgreSQL), each page a short query on the files'
// primary key (card, path).
type catalogRecords struct {
	cat    *catalog.Catalog
	cardID int64
}

func (c catalogRecords) page(from string, n int) ([]expectRow, error) {
	files, err := c.cat.FilesFrom(c.cardID, from, n)
	if err != nil {
		return nil, err
	}
	out := make([]expectRow, len(files))
	for i, f := range files {
		out[i] = expectRow{rel: f.Rel, state: f.State, sums: f.Sums}
	}
	return out, nil
}

func (c catalogRecords) all(fn func(expectRow) error) error {
	return c.cat.EachFile(c.cardID, nil, func(f *catalog.File) error {
		return fn(expectRow{rel: f.Rel, state: f.State, sums: f.Sums})
	})
}
