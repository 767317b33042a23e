package catalog

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// PushResult says what pushing one job did.
type PushResult struct {
	UUID string `json:"uuid"`
	// LocalID is the job's number here, ID its number in the target.
	LocalID int64 `json:"local_job_id"`
	ID      int64 `json:"job_id"`
	// Created: the target did not hold the job; Unchanged: it held it
	// already ended as it is here, so nothing was written.
	Created   bool `json:"created"`
	Unchanged bool `json:"unchanged"`
	Cards     int  `json:"cards"`
	Files     int  `json:"files"`
	Samples   int  `json:"samples_added"`
}

func (r PushResult) String() string {
	switch {
	case r.Unchanged:
		return fmt.Sprintf("job %d already there as job %d, unchanged", r.LocalID, r.ID)
	case r.Created:
		return fmt.Sprintf("job %d is job %d there: %d cards, %d files", r.LocalID, r.ID, r.Cards, r.Files)
	}
	return fmt.Sprintf("job %d updated as job %d there: %d cards, %d files", r.LocalID, r.ID, r.Cards, r.Files)
}

// ended says whether a job state is final.
func ended(state string) bool {
	return state == JobDone || state == JobFailed || state == JobInterrupted
}

// PushJob copies job id, with its destinations, cards, files, copies,
// clips, skipped entries, samples, runs and plans, into the catalog to (a
// shared catalog, usually PostgreSQL), in one transaction there. The job
// is known there by its UUID: pushed again, it is updated in place, never
// held twice; a job already there in the same ended state is left as it
// is. Mid-file resume checkpoints (partials) stay on the cart.
func (c *Catalog) PushJob(id int64, to *Catalog) (PushResult, error) {
	var res PushResult
	j, err := c.Job(id)
	if err != nil {
		return res, err
	}
	if j.UUID == "" || j.Station == "" {
		// A job recorded before version 10: named now, here, for good.
		j.UUID, j.Station = cmpOr(j.UUID, newUUID()), cmpOr(j.Station, c.station)
		if _, err := c.Exec(`UPDATE jobs SET uuid=?, station=? WHERE id=?`, j.UUID, j.Station, id); err != nil {
			return res, err
		}
	}
	res.UUID, res.LocalID = j.UUID, id
	var raw struct{ state, host string }
	if err := c.db.QueryRow(`SELECT state, host FROM jobs WHERE id=?`, id).Scan(&raw.state, &raw.host); err != nil {
		return res, c.wrap(err)
	}
	dests, err := c.Dests(id)
	if err != nil {
		return res, err
	}
	cards, err := c.Cards(id)
	if err != nil {
		return res, err
	}
	samples, err := c.Samples(id)
	if err != nil {
		return res, err
	}
	runs, err := c.Runs(id)
	if err != nil {
		return res, err
	}
	plans, err := c.Plans(id)
	if err != nil {
		return res, err
	}
	if err := to.Flush(); err != nil {
		return res, err
	}
	tx, err := to.db.Begin()
	if err != nil {
		return res, to.wrap(err)
	}
	defer tx.Rollback()
	if to.db.d == postgresDialect {
		// One push at a time: two carts pushing the same job (a cart and
		// dit catalog sync) wait for each other instead of both inserting.
		if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, int64(ApplicationID)+1); err != nil {
			return res, to.wrap(err)
		}
	}
	var there struct {
		state    string
		finished sql.NullString
	}
	err = tx.QueryRow(`SELECT id, state, finished FROM jobs WHERE uuid=?`, j.UUID).Scan(&res.ID, &there.state, &there.finished)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res.Created = true
		res.ID, err = to.db.insertID(tx, `INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,mhl,ignore,started,finished,error,then_parallel,station,uuid)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, j.Name, raw.state, raw.host, j.ToolVersion, j.PID, j.Hashes, j.VerifyMode, j.VerifyHashes,
			j.Layout, j.OnConflict, j.IncludeHidden, j.MHL, strings.Join(j.Ignore, "\n"), Time(j.Started), nullTime(j.Finished), j.Error,
			max(j.ThenParallel, 1), j.Station, j.UUID)
		if err != nil {
			return res, to.wrap(fmt.Errorf("job %d (%s): %w", id, j.UUID, err))
		}
	case err != nil:
		return res, to.wrap(err)
	case ended(raw.state) && there.state == raw.state && there.finished.String == Time(j.Finished):
		res.Unchanged = true
		return res, nil
	default:
		if _, err := tx.Exec(`UPDATE jobs SET name=?, state=?, host=?, tool_version=?, pid=?, mhl=?, ignore=?, finished=?, error=?, station=? WHERE id=?`,
			j.Name, raw.state, raw.host, j.ToolVersion, j.PID, j.MHL, strings.Join(j.Ignore, "\n"), nullTime(j.Finished), j.Error, j.Station, res.ID); err != nil {
			return res, to.wrap(err)
		}
	}
	destID := map[int64]int64{}
	for _, d := range dests {
		var tid int64
		if err := tx.QueryRow(`INSERT INTO destinations (job_id,seq,path,hop) VALUES (?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET path=excluded.path, hop=excluded.hop RETURNING id`, res.ID, d.Seq, d.Path, d.Hop).Scan(&tid); err != nil {
			return res, to.wrap(fmt.Errorf("destination %s: %w", d.Path, err))
		}
		destID[d.ID] = tid
	}
	cardID := map[int64]int64{}
	// Hop-1 cards first: a hop-2 card names its hop-1 card.
	for _, hop := range []int{1, 2} {
		for _, k := range cards {
			if max(k.Hop, 1) != hop {
				continue
			}
			var from any
			if k.FromCard != 0 {
				from = cardID[k.FromCard]
			}
			var tid int64
			if err := tx.QueryRow(`INSERT INTO cards (job_id,seq,label,path,volume_id,bytes,files,state,copy_started,copy_finished,verify_started,verify_finished,sealed,error,hop,from_card,done_at,eject)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
				ON CONFLICT (job_id,seq) DO UPDATE SET label=excluded.label, path=excluded.path, volume_id=excluded.volume_id, bytes=excluded.bytes,
				files=excluded.files, state=excluded.state, copy_started=excluded.copy_started, copy_finished=excluded.copy_finished,
				verify_started=excluded.verify_started, verify_finished=excluded.verify_finished, sealed=excluded.sealed, error=excluded.error,
				hop=excluded.hop, from_card=excluded.from_card, done_at=excluded.done_at, eject=excluded.eject RETURNING id`,
				res.ID, k.Seq, k.Label, k.Path, k.VolumeID, k.Bytes, k.Files, k.State, nullTime(k.CopyStarted), nullTime(k.CopyFinished),
				nullTime(k.VerifyStarted), nullTime(k.VerifyFinished), nullTime(k.Sealed), k.Error, max(k.Hop, 1), from, nullTime(k.DoneAt), k.Eject).Scan(&tid); err != nil {
				return res, to.wrap(fmt.Errorf("card %s: %w", k.Label, err))
			}
			cardID[k.ID] = tid
			res.Cards++
		}
	}
	for _, k := range cards {
		files, err := c.Files(k.ID)
		if err != nil {
			return res, err
		}
		for _, f := range files {
			g := *f
			g.CardID = cardID[k.ID]
			q, args := fileUpsert(&g)
			if _, err := tx.Exec(q, args...); err != nil {
				return res, to.wrap(fmt.Errorf("file %s/%s: %w", k.Label, f.Rel, err))
			}
			for _, cp := range f.Copies {
				cp.DestID = destID[cp.DestID]
				q, args := copyUpsert(g.CardID, f.Rel, &cp)
				if _, err := tx.Exec(q, args...); err != nil {
					return res, to.wrap(fmt.Errorf("copy of %s/%s: %w", k.Label, f.Rel, err))
				}
			}
			res.Files++
		}
		clips, err := c.Clips(k.ID)
		if err != nil {
			return res, err
		}
		if _, err := tx.Exec(`DELETE FROM clips WHERE card_id=?`, cardID[k.ID]); err != nil {
			return res, to.wrap(err)
		}
		for i, x := range clips {
			if _, err := tx.Exec(`INSERT INTO clips (`+clipCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
				cardID[k.ID], i+1, x.Name, x.Reel, x.Family, x.Camera, x.Type, x.Codec, x.Poster, x.Files, x.Bytes,
				x.Frames, x.FPS, x.Seconds, x.Resolution, x.TCStart, x.Serial, x.Verified, x.Thumb, x.ThumbNote); err != nil {
				return res, to.wrap(fmt.Errorf("clip %s of %s: %w", x.Name, k.Label, err))
			}
		}
		skips, err := c.Skipped(k.ID)
		if err != nil {
			return res, err
		}
		for _, s := range skips {
			q, args := skipUpsert(cardID[k.ID], s)
			if _, err := tx.Exec(q, args...); err != nil {
				return res, to.wrap(err)
			}
		}
	}
	// Samples are only ever appended, in order: the target has the first
	// n of them already.
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM samples WHERE job_id=?`, res.ID).Scan(&n); err != nil {
		return res, to.wrap(err)
	}
	for _, s := range samples[min(n, len(samples)):] {
		var card, dest any
		if s.CardID != 0 {
			card = cardID[s.CardID]
		}
		if s.DestID != 0 {
			dest = destID[s.DestID]
		}
		var secs any
		if s.Seconds > 0 {
			secs = s.Seconds
		}
		if _, err := tx.Exec(`INSERT INTO samples (job_id,card_id,dest_id,t,bytes,rate,phase,seconds) VALUES (?,?,?,?,?,?,?,?)`,
			res.ID, card, dest, Time(s.T), s.Bytes, s.Rate, s.Phase, secs); err != nil {
			return res, to.wrap(err)
		}
		res.Samples++
	}
	for _, r := range runs {
		if _, err := tx.Exec(`INSERT INTO runs (job_id,seq,started,finished) VALUES (?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET started=excluded.started, finished=excluded.finished`,
			res.ID, r.Seq, Time(r.Started), nullTime(r.Finished)); err != nil {
			return res, to.wrap(err)
		}
	}
	for _, p := range plans {
		var pid int64
		if err := tx.QueryRow(`INSERT INTO plans (job_id,seq,t,reason,simulated,scale,total_rate,bottleneck,detail) VALUES (?,?,?,?,?,?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET t=excluded.t RETURNING id`,
			res.ID, p.Seq, Time(p.T), p.Reason, p.Simulated, p.Scale, p.Total, p.Bottleneck, p.Detail).Scan(&pid); err != nil {
			return res, to.wrap(err)
		}
		for _, k := range p.Cards {
			var card, eta any
			if k.CardID != 0 {
				card = cardID[k.CardID]
			}
			if k.ETASeconds != nil {
				eta = *k.ETASeconds
			}
			if _, err := tx.Exec(`INSERT INTO plan_cards (plan_id,name,card_id,rate,limited_by,eta_s) VALUES (?,?,?,?,?,?)
				ON CONFLICT (plan_id,name) DO NOTHING`, pid, k.Name, card, k.Rate, k.LimitedBy, eta); err != nil {
				return res, to.wrap(err)
			}
		}
	}
	return res, to.wrap(tx.Commit())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Push pushes every job of this catalog to the catalog to (see PushJob),
// oldest first, and returns what each push did; it stops at the first
// error.
func (c *Catalog) Push(to *Catalog) ([]PushResult, error) {
	jobs, err := c.Jobs()
	if err != nil {
		return nil, err
	}
	var out []PushResult
	for i := len(jobs) - 1; i >= 0; i-- {
		r, err := c.PushJob(jobs[i].ID, to)
		if err != nil {
			return out, fmt.Errorf("pushing job %d (%s) to %s: %w", jobs[i].ID, jobs[i].Name, to.Path(), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// syncHook pushes a job to another catalog when it ends.
type syncHook struct {
	to     string
	report func(jobID int64, r PushResult, err error)
}

// SyncOnJobEnd makes every job that ends (done, failed or interrupted)
// be pushed to the catalog at to (opened then, created if needed); report
// is told how it went. A target that cannot be reached (a connection
// timeout of 5 s unless the URL sets one) leaves the job here, to be
// pushed by dit catalog sync.
func (c *Catalog) SyncOnJobEnd(to string, report func(jobID int64, r PushResult, err error)) {
	if IsPostgresURL(to) && !strings.Contains(to, "connect_timeout=") {
		if u, err := url.Parse(to); err == nil {
			q := u.Query()
			q.Set("connect_timeout", "5")
			u.RawQuery = q.Encode()
			to = u.String()
		}
	}
	c.sync = &syncHook{to: to, report: report}
}

// jobEnded runs the sync hook for job id, if one is set.
func (c *Catalog) jobEnded(id int64) {
	if c.sync == nil {
		return
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	to, err := Open(c.sync.to)
	if err != nil {
		c.sync.report(id, PushResult{}, err)
		return
	}
	defer to.Close()
	r, err := c.PushJob(id, to)
	c.sync.report(id, r, err)
}
