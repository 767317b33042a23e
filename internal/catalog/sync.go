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
	Proxies   int  `json:"proxies,omitempty"`
}

func (r PushResult) String() string {
	switch {
	case r.Unchanged:
		return fmt.Sprintf("job %d already there as job %d, unchanged", r.LocalID, r.ID)
	case r.Created:
		return fmt.Sprintf("job %d is job %d there: %d cards, %d files%s", r.LocalID, r.ID, r.Cards, r.Files, r.proxies())
	}
	return fmt.Sprintf("job %d updated as job %d there: %d cards, %d files%s", r.LocalID, r.ID, r.Cards, r.Files, r.proxies())
}

// proxies is ", N proxies" when the push carried any.
func (r PushResult) proxies() string {
	switch r.Proxies {
	case 0:
		return ""
	case 1:
		return ", 1 proxy"
	}
	return fmt.Sprintf(", %d proxies", r.Proxies)
}

// ended says whether a job state is final.
func ended(state string) bool {
	return state == JobDone || state == JobFailed || state == JobInterrupted
}

// PushJob copies job id, with its destinations, cards, files, copies,
// clips, skipped entries, samples, runs, plans and proxies, into the catalog to (a
// shared catalog, usually PostgreSQL), in one transaction there. The job
// is known there by its UUID: pushed again, it is updated in place, never
// held twice; a job already there in the same ended state is left as it
// is. Mid-file resume checkpoints (partials) stay on the cart.
func (c *Catalog) PushJob(id int64, to *Catalog) (PushResult, error) {
	p := &push{from: c, to: to, res: PushResult{LocalID: id}}
	if err := p.read(id); err != nil {
		return p.res, err
	}
	if err := to.Flush(); err != nil {
		return p.res, err
	}
	tx, err := to.db.Begin()
	if err != nil {
		return p.res, to.wrap(err)
	}
	defer tx.Rollback()
	p.tx = tx
	if to.db.d == postgresDialect {
		// One push at a time: two carts pushing the same job (a cart and
		// dit catalog sync) wait for each other instead of both inserting.
		if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, int64(ApplicationID)+1); err != nil {
			return p.res, to.wrap(err)
		}
	}
	if err := p.job(); err != nil || p.res.Unchanged {
		return p.res, err
	}
	for _, step := range []func() error{p.dests, p.cards, p.cardRows, p.samples, p.runs, p.plans, p.proxies} {
		if err := step(); err != nil {
			return p.res, err
		}
	}
	return p.res, to.wrap(tx.Commit())
}

// push is one PushJob: what it read of the job here, and the ids its
// rows got in the target.
type push struct {
	from, to *Catalog
	tx       *txx
	res      PushResult
	j        *Job
	// raw is the job's stored state and host (Job reads them as they
	// are shown).
	raw struct{ state, host string }
	ds  []*Dest
	ks  []*Card
	ss  []Sample
	rs  []Run
	ps  []Plan
	// destID and cardID map this catalog's ids to the target's.
	destID, cardID map[int64]int64
}

// read reads job id here, naming it first if it has no UUID yet.
func (p *push) read(id int64) error {
	c := p.from
	j, err := c.Job(id)
	if err != nil {
		return err
	}
	if j.UUID == "" || j.Station == "" {
		// A job recorded before version 10: named now, here, for good.
		j.UUID, j.Station = cmpOr(j.UUID, newUUID()), cmpOr(j.Station, c.station)
		if _, err := c.Exec(`UPDATE jobs SET uuid=?, station=? WHERE id=?`, j.UUID, j.Station, id); err != nil {
			return err
		}
	}
	p.j, p.res.UUID = j, j.UUID
	if err := c.db.QueryRow(`SELECT state, host FROM jobs WHERE id=?`, id).Scan(&p.raw.state, &p.raw.host); err != nil {
		return c.wrap(err)
	}
	if p.ds, err = c.Dests(id); err != nil {
		return err
	}
	if p.ks, err = c.Cards(id); err != nil {
		return err
	}
	if p.ss, err = c.Samples(id); err != nil {
		return err
	}
	if p.rs, err = c.Runs(id); err != nil {
		return err
	}
	p.ps, err = c.Plans(id)
	return err
}

// job finds the job in the target by its UUID and updates it, or
// inserts it; found there as it ended here, it sets res.Unchanged.
func (p *push) job() error {
	j, tx, to := p.j, p.tx, p.to
	var there struct {
		state    string
		finished sql.NullString
	}
	err := tx.QueryRow(`SELECT id, state, finished FROM jobs WHERE uuid=?`, j.UUID).Scan(&p.res.ID, &there.state, &there.finished)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		p.res.Created = true
		p.res.ID, err = to.db.insertID(tx, `INSERT INTO jobs (name,state,host,tool_version,pid,hashes,verify_mode,verify_hashes,layout,on_conflict,include_hidden,mhl,ignore,started,finished,error,then_parallel,station,uuid,proxies,proxies_to,rclone_config,cloud_bwlimit)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, j.Name, p.raw.state, p.raw.host, j.ToolVersion, j.PID, j.Hashes, j.VerifyMode, j.VerifyHashes,
			j.Layout, j.OnConflict, j.IncludeHidden, j.MHL, strings.Join(j.Ignore, "\n"), Time(j.Started), nullTime(j.Finished), j.Error,
			max(j.ThenParallel, 1), j.Station, j.UUID, jobProxies(j), strings.Join(j.ProxiesTo, "\n"), j.RcloneConfig, j.CloudBwLimit)
		if err != nil {
			return to.wrap(fmt.Errorf("job %d (%s): %w", p.res.LocalID, j.UUID, err))
		}
	case err != nil:
		return to.wrap(err)
	case ended(p.raw.state) && there.state == p.raw.state && ParseTime(there.finished).Equal(j.Finished):
		p.res.Unchanged = true
	default:
		if _, err := tx.Exec(`UPDATE jobs SET name=?, state=?, host=?, tool_version=?, pid=?, mhl=?, ignore=?, finished=?, error=?, station=?, proxies=?, proxies_to=? WHERE id=?`,
			j.Name, p.raw.state, p.raw.host, j.ToolVersion, j.PID, j.MHL, strings.Join(j.Ignore, "\n"), nullTime(j.Finished), j.Error, j.Station,
			jobProxies(j), strings.Join(j.ProxiesTo, "\n"), p.res.ID); err != nil {
			return to.wrap(err)
		}
	}
	return nil
}

// jobProxies is j's proxies column: NULL when j did not record them.
func jobProxies(j *Job) any {
	if j.ProxiesUnrecorded {
		return nil
	}
	return j.Proxies
}

// dests upserts the destinations by their seq.
func (p *push) dests() error {
	p.destID = map[int64]int64{}
	for _, d := range p.ds {
		var tid int64
		if err := p.tx.QueryRow(`INSERT INTO destinations (job_id,seq,path,hop) VALUES (?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET path=excluded.path, hop=excluded.hop RETURNING id`, p.res.ID, d.Seq, d.Path, d.Hop).Scan(&tid); err != nil {
			return p.to.wrap(fmt.Errorf("destination %s: %w", d.Path, err))
		}
		p.destID[d.ID] = tid
	}
	return nil
}

// cards upserts the cards by their seq, hop-1 cards first: a hop-2 card
// names its hop-1 card.
func (p *push) cards() error {
	p.cardID = map[int64]int64{}
	for _, hop := range []int{1, 2} {
		for _, k := range p.ks {
			if max(k.Hop, 1) != hop {
				continue
			}
			var from any
			if k.FromCard != 0 {
				from = p.cardID[k.FromCard]
			}
			var tid int64
			if err := p.tx.QueryRow(`INSERT INTO cards (job_id,seq,label,path,volume_id,bytes,files,state,copy_started,copy_finished,verify_started,verify_finished,sealed,error,hop,from_card,done_at,eject)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
				ON CONFLICT (job_id,seq) DO UPDATE SET label=excluded.label, path=excluded.path, volume_id=excluded.volume_id, bytes=excluded.bytes,
				files=excluded.files, state=excluded.state, copy_started=excluded.copy_started, copy_finished=excluded.copy_finished,
				verify_started=excluded.verify_started, verify_finished=excluded.verify_finished, sealed=excluded.sealed, error=excluded.error,
				hop=excluded.hop, from_card=excluded.from_card, done_at=excluded.done_at, eject=excluded.eject RETURNING id`,
				p.res.ID, k.Seq, k.Label, k.Path, k.VolumeID, k.Bytes, k.Files, k.State, nullTime(k.CopyStarted), nullTime(k.CopyFinished),
				nullTime(k.VerifyStarted), nullTime(k.VerifyFinished), nullTime(k.Sealed), k.Error, max(k.Hop, 1), from, nullTime(k.DoneAt), k.Eject).Scan(&tid); err != nil {
				return p.to.wrap(fmt.Errorf("card %s: %w", k.Label, err))
			}
			p.cardID[k.ID] = tid
			p.res.Cards++
		}
	}
	return nil
}

// cardRows upserts each card's files and copies by path, replaces its
// clips and upserts its skipped entries.
func (p *push) cardRows() error {
	tx, to := p.tx, p.to
	for _, k := range p.ks {
		tid := p.cardID[k.ID]
		// The card's files as they are read, never the card's whole.
		err := p.from.EachFile(k.ID, nil, func(f *File) error {
			g := *f
			g.CardID = tid
			q, args := fileUpsert(&g)
			if _, err := tx.Exec(q, args...); err != nil {
				return to.wrap(fmt.Errorf("file %s/%s: %w", k.Label, f.Rel, err))
			}
			for _, cp := range f.Copies {
				cp.DestID = p.destID[cp.DestID]
				q, args := copyUpsert(tid, f.Rel, &cp)
				if _, err := tx.Exec(q, args...); err != nil {
					return to.wrap(fmt.Errorf("copy of %s/%s: %w", k.Label, f.Rel, err))
				}
			}
			p.res.Files++
			return nil
		})
		if err != nil {
			return err
		}
		clips, err := p.from.Clips(k.ID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM clips WHERE card_id=?`, tid); err != nil {
			return to.wrap(err)
		}
		for i := range clips {
			q, args := clipInsert(tid, i+1, &clips[i])
			if _, err := tx.Exec(q, args...); err != nil {
				return to.wrap(fmt.Errorf("clip %s of %s: %w", clips[i].Name, k.Label, err))
			}
		}
		// The skipped entries as they are read: a card can have a "._"
		// file beside each of a million frames.
		err = p.from.EachSkipped(k.ID, func(s Skip) error {
			q, args := skipUpsert(tid, s)
			_, err := tx.Exec(q, args...)
			return to.wrap(err)
		})
		if err != nil {
			return err
		}
	}
	// The new files' names into the names index (SQLite), once.
	return to.wrap(to.flushNames(tx))
}

// proxies replaces the job's proxies in the target by its rows here
// (their cards' ids mapped; a proxy's dest is a path, the same in
// every catalog), so a job pushed twice holds them once.
func (p *push) proxies() error {
	if _, err := p.tx.Exec(`DELETE FROM proxies WHERE job_id=?`, p.res.ID); err != nil {
		return p.to.wrap(err)
	}
	return p.from.EachProxy(p.j.ID, func(x Proxy) error {
		tid, ok := p.cardID[x.CardID]
		if !ok {
			return fmt.Errorf("proxy %s of job %d: its card %d is not one of the job's", x.Clip, p.j.ID, x.CardID)
		}
		if _, err := p.tx.Exec(proxyInsert, proxyArgs(p.res.ID, tid, &x)...); err != nil {
			return p.to.wrap(fmt.Errorf("proxy %s: %w", x.Clip, err))
		}
		p.res.Proxies++
		return nil
	})
}

// samples appends the samples the target does not have yet: they are
// only ever appended, in order, so it has the first n of them.
func (p *push) samples() error {
	var n int
	if err := p.tx.QueryRow(`SELECT count(*) FROM samples WHERE job_id=?`, p.res.ID).Scan(&n); err != nil {
		return p.to.wrap(err)
	}
	for _, s := range p.ss[min(n, len(p.ss)):] {
		var card, dest any
		if s.CardID != 0 {
			card = p.cardID[s.CardID]
		}
		if s.DestID != 0 {
			dest = p.destID[s.DestID]
		}
		var secs any
		if s.Seconds > 0 {
			secs = s.Seconds
		}
		if _, err := p.tx.Exec(`INSERT INTO samples (job_id,card_id,dest_id,t,bytes,rate,phase,seconds) VALUES (?,?,?,?,?,?,?,?)`,
			p.res.ID, card, dest, Time(s.T), s.Bytes, s.Rate, s.Phase, secs); err != nil {
			return p.to.wrap(err)
		}
		p.res.Samples++
	}
	return nil
}

// runs upserts the runs by their seq.
func (p *push) runs() error {
	for _, r := range p.rs {
		if _, err := p.tx.Exec(`INSERT INTO runs (job_id,seq,started,finished) VALUES (?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET started=excluded.started, finished=excluded.finished`,
			p.res.ID, r.Seq, Time(r.Started), nullTime(r.Finished)); err != nil {
			return p.to.wrap(err)
		}
	}
	return nil
}

// plans upserts the plans by their seq, and their cards by name.
func (p *push) plans() error {
	for _, pl := range p.ps {
		var pid int64
		if err := p.tx.QueryRow(`INSERT INTO plans (job_id,seq,t,reason,simulated,scale,total_rate,bottleneck,detail,run_detail) VALUES (?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT (job_id,seq) DO UPDATE SET t=excluded.t RETURNING id`,
			p.res.ID, pl.Seq, Time(pl.T), pl.Reason, pl.Simulated, pl.Scale, pl.Total, pl.Bottleneck, pl.Detail, pl.RunDetail).Scan(&pid); err != nil {
			return p.to.wrap(err)
		}
		for _, k := range pl.Cards {
			var card, eta any
			if k.CardID != 0 {
				card = p.cardID[k.CardID]
			}
			if k.ETASeconds != nil {
				eta = *k.ETASeconds
			}
			if _, err := p.tx.Exec(`INSERT INTO plan_cards (plan_id,name,card_id,rate,limited_by,eta_s) VALUES (?,?,?,?,?,?)
				ON CONFLICT (plan_id,name) DO NOTHING`, pid, k.Name, card, k.Rate, k.LimitedBy, eta); err != nil {
				return p.to.wrap(err)
			}
		}
	}
	return nil
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
