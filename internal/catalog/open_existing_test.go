package catalog

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A read command given a mistyped --db must leave nothing behind.
func TestOpenExistingNeverCreates(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		if b.name == "postgres" {
			testOpenExistingPostgres(t, b)
		} else {
			testOpenExistingNeverCreates(t)
		}
	})
}

// On PostgreSQL: an empty database is no catalog for a read command, and
// it stays empty.
func testOpenExistingPostgres(t *testing.T, b backend) {
	u := b.loc(t)
	_, err := OpenExisting(u)
	require.ErrorIs(t, err, ErrNoCatalog)
	require.Contains(t, err.Error(), "--db")
	db, err := sql.Open("pgx", u)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_schema=current_schema()`).Scan(&n))
	require.Zero(t, n, "nothing created")
	c, err := Open(u)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	c, err = OpenExisting(u)
	require.NoError(t, err)
	require.True(t, c.Postgres())
	require.NoError(t, c.Close())
}

func testOpenExistingNeverCreates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "typo", "x.db")
	_, err := OpenExisting(p)
	require.ErrorIs(t, err, ErrNoCatalog)
	require.Contains(t, err.Error(), p)
	require.Contains(t, err.Error(), "--db")
	_, err = os.Stat(filepath.Join(dir, "typo"))
	require.ErrorIs(t, err, os.ErrNotExist)

	_, err = OpenExisting(dir)
	require.ErrorContains(t, err, "is a folder")

	file := filepath.Join(dir, "c.db")
	c, err := Open(file)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	c, err = OpenExisting(file)
	require.NoError(t, err)
	require.Equal(t, file, c.Path())
	require.NoError(t, c.Close())
}
