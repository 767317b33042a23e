package catalog

import (
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed sql/*.sql
var migrations embed.FS

// ApplicationID marks a dit catalog ("DIT0").
const ApplicationID = 0x44495430

// ErrBusy is returned when another process holds the catalog for longer
// than the busy timeout.
var ErrBusy = errors.New("catalog is busy")

// Catalog is an open catalog database.
type Catalog struct {
	path string // the file, or the PostgreSQL URL without its password
	db   *dbx

	station string     // this cart's name, recorded on the jobs it creates
	sync    *syncHook  // push a job elsewhere when it ends (nil: no)
	syncMu  sync.Mutex // one push at a time

	ops     chan op
	flushes chan chan error
	done    chan struct{}
	mu      sync.Mutex
	werr    error // first error of the writer goroutine
	closed  bool
	// opsMu keeps Submit from sending on ops once Close closed it (a
	// background worker that outlives its job writes nothing, and does
	// not crash the process).
	opsMu sync.RWMutex
	shut  bool
	// pendingNames: an SQLite catalog of schema 24 or later, whose new
	// files' names wait in file_names_pending for flushNames.
	pendingNames bool
}

type op struct {
	query string
	args  []any
	key   string // a row's upsert: the row's key (batch.add), else ""
}

// DefaultPath is the catalog location when neither --db nor DIT_DB is set:
// the OS user data folder (Linux $XDG_DATA_HOME or ~/.local/share; macOS
// ~/Library/Application Support; Windows %LocalAppData%) + dit/catalog.db.
func DefaultPath() string {
	if p := os.Getenv("DIT_DB"); p != "" {
		return p
	}
	var base string
	switch runtime.GOOS {
	case "darwin":
		if h, err := os.UserHomeDir(); err == nil {
			base = filepath.Join(h, "Library", "Application Support")
		}
	case "windows":
		base = os.Getenv("LocalAppData")
	default:
		base = os.Getenv("XDG_DATA_HOME")
		if base == "" {
			if h, err := os.UserHomeDir(); err == nil {
				base = filepath.Join(h, ".local", "share")
			}
		}
	}
	if base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "dit", "catalog.db")
}

// Open opens (creating if needed) the catalog at path, checks that it is a
// dit catalog, applies pending migrations and starts the writer goroutine.
//
// A path of the form postgres://user@host/db (or postgresql://) opens a
// PostgreSQL database instead: the same schema and migrations, shared by
// several carts (see the package doc).
func Open(path string) (*Catalog, error) {
	if path == "" {
		path = DefaultPath()
	}
	if IsPostgresURL(path) {
		return openPostgres(path, true, 0)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the catalog folder for %s: %w", abs, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("catalog %s is a folder: give a file path with --db", abs)
	}
	return openAbs(abs, 0)
}

// ErrNoCatalog is returned by [OpenExisting] when there is no catalog at
// the path.
var ErrNoCatalog = errors.New("no catalog")

// OpenExisting opens the catalog at path like [Open], but only if it
// exists: it never creates a catalog or its folder, so that a command that
// only reads (dit jobs, dit job show, dit verify, dit report) given a
// mistyped --db leaves nothing behind. A missing file is an error wrapping
// [ErrNoCatalog] that names the path.
func OpenExisting(path string) (*Catalog, error) {
	if path == "" {
		path = DefaultPath()
	}
	if IsPostgresURL(path) {
		return openPostgres(path, false, 0)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w at %s yet (no job has been run with it): check --db (or DIT_DB)", ErrNoCatalog, abs)
	case err != nil:
		return nil, fmt.Errorf("catalog %s: %w", abs, err)
	case fi.IsDir():
		return nil, fmt.Errorf("catalog %s is a folder: give a file path with --db", abs)
	}
	return openAbs(abs, 0)
}

// openAt opens a catalog migrated only up to version upTo (0: all), for
// tests of migrations.
func openAt(path string, upTo int) (*Catalog, error) {
	if IsPostgresURL(path) {
		return openPostgres(path, true, upTo)
	}
	return openAbs(path, upTo)
}

// openPostgres opens the PostgreSQL catalog at dsn; create false: only
// if the database already holds a dit catalog.
func openPostgres(dsn string, create bool, upTo int) (*Catalog, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w: give --db as postgres://user@host:port/database", redactURL(dsn), err)
	}
	c := &Catalog{path: redactURL(dsn), db: &dbx{DB: db, d: postgresDialect}}
	if err := c.initPostgres(create, upTo); err != nil {
		db.Close()
		return nil, err
	}
	c.start()
	return c, nil
}

// start starts the writer goroutine.
func (c *Catalog) start() {
	c.station = defaultStation()
	c.ops = make(chan op, 4096)
	c.flushes = make(chan chan error)
	c.done = make(chan struct{})
	go c.writer()
}

// openAbs opens the catalog file abs (an absolute path).
func openAbs(abs string, upTo int) (*Catalog, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "synchronous(FULL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	// The path is escaped: "#", "?" and "%" in a folder name ("Day #3")
	// would otherwise end the file name of the URI.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	c := &Catalog{path: abs, db: &dbx{DB: db, d: sqliteDialect}}
	if err := c.init(upTo); err != nil {
		db.Close()
		return nil, err
	}
	c.start()
	return c, nil
}

// Path returns the catalog's file path (for PostgreSQL: its URL without
// the password).
func (c *Catalog) Path() string { return c.path }

// Postgres says whether the catalog is a PostgreSQL database.
func (c *Catalog) Postgres() bool { return c.db.d == postgresDialect }

// DB gives read access for queries in other packages (reports). Queries
// on it are not rewritten: use [Catalog.Query] for SQL written once for
// both backends.
func (c *Catalog) DB() *sql.DB { return c.db.DB }

// Query runs a read query written in the catalog's SQL (SQLite's, with ?
// placeholders) on either backend, after flushing queued writes.
func (c *Catalog) Query(q string, args ...any) (*sql.Rows, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	r, err := c.db.Query(q, args...)
	return r, c.wrap(err)
}

func (c *Catalog) wrap(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrBusy) || errors.Is(err, ErrNoCatalog) {
		return err
	}
	if c.db.d == postgresDialect {
		switch {
		case pgRetry(err):
			return fmt.Errorf("%w: %s: another cart's transaction got in the way (%v); try again", ErrBusy, c.path, err)
		case pgUnreachable(err):
			return fmt.Errorf("cannot reach the catalog server %s: %v: check the network and that the server runs, or work on a local --db file and push later with dit catalog sync", c.path, err)
		}
		return fmt.Errorf("catalog %s: %w", c.path, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %s is locked by another dit process; wait for it or use another --db: %v", ErrBusy, c.path, err)
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%s is not a usable dit catalog (%v): move it aside or pass another --db", c.path, err)
		}
	}
	return fmt.Errorf("catalog %s: %w", c.path, err)
}

// init checks and migrates the catalog. Two dit processes may open a
// catalog that does not exist yet at the same moment: the check and every
// pending migration run in one immediate (write-locked) transaction, so
// the second process waits for the first, then sees a complete dit
// catalog at the latest version and has nothing to do.
func (c *Catalog) init(upTo int) error {
	var mode string
	var err error
	for attempt := 0; ; attempt++ {
		// Switching to WAL needs a moment of exclusive access; another
		// process creating the same catalog may hold it.
		if err = c.db.QueryRow("PRAGMA journal_mode=WAL").Scan(&mode); err == nil || attempt == 50 || !isBusy(err) {
			break
		}
		time.Sleep(time.Duration(10+attempt*10) * time.Millisecond)
	}
	if err != nil {
		return c.wrap(err)
	}
	tx, err := c.db.Begin() // BEGIN IMMEDIATE (_txlock): waits for another writer
	if err != nil {
		return c.wrap(err)
	}
	defer tx.Rollback()
	var appID, version, objects int
	if err := tx.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		return c.wrap(err)
	}
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return c.wrap(err)
	}
	if err := tx.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&objects); err != nil {
		return c.wrap(err)
	}
	if appID != ApplicationID && (appID != 0 || objects > 0) {
		return fmt.Errorf("%s is an SQLite database but not a dit catalog: move it aside or pass another --db", c.path)
	}
	version, applied, err := c.migrate(tx, version, upTo)
	c.pendingNames = version >= namesPendingVersion
	if err != nil || !applied {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version=%d; PRAGMA application_id=%d", version, ApplicationID)); err != nil {
		return c.wrap(err)
	}
	return c.wrap(tx.Commit())
}

// migrate applies the migrations after version (up to upTo, 0: all) in
// tx, each rewritten for the catalog's dialect, and returns the version
// reached and whether any was applied.
func (c *Catalog) migrate(tx *txx, version, upTo int) (int, bool, error) {
	ents, err := migrations.ReadDir("sql")
	if err != nil {
		return 0, false, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	applied := false
	for _, e := range ents {
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return 0, false, fmt.Errorf("migration %s: bad number", e.Name())
		}
		if n <= version || (upTo > 0 && n > upTo) {
			continue
		}
		// NNNN_name.sqlite.sql and NNNN_name.postgres.sql: one backend's
		// (what plain SQL cannot say on both, e.g. triggers), applied as
		// written.
		only := ""
		for _, b := range []string{"sqlite", "postgres"} {
			if strings.HasSuffix(e.Name(), "."+b+".sql") {
				only = b
			}
		}
		if only != "" && (only == "postgres") != (c.db.d == postgresDialect) {
			continue
		}
		body, err := migrations.ReadFile("sql/" + e.Name())
		if err != nil {
			return 0, false, err
		}
		q := c.db.d.migration(string(body))
		if only != "" {
			q = string(body)
		}
		if _, err := tx.Tx.Exec(q); err != nil {
			return 0, false, c.wrap(fmt.Errorf("migration %s on %s: %w", e.Name(), c.db.d, err))
		}
		version, applied = n, true
	}
	return version, applied, nil
}

// LatestVersion is the schema version this dit migrates a catalog to
// (the number of its last migration).
func LatestVersion() int {
	ents, _ := migrations.ReadDir("sql")
	v := 0
	for _, e := range ents {
		if n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0]); err == nil && n > v {
			v = n
		}
	}
	return v
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
	}
	return false
}

// Submit queues a write for the writer goroutine. Writes are applied in
// order. Errors surface at the next Flush.
func (c *Catalog) Submit(query string, args ...any) {
	c.submit(op{query: query, args: args})
}

// submitRow queues the upsert of the row key names (setting every column
// of it): folded into an upsert of the same row still in the batch.
func (c *Catalog) submitRow(key, query string, args ...any) {
	c.submit(op{query: query, args: args, key: key})
}

func (c *Catalog) submit(o op) {
	c.opsMu.RLock()
	defer c.opsMu.RUnlock()
	if c.shut {
		return // closed: nothing more is written
	}
	c.ops <- o
}

// Flush waits until every queued write is committed and returns the first
// error the writer met since the catalog was opened.
func (c *Catalog) Flush() error {
	c.opsMu.RLock()
	shut := c.shut
	c.opsMu.RUnlock()
	if shut {
		return fmt.Errorf("catalog %s is closed", c.path)
	}
	ch := make(chan error, 1)
	select {
	case c.flushes <- ch:
	case <-c.done:
		return fmt.Errorf("catalog %s is closed", c.path)
	}
	return <-ch
}

// Exec runs one statement now, outside the batch, after flushing the queue.
func (c *Catalog) Exec(query string, args ...any) (sql.Result, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	r, err := c.db.Exec(query, args...)
	return r, c.wrap(err)
}

func (c *Catalog) writer() {
	defer close(c.done)
	const maxBatch = 500
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var batch batch
	commit := func() {
		if len(batch.ops) == 0 {
			return
		}
		err := c.commit(batch.ops)
		batch.reset()
		if err != nil {
			c.mu.Lock()
			if c.werr == nil {
				c.werr = err
			}
			c.mu.Unlock()
		}
	}
	for {
		select {
		case o, ok := <-c.ops:
			if !ok {
				commit()
				return
			}
			batch.add(o)
			if len(batch.ops) >= maxBatch {
				commit()
			}
		case <-tick.C:
			commit()
		case ch := <-c.flushes:
			// Drain what is already queued, then commit. A closed queue
			// (Close racing this flush) ends the drain: the next turn
			// sees it, commits and returns (read on, it gave an empty op
			// forever, and the batch grew until the process was killed).
		drain:
			for {
				select {
				case o, ok := <-c.ops:
					if !ok {
						break drain
					}
					batch.add(o)
				default:
					break drain
				}
			}
			commit()
			c.mu.Lock()
			ch <- c.werr
			c.mu.Unlock()
		}
	}
}

func (c *Catalog) commit(batch []op) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		err = c.tryCommit(batch)
		if err == nil || !errors.Is(err, ErrBusy) {
			return err
		}
	}
	return err
}

func (c *Catalog) tryCommit(batch []op) error {
	tx, err := c.db.Begin()
	if err != nil {
		return c.wrap(err)
	}
	// SQLite: each statement is parsed once a batch, not once a row (a
	// batch of frames' rows spent two thirds of its time in its parser).
	stmts := map[string]*stmtx{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for _, o := range batch {
		if tx.d != sqliteDialect {
			// PostgreSQL: pgx prepares each statement once a connection
			// and keeps it (a Prepare and Close a batch would be two more
			// round trips to the server).
			if _, err := tx.Exec(o.query, o.args...); err != nil {
				tx.Rollback()
				return c.wrap(fmt.Errorf("%w (in %q)", err, firstLine(o.query)))
			}
			continue
		}
		st := stmts[o.query]
		if st == nil {
			if st, err = tx.Prepare(o.query); err != nil {
				tx.Rollback()
				return c.wrap(fmt.Errorf("%w (in %q)", err, firstLine(o.query)))
			}
			stmts[o.query] = st
		}
		if _, err := st.Exec(o.args...); err != nil {
			tx.Rollback()
			return c.wrap(fmt.Errorf("%w (in %q)", err, firstLine(o.query)))
		}
	}
	if err := c.flushNames(tx); err != nil {
		tx.Rollback()
		return c.wrap(err)
	}
	return c.wrap(tx.Commit())
}

// namesPendingVersion is the schema version from which new files' names
// wait in file_names_pending (migration 0024).
const namesPendingVersion = 24

// flushNames moves the names of the files rows inserted in tx (SQLite:
// file_names_pending, filled by the insert trigger) into the names index
// (file_names) in one statement, so FTS5 writes them once a transaction
// (migration 0024). Every transaction that inserts files rows calls it
// before its commit; on PostgreSQL (or an SQLite catalog left at an older
// schema: tests) it does nothing.
func (c *Catalog) flushNames(tx *txx) error {
	if tx.d != sqliteDialect || !c.pendingNames {
		return nil
	}
	var n int
	if err := tx.Tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM file_names_pending)`).Scan(&n); err != nil || n == 0 {
		return err
	}
	if _, err := tx.Tx.Exec(`INSERT INTO file_names (rel_path, card_id) SELECT rel_path, card_id FROM file_names_pending ORDER BY rowid`); err != nil {
		return fmt.Errorf("names index: %w", err)
	}
	_, err := tx.Tx.Exec(`DELETE FROM file_names_pending`)
	return err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Close flushes pending writes, stops the writer and closes the database.
func (c *Catalog) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.Flush()
	c.opsMu.Lock()
	c.shut = true
	close(c.ops)
	c.opsMu.Unlock()
	<-c.done
	if cerr := c.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// timeLayout is how times are stored: RFC 3339 in UTC with all nine
// digits of the nanoseconds, so that their text sorts as the times do
// (RFC3339Nano drops trailing zeros: "…05.1Z" would sort after
// "…05.12Z"). Times stored by earlier versions in RFC3339Nano read the
// same.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Time formats t for storage.
func Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// ParseTime reads a stored time; empty or NULL gives the zero time.
func ParseTime(s sql.NullString) time.Time {
	if !s.Valid || s.String == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, s.String)
	return t
}
