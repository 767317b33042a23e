package offload

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/resume"
	"github.com/dit-org/dit/internal/source"
)

// Resume reopens an interrupted job with the JobSpec it was started with:
// the same cards, destinations and settings (hashes, verification, layout,
// conflicts, hidden files, ignore patterns, proxies and hash lists: o.MHL
// "" takes the recorded choice, a different one is refused, see
// ResumeMHL); of o it
// uses the Env and the Hooks. Files verified on every destination are not
// copied again (unless the card changed), leftover temps are removed, and
// the rest is copied and verified.
func Resume(ctx context.Context, cat *catalog.Catalog, jobID int64, o Options) (_ *Job, retErr error) {
	rec, err := cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Active:
		return nil, fmt.Errorf("job %d is still %s (pid %d on %s): wait for it, or stop it first", jobID, rec.State, rec.PID, rec.Host)
	case rec.State == catalog.JobDone:
		// A finished job may be resumed to retry failed files.
	case rec.State == catalog.JobFinishing:
		// Every card ended; the hash lists or reports are missing.
	}
	// A job done whose reports failed is not done with: its reports are
	// written again.
	wasDone := rec.State == catalog.JobDone && !strings.HasPrefix(rec.Error, ReportsNotWritten)
	o, algos, err := resumeOptions(cat, rec, o)
	if err != nil {
		return nil, err
	}
	// Its cloud destinations are checked as a new job's are, before the
	// job is touched: a remote that cannot be reached (its configuration
	// gone, rclone missing) leaves the job as it was.
	if err := checkStores(ctx, o); err != nil {
		return nil, fmt.Errorf("job %d not resumed (left as it was): %w", jobID, err)
	}
	j := &Job{opts: o, cat: cat, rec: rec, algos: algos, valgos: verifyAlgos(algos, o.VerifyAll),
		jobResume: jobResume{resume: true, wasDone: wasDone, before: *rec}, turns: cascade.NewTurns(o.ThenParallel)}
	if runs, err := cat.Runs(jobID); err == nil && len(runs) > 0 {
		j.prevRunDied = runs[len(runs)-1].Finished.IsZero()
	}
	if err := j.resumeDests(jobID); err != nil {
		return nil, err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	if err := cat.ClaimJob(jobID, host, os.Getpid()); err != nil {
		return nil, err
	}
	defer func() {
		if retErr != nil {
			// Refused before it started (no room, a destination locked, a
			// card that cannot be read): the job is left as it was,
			// never turned failed; the error says why.
			if err := cat.RestoreJob(jobID, &j.before); err != nil {
				retErr = fmt.Errorf("%w (and job %d could not be put back as it was: %v)", retErr, jobID, err)
			}
		}
	}()
	j.rec.State = catalog.JobRunning
	var seconds []*catalog.Card
	for _, k := range cards {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch resume.TakeupOf(k, resume.Mounted) {
		case resume.SecondRun:
			seconds = append(seconds, k) // read from the first copy: after the arrays are open
			continue
		case resume.NotMounted:
			j.absentCard(k)
			continue
		}
		if err := j.resumeCard(k, jobID); err != nil {
			return nil, err
		}
	}
	if err := j.mountArrays(); err != nil {
		return nil, err
	}
	for _, k := range seconds {
		if err := j.resumeSecond(k); err != nil {
			j.Close()
			return nil, err
		}
	}
	if err := j.lockAndPlan(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// resumeOptions are o with the JobSpec the job rec was started with (a
// resumed job keeps it: recordedSpec), and its hashes.
func resumeOptions(cat *catalog.Catalog, rec *catalog.Job, o Options) (Options, []hashing.Algo, error) {
	mhl, err := ResumeMHL(rec, o.MHL)
	if err != nil {
		return o, nil, err
	}
	spec, err := recordedSpec(cat, rec)
	if err != nil {
		return o, nil, err
	}
	algos := spec.Hashes
	spec.MHL = mhl
	if rec.ProxiesUnrecorded {
		// Recorded before a job's proxies were: those given.
		spec.Proxies, spec.ProxiesTo = o.Proxies, o.ProxiesTo
	}
	o.JobSpec = spec
	o.Catalog = cat
	o.defaults()
	o.ThenParallel = max(rec.ThenParallel, 1)
	if err := o.settleRemote(); err != nil {
		return o, nil, err
	}
	return o, algos, nil
}

// recordedSpec is the JobSpec New recorded for job rec: its row, its
// first-run cards and its destinations (hop 1: Dests, hop 2: Then), in
// the order recorded. MHL is as recorded ("" for asc: ResumeMHL).
func recordedSpec(cat *catalog.Catalog, rec *catalog.Job) (JobSpec, error) {
	algos, err := hashing.ParseList(rec.Hashes)
	if err != nil {
		return JobSpec{}, err
	}
	s := JobSpec{Name: rec.Name, Hashes: algos, Verify: VerifyMode(rec.VerifyMode), VerifyAll: rec.VerifyHashes == "all",
		Layout: rec.Layout, OnConflict: Conflict(rec.OnConflict), IncludeHidden: rec.IncludeHidden, Ignore: rec.Ignore,
		ThenParallel: rec.ThenParallel, MHL: rec.MHL, Proxies: rec.Proxies, ProxiesTo: rec.ProxiesTo,
		RcloneConfig: rec.RcloneConfig, RemoteBwLimit: rec.CloudBwLimit}
	cards, err := cat.Cards(rec.ID)
	if err != nil {
		return JobSpec{}, err
	}
	dests, err := cat.Dests(rec.ID)
	if err != nil {
		return JobSpec{}, err
	}
	r := resume.RecordedPaths(cards, dests)
	s.Cards, s.Dests, s.Then = r.Cards, r.Dests, r.Then
	return s, nil
}

// resumeDests takes up the job's destinations, each of which must be
// there.
func (j *Job) resumeDests(jobID int64) error {
	dests, err := j.cat.Dests(jobID)
	if err != nil {
		return err
	}
	for _, d := range dests {
		if dest.IsRemote(d.Path) {
			j.dests = append(j.dests, &destination{root: d.Path, rec: d})
			continue
		}
		if err := resume.DestThere(d.Path, jobID); err != nil {
			return err
		}
		j.dests = append(j.dests, &destination{root: d.Path, rec: d})
	}
	return nil
}

// absentCard takes up a card verified before and not mounted now: in
// a cascade free (its second run reads the first copy), the card is not
// needed. Its run reads again its copies that are not vouched for
// (recheckAbsent) and warns that the card is not needed, or that it is
// not free after all (absentNotice).
func (j *Job) absentCard(k *catalog.Card) {
	out, _ := ExpandLayout(j.opts.Layout, j.opts.Name, k.Label, j.rec.Started)
	cr := j.newCardRun(&source.Card{Root: k.Path, Label: k.Label}, k, out, false)
	cr.prevState, cr.absent = k.State, true
	j.cards = append(j.cards, cr)
}

// absentNotice warns that absent card c is not needed by this resume,
// or, when copies of it were found bad since it was verified (found now:
// found of them, or before: dit verify, a second run), that it is not
// free and must be mounted again.
func (c *cardRun) absentNotice(found int) {
	j, k := c.j, c.rec
	a := resume.Absent{Label: k.Label, Path: k.Path, DoneAt: k.DoneAt, Cascade: j.cascade(),
		Bad: withdrawn(j.cat, k), Found: found, JobID: j.rec.ID}
	j.emit(Event{Type: EvWarning, Card: k.Label, Message: a.Notice()})
}

// resumeCard takes up a hop-1 card: scanned again, with what the job
// recorded of it (files, checkpoints).
func (j *Job) resumeCard(k *catalog.Card, jobID int64) error {
	o, cat := j.opts, j.cat
	sc, records, err := ScanCard(o.FS, k.Path, o.IncludeHidden, o.Ignore...)
	if err != nil {
		return fmt.Errorf("card %s of job %d: %w", k.Label, jobID, err)
	}
	out, err := ExpandLayout(o.Layout, o.Name, k.Label, j.rec.Started)
	if err != nil {
		return err
	}
	prevState := k.State
	k.Bytes, k.Files, k.VolumeID = sc.Bytes, sc.Files.Len(), sc.VolumeID
	cr := j.newCardRun(sc, k, out, true)
	cr.prevState, cr.history = prevState, records
	if cr.partials, err = cat.Partials(k.ID); err != nil {
		return err
	}
	j.cards = append(j.cards, cr)
	return nil
}

// withdrawn counts the files of verified card k that failed since (a copy
// found bad by dit verify or a cascade's second run).
func withdrawn(cat *catalog.Catalog, k *catalog.Card) int {
	n, err := cat.FailedFiles(k.JobID)
	if err != nil {
		return 0
	}
	return n[k.ID]
}
