package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dit-org/dit/internal/catalog/pgtest"
)

// Every test of this package runs on both backends: SQLite (a file in the
// test's temp folder) and PostgreSQL (a new database on a real server
// started from the Debian package; skipped, saying why, without it).

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

type backend struct {
	name string
	// loc returns the location of a new, empty catalog.
	loc func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "cat.db") }},
	{"postgres", func(t *testing.T) string {
		u, err := pgtest.Shared(t).NewDatabase("cat")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}},
}

// eachBackend runs f as a subtest per backend.
func eachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}
