package catalog

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/hashing"
)

func open(t *testing.T, p string) *Catalog {
	t.Helper()
	c, err := Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRoundTrip(t *testing.T) { eachBackend(t, testRoundTrip) }

func testRoundTrip(t *testing.T, b backend) {
	p := b.loc(t)
	c := open(t, p)
	j := &Job{Name: "day01", State: JobRunning, Hashes: "md5,xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now(), PID: os.Getpid()}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/cards/A001", State: "copying"}
	require.NoError(t, c.AddCard(k))
	d := &Dest{JobID: j.ID, Seq: 0, Path: "/dst"}
	require.NoError(t, c.AddDest(d))
	f := &File{CardID: k.ID, Rel: "CLIPS/caf\u00e9 & \"x\".mov", Size: 3, Mtime: time.Unix(1700000000, 5), State: "verified",
		Sums: hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte("abc"))}
	c.PutFile(f)
	c.PutCopy(k.ID, f.Rel, &Copy{DestID: d.ID, Path: "day01/A001/" + f.Rel, State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: time.Now()})
	c.PutSkipped(k.ID, Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"})
	c.PutSample(j.ID, Sample{CardID: k.ID, T: time.Now(), Bytes: 3, Rate: 3, Phase: "copy"})
	require.NoError(t, c.Flush())
	require.NoError(t, c.Close())

	c2 := open(t, p)
	jobs, err := c2.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, "day01", jobs[0].Name)
	files, err := c2.Files(k.ID)
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.Equal(t, f.Rel, files[0].Rel)
	require.Equal(t, f.Mtime.UnixNano(), files[0].Mtime.UnixNano())
	require.Equal(t, "900150983cd24fb0d6963f7d28e17f72", files[0].Sums.Get(hashing.MD5))
	require.Equal(t, "", files[0].Sums.Get(hashing.SHA1))
	require.Len(t, files[0].Copies, 1)
	require.Equal(t, "verified", files[0].Copies[0].State)
	sk, err := c2.Skipped(k.ID)
	require.NoError(t, err)
	require.Equal(t, []Skip{{".DS_Store", "metadata", "macOS Finder metadata"}}, sk)
	s, err := c2.Samples(j.ID)
	require.NoError(t, err)
	require.Len(t, s, 1)
	_, err = c2.Job(999)
	require.ErrorIs(t, err, ErrNoJob)
}

func TestKilledJobShowsInterrupted(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) { testKilledJobShowsInterrupted(t, open(t, b.loc(t))) })
}

func testKilledJobShowsInterrupted(t *testing.T, c *Catalog) {
	host, _ := os.Hostname()
	j := &Job{Name: "x", State: JobRunning, Host: host, PID: 1 << 22, Hashes: "xxh64", VerifyMode: "dest",
		VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, c.CreateJob(j))
	got, err := c.Job(j.ID)
	require.NoError(t, err)
	require.Equal(t, JobInterrupted, got.State)
}

func TestRefusesForeignAndGarbage(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		if b.name == "postgres" {
			testRefusesForeignPostgres(t, b)
		} else {
			testRefusesForeignAndGarbage(t)
		}
	})
}

// A PostgreSQL database with other tables is not taken for a catalog.
func testRefusesForeignPostgres(t *testing.T, b backend) {
	u := b.loc(t)
	db, err := sql.Open("pgx", u)
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE photos (id INTEGER)")
	require.NoError(t, err)
	db.Close()
	_, err = Open(u)
	require.ErrorContains(t, err, "is a PostgreSQL database but not a dit catalog")
	require.ErrorContains(t, err, "--db")
	_, err = Open(strings.Replace(u, "/cat_", "/nosuchdb_", 1))
	require.Error(t, err, "a database that does not exist")
	require.Contains(t, err.Error(), "nosuchdb_")
}

func testRefusesForeignAndGarbage(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	require.NoError(t, os.WriteFile(garbage, []byte("this is not sqlite, it is a text file with enough bytes to look like a header..............................................."), 0o644))
	_, err := Open(garbage)
	require.ErrorContains(t, err, "garbage.db is not a usable dit catalog")

	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE photos (id INTEGER)")
	require.NoError(t, err)
	db.Close()
	_, err = Open(foreign)
	require.ErrorContains(t, err, "foreign.db is an SQLite database but not a dit catalog")

	_, err = Open(dir)
	require.ErrorContains(t, err, "is a folder")
}

// Two catalogs (as two processes would) write to one file concurrently.
func TestTwoWritersShareOneFile(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) { testTwoWriters(t, be.loc(t)) })
}

func testTwoWriters(t *testing.T, p string) {
	a, b := open(t, p), open(t, p)
	done := make(chan error, 2)
	for _, c := range []*Catalog{a, b} {
		go func(c *Catalog) {
			for i := 0; i < 20; i++ {
				j := &Job{Name: "j", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
					Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
				if err := c.CreateJob(j); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(c)
	}
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	jobs, err := a.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 40)
}

// A catalog made by a dit before migration 0003 (schema version 2) opens,
// is migrated, and its jobs read as --mhl asc, the default they ran with.
func TestMigrationFromVersion2KeepsJobsAndReadsMHLAsc(t *testing.T) {
	eachBackend(t, testMigrationFromVersion2)
}

func testMigrationFromVersion2(t *testing.T, b backend) {
	p := b.loc(t)
	old, err := openAt(p, 2)
	require.NoError(t, err)
	v, err := old.SchemaVersion()
	require.NoError(t, err)
	require.Equal(t, 2, v)
	_, err = old.Exec(`INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,started)
		VALUES ('day01','interrupted','h','v0',0,'md5,xxh64','dest','fastest','{job}/{card}','fail',0,'2026-01-02T03:04:05.000000006Z')`)
	require.NoError(t, err)
	require.NoError(t, old.Close())
	if b.name == "sqlite" {
		// What a dit of version 2 wrote: the raw PRAGMAs.
		db, err := sql.Open("sqlite", p)
		require.NoError(t, err)
		var uv, app int
		require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&uv))
		require.NoError(t, db.QueryRow("PRAGMA application_id").Scan(&app))
		require.Equal(t, 2, uv)
		require.Equal(t, ApplicationID, app)
		db.Close()
	}

	c := open(t, p)
	version, err := c.SchemaVersion()
	require.NoError(t, err)
	require.Equal(t, LatestVersion(), version, "migrated to the latest version")
	require.GreaterOrEqual(t, version, 10)
	jobs, err := c.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, "day01", jobs[0].Name)
	require.Equal(t, "asc", jobs[0].MHL)

	// New jobs keep their choice; an empty one is recorded as asc.
	j := &Job{Name: "day02", State: JobRunning, Hashes: "md5", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", MHL: "none", Started: time.Now()}
	require.NoError(t, c.CreateJob(j))
	k := &Job{Name: "day03", State: JobRunning, Hashes: "md5", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, c.CreateJob(k))
	got, err := c.Job(j.ID)
	require.NoError(t, err)
	require.Equal(t, "none", got.MHL)
	got, err = c.Job(k.ID)
	require.NoError(t, err)
	require.Equal(t, "asc", got.MHL)
}

// A catalog in a folder whose name has URI characters ("Day #3", "50%",
// "what?") opens there, and no other file is created.
func TestCatalogPathWithURICharacters(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		if b.name == "postgres" {
			testDatabaseNameWithURICharacters(t)
		} else {
			testCatalogPathWithURICharacters(t)
		}
	})
}

// The PostgreSQL counterpart: a database whose name has URI characters,
// given escaped in the URL.
func testDatabaseNameWithURICharacters(t *testing.T) {
	u, err := pgtest.Shared(t).CreateDatabase("Day #3 50% what?")
	require.NoError(t, err)
	c := open(t, u)
	require.NoError(t, c.CreateJob(&Job{Name: "day03", State: JobDone, Started: time.Now()}))
	require.NoError(t, c.Close())
	c = open(t, u)
	jobs, err := c.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NotContains(t, c.Path(), "password")
}

func testCatalogPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Day #3 50% what?")
	require.NoError(t, os.Mkdir(dir, 0o755))
	p := filepath.Join(dir, "catalog.db")
	c := open(t, p)
	require.NoError(t, c.CreateJob(&Job{Name: "day03", State: JobDone, Started: time.Now()}))
	require.NoError(t, c.Close())
	_, err := os.Stat(p)
	require.NoError(t, err, "the catalog is where it was asked to be")
	c = open(t, p)
	jobs, err := c.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	ents, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	require.Len(t, ents, 1, "nothing written beside the folder")
}

// A worker that outlives its job (clips, notifications) and writes after
// the catalog was closed neither crashes the process nor hangs: nothing is
// written, Flush says the catalog is closed.
func TestWriteAfterClose(t *testing.T) {
	c := open(t, filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, c.Close())
	c.Submit(`UPDATE jobs SET name='x'`)
	require.ErrorContains(t, c.Flush(), "closed")
	_, err := c.Cards(1)
	require.Error(t, err)
}
