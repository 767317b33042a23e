package catalog

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// Job states.
const (
	JobRunning     = "running"
	JobInterrupted = "interrupted"
	JobDone        = "done"
	JobFailed      = "failed"
	// JobFinishing: every card has ended; the job's reports are being
	// written. A job left finishing by a process that is gone has every
	// copy and hash list recorded but not its reports: dit offload
	// --resume finishes it.
	JobFinishing = "finishing"
)

// Card states beyond the engine's file states: a card is "sealing" once
// every file reached its final state, until its hash lists are written on
// every destination (then "verified", "copied" or "failed").
const CardSealing = "sealing"

// Job is a row of jobs.
type Job struct {
	ID            int64
	Name          string
	State         string
	Host          string
	ToolVersion   string
	PID           int
	Hashes        string
	VerifyMode    string
	VerifyHashes  string
	Layout        string
	OnConflict    string
	IncludeHidden bool
	// MHL is the hash lists written into each card's folder: asc, v1,
	// both or none ("" is recorded as asc).
	MHL string
	// Ignore are the job's ignore patterns (--ignore, --ignore-file).
	Ignore []string
	// ThenParallel is how many cards a cascade's second run copies at
	// once (dit offload --then-parallel).
	ThenParallel int
	// Proxies are the job's editorial proxies (dit offload --proxies):
	// "PRESET[,burnin]", "" none; ProxiesTo the destinations they go to.
	// ProxiesUnrecorded: the job was recorded before schema version 18,
	// which did not record them (Proxies and ProxiesTo are empty).
	Proxies           string
	ProxiesTo         []string
	ProxiesUnrecorded bool
	// RcloneConfig is the rclone configuration file of the job's cloud
	// destinations (--rclone-config, absolute; "" rclone's own choice),
	// CloudBwLimit their upload limit in bytes/s (0 none).
	RcloneConfig string
	CloudBwLimit int64
	Started      time.Time
	Finished     time.Time
	Error        string
	// Station is the cart that ran the job (dit --station; recorded
	// from the catalog's station when empty). UUID names the job in
	// every catalog that holds it (set when empty).
	Station string
	UUID    string
	// Active: a live process is running or finishing the job (read from
	// the state, the host and the pid; not stored).
	Active bool
}

// Card is a row of cards.
type Card struct {
	ID, JobID      int64
	Seq            int
	Label, Path    string
	VolumeID       string
	Bytes          int64
	Files          int
	State          string
	CopyStarted    time.Time
	CopyFinished   time.Time
	VerifyStarted  time.Time
	VerifyFinished time.Time
	// Sealed is the time of the card's hash lists (set when sealing
	// starts, kept until they are written; zero before).
	Sealed time.Time
	Error  string
	// Hop is 1 for a card read from the card itself, 2 for a cascade's
	// second run: the card's first copy (FromCard is the hop-1 card)
	// copied to the second-run destinations.
	Hop      int
	FromCard int64
	// DoneAt is when the card reached its final state (verified: copied,
	// read back and sealed). For a hop-1 card of a cascade: card free.
	DoneAt time.Time
	// Eject is what happened when dit watch ejected the card ("" : not
	// asked to).
	Eject string
}

// Dest is a row of destinations.
type Dest struct {
	ID, JobID int64
	Seq       int
	Path      string
	// Hop: 1 for the first run's destinations (written from the card), 2
	// for a cascade's second run (written from the first copy).
	Hop int
}

// Run is the run that writes d: its Hop, or 1 for a row recorded before
// hops were (Hop 0).
func (d *Dest) Run() int { return max(d.Hop, 1) }

// File is a row of files with its copies.
type File struct {
	CardID       int64
	Rel          string
	Size         int64
	Mtime        time.Time
	State        string
	Sums         hashing.Sums
	Error        string
	CopyStarted  time.Time
	CopyFinished time.Time
	Copies       []Copy
}

// Copy is a row of copies: one file on one destination.
type Copy struct {
	DestID      int64
	Path        string
	State       string
	Written     bool
	VerifyAlgos string
	VerifiedAt  time.Time
	Error       string
	// Identity is the copy's identity on its medium when it was read back
	// and verified (fsys.Identity; '' when unknown).
	Identity string
}

// Skip is a row of skipped.
type Skip struct {
	Rel, Kind, Reason string
}

// Sample is a row of samples. DestID 0 is the card's read side. Seconds
// is the interval the sample covers, ending at T (0: not recorded, a
// catalog before version 5): the sampler's second, or, for the card's
// own row, its part of it when the card started or ended within it.
type Sample struct {
	CardID, DestID int64
	T              time.Time
	Bytes          int64
	Rate           float64
	Phase          string
	Seconds        float64
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t time.Time) any { return nullStr(Time(t)) }

// CreateJob inserts j now and sets j.ID.
func (c *Catalog) CreateJob(j *Job) error {
	if j.MHL == "" {
		j.MHL = "asc"
	}
	if j.Station == "" {
		j.Station = c.station
	}
	if j.UUID == "" {
		j.UUID = newUUID()
	}
	if err := c.Flush(); err != nil {
		return err
	}
	id, err := c.db.insertID(c.db, `INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,mhl,ignore,started,then_parallel,station,uuid,proxies,proxies_to,rclone_config,cloud_bwlimit)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, j.Name, j.State, j.Host, j.ToolVersion, j.PID, j.Hashes, j.VerifyMode,
		j.VerifyHashes, j.Layout, j.OnConflict, j.IncludeHidden, j.MHL, strings.Join(j.Ignore, "\n"), Time(j.Started), max(j.ThenParallel, 1),
		j.Station, j.UUID, j.Proxies, strings.Join(j.ProxiesTo, "\n"), j.RcloneConfig, j.CloudBwLimit)
	if err != nil {
		return c.wrap(err)
	}
	j.ID = id
	return nil
}

// SetJobState records a job's state now (not batched).
func (c *Catalog) SetJobState(id int64, state string, finished time.Time, errText string) error {
	_, err := c.Exec(`UPDATE jobs SET state=?, finished=?, error=? WHERE id=?`, state, nullTime(finished), errText, id)
	if err == nil && state != JobRunning && state != JobFinishing {
		c.jobEnded(id)
	}
	return err
}

// ClaimJob marks a job as running in this process (for resume).
func (c *Catalog) ClaimJob(id int64, host string, pid int) error {
	_, err := c.Exec(`UPDATE jobs SET state=?, host=?, pid=?, finished=NULL, error='' WHERE id=?`, JobRunning, host, pid, id)
	return err
}

// AddCard inserts a card now and sets its ID.
func (c *Catalog) AddCard(k *Card) error {
	if k.Hop == 0 {
		k.Hop = 1
	}
	var from any
	if k.FromCard != 0 {
		from = k.FromCard
	}
	if err := c.Flush(); err != nil {
		return err
	}
	id, err := c.db.insertID(c.db, `INSERT INTO cards (job_id,seq,label,path,volume_id,bytes,files,state,hop,from_card) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		k.JobID, k.Seq, k.Label, k.Path, k.VolumeID, k.Bytes, k.Files, k.State, k.Hop, from)
	if err != nil {
		return c.wrap(err)
	}
	k.ID = id
	return nil
}

// UpdateCard queues the card's mutable fields.
func (c *Catalog) UpdateCard(k *Card) {
	c.Submit(`UPDATE cards SET volume_id=?, bytes=?, files=?, state=?, copy_started=?, copy_finished=?, verify_started=?, verify_finished=?, sealed=?, done_at=?, error=? WHERE id=?`,
		k.VolumeID, k.Bytes, k.Files, k.State, nullTime(k.CopyStarted), nullTime(k.CopyFinished),
		nullTime(k.VerifyStarted), nullTime(k.VerifyFinished), nullTime(k.Sealed), nullTime(k.DoneAt), k.Error, k.ID)
}

// AddDest inserts a destination now and sets its ID.
func (c *Catalog) AddDest(d *Dest) error {
	if d.Hop == 0 {
		d.Hop = 1
	}
	if err := c.Flush(); err != nil {
		return err
	}
	id, err := c.db.insertID(c.db, `INSERT INTO destinations (job_id,seq,path,hop) VALUES (?,?,?,?)`, d.JobID, d.Seq, d.Path, d.Hop)
	if err != nil {
		return c.wrap(err)
	}
	d.ID = id
	return nil
}

// PutFile queues an insert-or-update of a file row (not its copies).
func (c *Catalog) PutFile(f *File) {
	q, args := fileUpsert(f)
	c.submitRow(fileKey(f.CardID, f.Rel), q, args...)
}

// fileUpsert is the statement PutFile queues.
func fileUpsert(f *File) (string, []any) {
	s := f.Sums
	return `INSERT INTO files (card_id,rel_path,size,mtime_ns,state,md5,sha1,xxh64,xxh3,xxh128,c4,blake3,error,copy_started,copy_finished)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (card_id,rel_path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns, state=excluded.state,
		md5=excluded.md5, sha1=excluded.sha1, xxh64=excluded.xxh64, xxh3=excluded.xxh3, xxh128=excluded.xxh128,
		c4=excluded.c4, blake3=excluded.blake3, error=excluded.error, copy_started=excluded.copy_started,
		copy_finished=excluded.copy_finished`, []any{f.CardID, f.Rel, f.Size, f.Mtime.UnixNano(), f.State,
			nullStr(s.Get(hashing.MD5)), nullStr(s.Get(hashing.SHA1)), nullStr(s.Get(hashing.XXH64)), nullStr(s.Get(hashing.XXH3)),
			nullStr(s.Get(hashing.XXH128)), nullStr(s.Get(hashing.C4)), nullStr(s.Get(hashing.BLAKE3)),
			f.Error, nullTime(f.CopyStarted), nullTime(f.CopyFinished)}
}

// PutCopy queues an insert-or-update of one file's copy on one destination.
func (c *Catalog) PutCopy(cardID int64, rel string, cp *Copy) {
	q, args := copyUpsert(cardID, rel, cp)
	c.submitRow(copyKey(cardID, rel, cp.DestID), q, args...)
}

// copyUpsert is the statement PutCopy queues.
func copyUpsert(cardID int64, rel string, cp *Copy) (string, []any) {
	return `INSERT INTO copies (card_id,rel_path,dest_id,path,state,written,verify_algos,verified_at,error,identity) VALUES (?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (card_id,rel_path,dest_id) DO UPDATE SET path=excluded.path, state=excluded.state, written=excluded.written,
		verify_algos=excluded.verify_algos, verified_at=excluded.verified_at, error=excluded.error, identity=excluded.identity`,
		[]any{cardID, rel, cp.DestID, cp.Path, cp.State, cp.Written, cp.VerifyAlgos, nullTime(cp.VerifiedAt), cp.Error, cp.Identity}
}

// PutSkipped queues a skipped entry.
func (c *Catalog) PutSkipped(cardID int64, s Skip) {
	q, args := skipUpsert(cardID, s)
	c.Submit(q, args...)
}

func skipUpsert(cardID int64, s Skip) (string, []any) {
	return `INSERT INTO skipped (card_id,rel_path,kind,reason) VALUES (?,?,?,?)
		ON CONFLICT (card_id,rel_path) DO UPDATE SET kind=excluded.kind, reason=excluded.reason`, []any{cardID, s.Rel, s.Kind, s.Reason}
}

// PutSample queues a throughput sample.
func (c *Catalog) PutSample(jobID int64, s Sample) {
	var dest any
	if s.DestID != 0 {
		dest = s.DestID
	}
	var secs any
	if s.Seconds > 0 {
		secs = s.Seconds
	}
	c.Submit(`INSERT INTO samples (job_id,card_id,dest_id,t,bytes,rate,phase,seconds) VALUES (?,?,?,?,?,?,?,?)`,
		jobID, s.CardID, dest, Time(s.T), s.Bytes, s.Rate, s.Phase, secs)
}

// ErrNoJob is returned for a job id that is not in the catalog.
var ErrNoJob = errors.New("no such job")

const jobCols = `id,name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,mhl,ignore,started,finished,error,then_parallel,station,uuid,proxies,proxies_to,rclone_config,cloud_bwlimit`

func scanJob(row interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var started, finished sql.NullString
	var ignore, proxiesTo string
	var proxies sql.NullString
	if err := row.Scan(&j.ID, &j.Name, &j.State, &j.Host, &j.ToolVersion, &j.PID, &j.Hashes, &j.VerifyMode,
		&j.VerifyHashes, &j.Layout, &j.OnConflict, &j.IncludeHidden, &j.MHL, &ignore, &started, &finished, &j.Error, &j.ThenParallel, &j.Station, &j.UUID,
		&proxies, &proxiesTo, &j.RcloneConfig, &j.CloudBwLimit); err != nil {
		return nil, err
	}
	if ignore != "" {
		j.Ignore = strings.Split(ignore, "\n")
	}
	j.Proxies, j.ProxiesUnrecorded = proxies.String, !proxies.Valid
	if proxiesTo != "" {
		j.ProxiesTo = strings.Split(proxiesTo, "\n")
	}
	j.Started, j.Finished = ParseTime(started), ParseTime(finished)
	j.State, j.Active = effectiveState(&j)
	return &j, nil
}

// effectiveState shows a running job whose process is gone as interrupted
// (a finishing one stays finishing) and says whether a process is still
// at work on it (on another host: assumed so).
func effectiveState(j *Job) (string, bool) {
	if j.State != JobRunning && j.State != JobFinishing {
		return j.State, false
	}
	host, _ := os.Hostname()
	if j.Host == host && j.PID > 0 && !processAlive(j.PID) {
		if j.State == JobRunning {
			return JobInterrupted, false
		}
		return j.State, false
	}
	return j.State, true
}

// Jobs lists jobs, newest first.
func (c *Catalog) Jobs() ([]*Job, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT ` + jobCols + ` FROM jobs ORDER BY id DESC`)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, c.wrap(err)
		}
		out = append(out, j)
	}
	return out, c.wrap(rows.Err())
}

// Job returns one job, or an error wrapping ErrNoJob.
func (c *Catalog) Job(id int64) (*Job, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	j, err := scanJob(c.db.QueryRow(`SELECT `+jobCols+` FROM jobs WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("job %d: %w in %s (see dit jobs)", id, ErrNoJob, c.path)
	}
	return j, c.wrap(err)
}

// Cards lists a job's cards in command-line order.
func (c *Catalog) Cards(jobID int64) ([]*Card, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT id,job_id,seq,label,path,volume_id,bytes,files,state,copy_started,copy_finished,verify_started,verify_finished,sealed,error,hop,from_card,done_at,eject
		FROM cards WHERE job_id=? ORDER BY seq`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []*Card
	for rows.Next() {
		var k Card
		var t [6]sql.NullString
		var from sql.NullInt64
		if err := rows.Scan(&k.ID, &k.JobID, &k.Seq, &k.Label, &k.Path, &k.VolumeID, &k.Bytes, &k.Files, &k.State,
			&t[0], &t[1], &t[2], &t[3], &t[4], &k.Error, &k.Hop, &from, &t[5], &k.Eject); err != nil {
			return nil, c.wrap(err)
		}
		k.CopyStarted, k.CopyFinished, k.VerifyStarted, k.VerifyFinished = ParseTime(t[0]), ParseTime(t[1]), ParseTime(t[2]), ParseTime(t[3])
		k.Sealed, k.DoneAt, k.FromCard = ParseTime(t[4]), ParseTime(t[5]), from.Int64
		out = append(out, &k)
	}
	return out, c.wrap(rows.Err())
}

// Dests lists a job's destinations in command-line order.
func (c *Catalog) Dests(jobID int64) ([]*Dest, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT id,job_id,seq,path,hop FROM destinations WHERE job_id=? ORDER BY seq`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []*Dest
	for rows.Next() {
		var d Dest
		if err := rows.Scan(&d.ID, &d.JobID, &d.Seq, &d.Path, &d.Hop); err != nil {
			return nil, c.wrap(err)
		}
		out = append(out, &d)
	}
	return out, c.wrap(rows.Err())
}

// Files lists a card's files with their copies, sorted by path.
func (c *Catalog) Files(cardID int64) ([]*File, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	out, byRel, err := c.queryFiles(cardID, `ORDER BY rel_path`, []any{cardID})
	if err != nil {
		return nil, err
	}
	if err := c.addCopies(byRel, ``, []any{cardID}); err != nil {
		return nil, err
	}
	return out, nil
}

// Skipped lists a card's skipped entries.
func (c *Catalog) Skipped(cardID int64) ([]Skip, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT rel_path,kind,reason FROM skipped WHERE card_id=? ORDER BY rel_path`, cardID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Skip
	for rows.Next() {
		var s Skip
		if err := rows.Scan(&s.Rel, &s.Kind, &s.Reason); err != nil {
			return nil, c.wrap(err)
		}
		out = append(out, s)
	}
	return out, c.wrap(rows.Err())
}

// Samples lists a job's throughput samples in time order.
func (c *Catalog) Samples(jobID int64) ([]Sample, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT card_id, COALESCE(dest_id,0), t, bytes, rate, phase, COALESCE(seconds,0) FROM samples WHERE job_id=? ORDER BY id`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		var s Sample
		var t sql.NullString
		var card sql.NullInt64
		if err := rows.Scan(&card, &s.DestID, &t, &s.Bytes, &s.Rate, &s.Phase, &s.Seconds); err != nil {
			return nil, c.wrap(err)
		}
		s.CardID, s.T = card.Int64, ParseTime(t)
		out = append(out, s)
	}
	return out, c.wrap(rows.Err())
}

// FirstRun keeps the cards read from the cards themselves (hop 1), in
// order, leaving out a cascade's second runs: the job's cards as the DIT
// named them.
func FirstRun(ks []*Card) []*Card {
	out := make([]*Card, 0, len(ks))
	for _, k := range ks {
		if k.Hop <= 1 {
			out = append(out, k)
		}
	}
	return out
}

// SetCardEject records what happened when the card was ejected (now).
func (c *Catalog) SetCardEject(cardID int64, what string) error {
	_, err := c.Exec(`UPDATE cards SET eject=? WHERE id=?`, what, cardID)
	return err
}

// FailCopy queues the withdrawal of a copy found bad after it was
// verified (it differs from the card, or is gone): the copy on dest
// becomes failed with why, and its file too (the card is then not safe
// to format, and not "already offloaded" there).
func (c *Catalog) FailCopy(cardID int64, rel string, destID int64, why string) {
	c.Submit(`UPDATE copies SET state='failed', verified_at=NULL, error=? WHERE card_id=? AND rel_path=? AND dest_id=?`, why, cardID, rel, destID)
	c.Submit(`UPDATE files SET state='failed', error=? WHERE card_id=? AND rel_path=?`, why, cardID, rel)
}

// FailedFiles counts the failed files of each card of a job, by card id
// (cards with none are absent): a card whose row says verified may have
// had a copy withdrawn since (dit verify, a cascade's second run).
func (c *Catalog) FailedFiles(jobID int64) (map[int64]int, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT f.card_id, count(*) FROM files f JOIN cards k ON k.id=f.card_id
		WHERE k.job_id=? AND f.state='failed' GROUP BY f.card_id`, jobID)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, c.wrap(err)
		}
		out[id] = n
	}
	return out, c.wrap(rows.Err())
}

// DropStrayCopies deletes a job's copies rows that put a card on a
// destination of the other run of a cascade (a hop-1 card on a --then
// destination, or its second run on a -d one): no offload writes them; a
// dit verify before this version did, and they doubled the counts.
func (c *Catalog) DropStrayCopies(jobID int64) error {
	_, err := c.Exec(`DELETE FROM copies WHERE card_id IN (SELECT id FROM cards WHERE job_id=?)
		AND EXISTS (SELECT 1 FROM cards k, destinations d WHERE k.id=copies.card_id AND d.id=copies.dest_id AND d.hop<>k.hop)`, jobID)
	return err
}

// DeleteJob removes job id and everything recorded under it (its cards,
// destinations, files, copies, samples, runs). It is for a job refused
// before its first byte was written (a read-only or too small
// destination): such a refusal leaves no job behind.
func (c *Catalog) DeleteJob(id int64) error {
	if err := c.Flush(); err != nil {
		return err
	}
	tx, err := c.db.Begin()
	if err != nil {
		return c.wrap(err)
	}
	defer tx.Rollback()
	cards := `SELECT id FROM cards WHERE job_id=?`
	for _, q := range []string{
		`DELETE FROM partials WHERE card_id IN (` + cards + `)`,
		`DELETE FROM clips WHERE card_id IN (` + cards + `)`,
		`DELETE FROM proxies WHERE job_id=?`,
		`DELETE FROM copies WHERE card_id IN (` + cards + `)`,
		`DELETE FROM skipped WHERE card_id IN (` + cards + `)`,
		`DELETE FROM files WHERE card_id IN (` + cards + `)`,
		`DELETE FROM card_totals WHERE card_id IN (` + cards + `)`,
		`DELETE FROM samples WHERE job_id=?`,
		`DELETE FROM live WHERE job_id=?`,
		`DELETE FROM plan_cards WHERE card_id IN (` + cards + `) OR plan_id IN (SELECT id FROM plans WHERE job_id=?)`,
		`DELETE FROM plans WHERE job_id=?`,
		`DELETE FROM runs WHERE job_id=?`,
		`UPDATE cards SET from_card=NULL WHERE job_id=?`,
		`DELETE FROM cards WHERE job_id=?`,
		`DELETE FROM destinations WHERE job_id=?`,
		`DELETE FROM jobs WHERE id=?`,
	} {
		args := []any{id}
		if strings.Count(q, "?") == 2 {
			args = append(args, id)
		}
		if _, err := tx.Exec(q, args...); err != nil {
			return c.wrap(fmt.Errorf("deleting job %d: %w", id, err))
		}
	}
	return c.wrap(tx.Commit())
}

// RestoreJob puts job id back as it was (prev: its record read before a
// resume claimed it): a resume refused before it started (no room, a
// destination locked, a card that cannot be read) leaves the job as it
// found it, never failed.
func (c *Catalog) RestoreJob(id int64, prev *Job) error {
	_, err := c.Exec(`UPDATE jobs SET state=?, finished=?, error=?, host=?, pid=? WHERE id=?`,
		prev.State, nullTime(prev.Finished), prev.Error, prev.Host, prev.PID, id)
	return err
}

// UndoRun takes back run seq of job id, a resume that found nothing to do:
// the run is deleted and the job is as it was before (prev: its record
// read before the resume claimed it), finish time, error, host and pid
// included. Nothing is pushed (--sync-to): nothing changed.
func (c *Catalog) UndoRun(id int64, seq int, prev *Job) error {
	if err := c.Flush(); err != nil {
		return err
	}
	tx, err := c.db.Begin()
	if err != nil {
		return c.wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM runs WHERE job_id=? AND seq=?`, id, seq); err != nil {
		return c.wrap(err)
	}
	if _, err := tx.Exec(`UPDATE jobs SET state=?, finished=?, error=?, host=?, pid=? WHERE id=?`,
		prev.State, nullTime(prev.Finished), prev.Error, prev.Host, prev.PID, id); err != nil {
		return c.wrap(err)
	}
	return c.wrap(tx.Commit())
}
