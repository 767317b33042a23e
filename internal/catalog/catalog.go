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
	path string
	db   *sql.DB

	ops     chan op
	flushes chan chan error
	done    chan struct{}
	mu      sync.Mutex
	werr    error // first error of the writer goroutine
	closed  bool
}

type op struct {
	query string
	args  []any
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
func Open(path string) (*Catalog, error) {
	if path == "" {
		path = DefaultPath()
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
	return openAbs(abs)
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
	return openAbs(abs)
}

// openAbs opens the catalog file abs (an absolute path).
func openAbs(abs string) (*Catalog, error) {
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
	c := &Catalog{path: abs, db: db}
	if err := c.init(); err != nil {
		db.Close()
		return nil, err
	}
	c.ops = make(chan op, 4096)
	c.flushes = make(chan chan error)
	c.done = make(chan struct{})
	go c.writer()
	return c, nil
}

// Path returns the catalog's file path.
func (c *Catalog) Path() string { return c.path }

// DB gives read access for queries in other packages (reports).
func (c *Catalog) DB() *sql.DB { return c.db }

func (c *Catalog) wrap(err error) error {
	if err == nil {
		return nil
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
func (c *Catalog) init() error {
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
	ents, err := migrations.ReadDir("sql")
	if err != nil {
		return err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
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
	applied := false
	for _, e := range ents {
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: bad number", e.Name())
		}
		if n <= version {
			continue
		}
		body, err := migrations.ReadFile("sql/" + e.Name())
		if err != nil {
			return err
		}
		if _, err := tx.Exec(string(body)); err != nil {
			return c.wrap(fmt.Errorf("migration %s: %w", e.Name(), err))
		}
		version, applied = n, true
	}
	if !applied {
		return nil
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version=%d; PRAGMA application_id=%d", version, ApplicationID)); err != nil {
		return c.wrap(err)
	}
	return c.wrap(tx.Commit())
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
	c.ops <- op{query: query, args: args}
}

// Flush waits until every queued write is committed and returns the first
// error the writer met since the catalog was opened.
func (c *Catalog) Flush() error {
	ch := make(chan error, 1)
	c.flushes <- ch
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
	var batch []op
	commit := func() {
		if len(batch) == 0 {
			return
		}
		err := c.commit(batch)
		batch = batch[:0]
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
			batch = append(batch, o)
			if len(batch) >= maxBatch {
				commit()
			}
		case <-tick.C:
			commit()
		case ch := <-c.flushes:
			// Drain what is already queued, then commit.
		drain:
			for {
				select {
				case o := <-c.ops:
					batch = append(batch, o)
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
	for attempt := 0; attempt < 3; attempt++ {
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
	for _, o := range batch {
		if _, err := tx.Exec(o.query, o.args...); err != nil {
			tx.Rollback()
			return c.wrap(fmt.Errorf("%w (in %q)", err, firstLine(o.query)))
		}
	}
	return c.wrap(tx.Commit())
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
	close(c.ops)
	<-c.done
	if cerr := c.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Time formats t for storage.
func Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTime reads a stored time; empty or NULL gives the zero time.
func ParseTime(s sql.NullString) time.Time {
	if !s.Valid || s.String == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, s.String)
	return t
}
