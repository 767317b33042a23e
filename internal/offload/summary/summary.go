package summary

import (
	"fmt"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// Exit codes of a job (Summary.ExitCode), dit's exit status for it; dit's
// --help lists them with the CLI's own (cmd/dit: ExitUsage, ExitDamage).
const (
	ExitOK          = 0   // every file verified (or copied, with --verify none)
	ExitFatal       = 1   // nothing or not everything could be attempted
	ExitSomeFailed  = 3   // finished, some files failed: see the summary
	ExitInterrupted = 130 // interrupted: resume with --resume JOB
)

// Summary is a job as the front ends report it. It is built from the
// catalog, so a finished, interrupted or running job reads the same way.
// Its states (Status, each card's and each run's) are the verdict model's
// (package verdict): the only place that decides what a job, a card or a
// run is, "safe to format" included. State, StoredState in JSON, is what
// the catalog records, for diagnosis only.
type Summary struct {
	JobID    int64         `json:"job_id"`
	Name     string        `json:"name"`
	Status   verdict.State `json:"state"`
	State    string        `json:"stored_state"`
	ExitCode int           `json:"exit_code"`
	Host     string        `json:"host"`
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished,omitzero"`
	Hashes   string        `json:"hashes"`
	Verify   string        `json:"verify"`
	Layout   string        `json:"layout"`
	// Destinations are the -d folders, in command-line order; Then a
	// cascade's second-run destinations (--then), filled from the first
	// copy.
	Destinations []string `json:"destinations"`
	Then         []string `json:"then,omitempty"`
	// JobFigures are the job's files, bytes, failures, times and TB/hour,
	// as the job report gives them (model.go).
	JobFigures
	// NothingToDo: a resume of a done job that found nothing to copy,
	// verify, seal or report; it changed nothing in the catalog.
	NothingToDo bool          `json:"nothing_to_do,omitempty"`
	Cards       []CardSummary `json:"cards"`
	// Plans are the bus-budget plan and each re-plan, when the job ran
	// with a scheduler (dit offload --topology, --simulate, --limit).
	Plans []catalog.Plan `json:"plans,omitempty"`
	// Warnings are what the job's arrays noticed while it ran (a blade
	// missing or returning bad data, damaged metadata): the copies may
	// still be verified, but the array needs attention. Only in the
	// summary that Run returns, not kept in the catalog.
	Warnings []string `json:"warnings,omitempty"`
	// Resumed is what a resume trusted from earlier runs and what it read
	// again (nil: not a resume). Only in the summary Run returns.
	Resumed *ResumeNote `json:"resumed,omitempty"`
}

// CardSummary is one card of a Summary.
type CardSummary struct {
	// CardFigures are the card's label, verdict, files, bytes, times and
	// TB/hour, as the job report gives them (model.go); its second run
	// is Then.
	CardFigures
	Path  string `json:"path"`
	State string `json:"stored_state"`
	// FirstRun is the state of the card's copy to the -d destinations
	// (in a cascade, its first run).
	FirstRun     verdict.State `json:"first_run"`
	Skipped      int           `json:"skipped"` // how many entries were skipped
	Destinations []DestSummary `json:"destinations"`
	// Failures are the run's first FailuresListed failed files, by path,
	// then what else failed (its hash lists), always listed;
	// FailuresMore counts the failed files left out (Failed counts them
	// all): a card of a million frames that all failed is not carried
	// whole into every status, list and report (dit job show JOB lists
	// them all).
	Failures     []Failure `json:"failures,omitempty"`
	FailuresMore int       `json:"failures_more,omitempty"`
	// Advice is what the run's every failure says to do next, those
	// left out of Failures counted too (AdviceOf reads it).
	Advice CardAdvice  `json:"advice,omitzero"`
	Then   *HopSummary `json:"then,omitempty"`
}

// HopSummary is a card's second run in a cascade: its first copy (Source)
// copied to the --then destinations.
type HopSummary struct {
	Source string        `json:"source"` // the first copy read: its first-run destination's path (DestSummary.Path)
	Status verdict.State `json:"state"`
	State  string        `json:"stored_state"`
	// Files and Bytes are the card's files the second run copied (those
	// of its first run); HashListFiles the files of the first copy's
	// hash lists (its ascmhl/ history) it copied with them: the second
	// run's progress counts both (Files + HashListFiles).
	Files         int           `json:"files"`
	Bytes         int64         `json:"bytes"`
	HashListFiles int           `json:"hash_list_files,omitempty"`
	Failed        int           `json:"failed"`
	CopyStarted   time.Time     `json:"copy_started,omitzero"`
	CopyFinished  time.Time     `json:"copy_finished,omitzero"`
	DoneAt        time.Time     `json:"done_at,omitzero"`
	BytesCopied   int64         `json:"bytes_copied"`
	TBPerHour     float64       `json:"tb_per_hour"`
	Destinations  []DestSummary `json:"destinations"`
	// Failures, FailuresMore and Advice: as the card's (CardSummary).
	Failures     []Failure  `json:"failures,omitempty"`
	FailuresMore int        `json:"failures_more,omitempty"`
	Advice       CardAdvice `json:"advice,omitzero"`
}

// DestSummary counts one card's files on one destination.
//
// Path is the card's folder there as a path to open: DEST/JOB/CARD on a
// folder; in a dit array, below the array's mount point when it is
// mounted, else below its mount place (raid/mountplace: where dit array
// mount mounts it), so a path that opens once MountCommand has run;
// never array:BLADE//PATH (that only when the array cannot be identified,
// its superblock unreadable). The array's fields say, for a copy in a
// dit array, which array it is in, its location as dit's commands take
// it (array:BLADE//PATH: dit array ls, dit array extract, dit mhl
// verify, mounted or not), whether it was mounted when the summary was
// read and the command that mounts it.
type DestSummary struct {
	Path         string `json:"path"`
	ArrayUUID    string `json:"array_uuid,omitempty"`
	ArrayPath    string `json:"array_path,omitempty"`
	ArrayMounted *bool  `json:"array_mounted,omitempty"`
	MountCommand string `json:"mount_command,omitempty"` // when not mounted
	Verified     int    `json:"verified"`
	Copied       int    `json:"copied"` // copied or present, not (yet) verified
	Failed       int    `json:"failed"`
	Skipped      int    `json:"skipped"`
}

// destSummary is the card's folder out on destination root, before its
// counts: where it opens and, in a dit array, the array's fields (res
// looks at each root and array once).
func destSummary(res *mountplace.Resolver, root, out string) DestSummary {
	if !raid.IsBlade(root) {
		return DestSummary{Path: dest.DisplayPathIn(root, out, false)}
	}
	ds := DestSummary{ArrayPath: dest.DisplayPathIn(root, out, true)}
	p := res.PlaceOf(root)
	if p == nil {
		ds.Path = ds.ArrayPath // the array cannot be identified
		return ds
	}
	ds.Path, _ = res.Path(root, out)
	ds.ArrayUUID, ds.ArrayMounted = p.UUID, &p.Mounted
	if !p.Mounted {
		ds.MountCommand = p.MountCommand()
	}
	return ds
}

// LoadSummary reads a job's summary from the catalog.
//
// A job without a cascade is read from its cards' totals (the catalog's
// per-card counts of files and copies by state, [catalog.Catalog.JobTotals])
// and its failed files, not from every file: the same facts, counted as
// the rows were written. A cascade's are read file by file (its second
// run counts only the card's files, not the hash lists copied with them).
//
// Each run lists its first FailuresListed failed files (LoadListing:
// as many as asked) and counts the others.
func LoadSummary(cat *catalog.Catalog, jobID int64) (*Summary, error) {
	return loadSummary(cat, jobID, 0, nil, false, FailuresListed)
}

// LoadListing is LoadSummary listing up to listed failed files of each
// run (the job report lists more than a status does).
func LoadListing(cat *catalog.Catalog, jobID int64, listed int) (*Summary, error) {
	return loadSummary(cat, jobID, 0, nil, false, listed)
}

// LoadFileByFile is LoadSummary read file by file rather than from the
// cards' totals: the same summary, slower (the tests compare the two).
func LoadFileByFile(cat *catalog.Catalog, jobID int64) (*Summary, error) {
	return loadSummary(cat, jobID, 0, nil, true, FailuresListed)
}

// EndedCard is the summary of hop-1 card cardID as its run (or its
// second run) ended in this process: no state of work, though the job
// still runs (interrupted: the run was stopped).
func EndedCard(cat *catalog.Catalog, jobID, cardID int64, interrupted bool) (*CardSummary, error) {
	f := &verdict.Facts{JobStored: catalog.JobRunning}
	if interrupted {
		f.JobStored = catalog.JobInterrupted
	}
	s, err := loadSummary(cat, jobID, cardID, f, false, FailuresListed)
	if err != nil {
		return nil, err
	}
	if len(s.Cards) != 1 {
		return nil, fmt.Errorf("job %d: card %d not in the catalog", jobID, cardID)
	}
	return &s.Cards[0], nil
}

// loadSummary is LoadSummary of every card (only 0) or of hop-1 card
// only, decided on the job's facts or on facts if set; perFile: read
// every file even without a cascade (what the totals are checked
// against); listed: the failed files each run lists.
func loadSummary(cat *catalog.Catalog, jobID, only int64, facts0 *verdict.Facts, perFile bool, listed int) (*Summary, error) {
	j, err := cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	dests, err := cat.Dests(jobID)
	if err != nil {
		return nil, err
	}
	act, err := jobActivity(cat, jobID, cards)
	if err != nil {
		return nil, err
	}
	active := RoundSeconds(act.Active.Seconds())
	s := &Summary{JobID: j.ID, Name: j.Name, State: j.State, Host: j.Host, Started: j.Started, Finished: j.Finished,
		Hashes: j.Hashes, Verify: j.VerifyMode, Layout: j.Layout, JobFigures: JobFigures{Runs: act.Runs, BytesCopied: act.BytesCopied,
			ActiveSeconds: active, PausedSeconds: RoundSeconds(act.Paused.Seconds()),
			TBPerHour: TBPerHour(act.BytesCopied, active)}}
	var first, later []*catalog.Dest
	for _, d := range dests {
		if d.Run() == 2 {
			later = append(later, d)
		} else {
			first = append(first, d)
		}
	}
	for _, d := range first {
		s.Destinations = append(s.Destinations, d.Path)
	}
	for _, d := range later {
		s.Then = append(s.Then, d.Path)
	}
	second := map[int64]*catalog.Card{}
	for _, k := range cards {
		if k.Hop == 2 {
			second[k.FromCard] = k
		}
	}
	var tots map[int64]*catalog.CardTotals
	if len(later) == 0 && !perFile {
		if tots, err = cat.JobTotals(jobID); err != nil {
			return nil, err
		}
	}
	facts := jobFacts(j)
	if facts0 != nil {
		facts.Active, facts.JobStored = facts0.Active, facts0.JobStored
	}
	var states []verdict.State
	res := mountplace.NewResolver() // each array looked at once
	for _, k := range cards {
		if k.Hop == 2 || (only != 0 && k.ID != only) {
			continue // with its card; or not asked for
		}
		var tot *catalog.CardTotals
		if tots != nil {
			if tot = tots[k.ID]; tot == nil {
				tot = &catalog.CardTotals{CardID: k.ID} // no file yet
			}
		}
		cs, err := cardSummary(cat, j, k, first, act, res, nil, facts, tot, listed)
		if err != nil {
			return nil, err
		}
		if len(later) > 0 {
			cascadeVerdict(j, facts, &cs, k, second[k.ID], func(h *catalog.Card) (CardSummary, error) {
				// The second run copies the first copy's folder: the
				// card's files and the first run's hash lists with them;
				// its counts are of the card's files (as the report's).
				return cardSummary(cat, j, h, later, act, res, k, facts, nil, listed)
			})
			if cs.Then != nil {
				s.Failed += cs.Then.Failed
			}
		}
		states = append(states, cs.Status)
		s.Files += cs.Files
		s.Bytes += cs.Bytes
		s.Failed += cs.Failed
		s.Cards = append(s.Cards, cs)
	}
	// Reports not written: the job's process is gone while it was
	// writing them (reports that failed leave the job done, with a
	// warning), or a catalog of an older dit recorded it so.
	s.Status = verdict.JobState(facts, states, j.State == catalog.JobFinishing && (j.Error != "" || !j.Active))
	if s.Plans, err = cat.Plans(jobID); err != nil {
		return nil, err
	}
	if !s.Finished.IsZero() {
		s.Seconds = RoundSeconds(s.Finished.Sub(s.Started).Seconds())
	} else {
		// Not finished (killed, or running): from the first start to the
		// end of the last run, a killed run ending at its last sample.
		s.Seconds = s.ActiveSeconds + s.PausedSeconds
	}
	s.ExitCode = ExitCode(s.Status, j.State == catalog.JobFailed)
	return s, nil
}

// ExitCode is the exit code of a job in state st (fatal: it stopped on
// an error of its own).
func ExitCode(st verdict.State, fatal bool) int {
	switch {
	case st == verdict.Interrupted:
		return ExitInterrupted
	case fatal:
		return ExitFatal
	case st == verdict.Done:
		return ExitOK
	}
	return ExitSomeFailed // failed, or still running: not every card is safe yet
}

// jobFacts is what the verdict model needs of job j: a process at work on
// it (a finishing job's cards have all ended: its verdict is known), its
// recorded state and whether it verifies.
func jobFacts(j *catalog.Job) verdict.Facts {
	return verdict.Facts{Active: j.Active && j.State == catalog.JobRunning, JobStored: j.State,
		VerifyNone: j.VerifyMode == "none"}
}

// cardSummary is card k's summary on the destinations dests (one run's).
// of, if set, is the card whose files are counted (a cascade's second
// run k: the files of its card of, not the hash lists copied with them);
// every failed file is counted (its first listed listed), and safe to
// format needs every file verified. tot, if set (and of nil), are the
// card's totals, read instead of its files. res says where a folder in
// a dit array opens (destSummary).
func cardSummary(cat *catalog.Catalog, j *catalog.Job, k *catalog.Card, dests []*catalog.Dest, act *Activity, res *mountplace.Resolver, of *catalog.Card, facts verdict.Facts, tot *catalog.CardTotals, listed int) (CardSummary, error) {
	var cs CardSummary
	skipped, err := cat.SkippedCount(k.ID)
	if err != nil {
		return cs, err
	}
	cs = CardSummary{CardFigures: CardFigures{Label: k.Label, Files: k.Files, Bytes: k.Bytes, CopyStarted: k.CopyStarted,
		CopyFinished: k.CopyFinished, VerifyStart: k.VerifyStarted, VerifyEnd: k.VerifyFinished}, Path: k.Path, State: k.State,
		Skipped: skipped.N}
	for _, d := range dests {
		out, _ := dest.ExpandLayout(j.Layout, j.Name, k.Label, j.Started)
		cs.Destinations = append(cs.Destinations, destSummary(res, d.Path, out))
	}
	var allVerified bool
	if tot != nil && of == nil {
		allVerified, err = countTotals(cat, k, dests, tot, &cs, listed)
	} else {
		allVerified, err = countFiles(cat, k, dests, of, &cs, listed)
	}
	if err != nil {
		return cs, err
	}
	unreadable := skipped.Unreadable > 0
	// Verified only when every file scanned is verified on every
	// destination, nothing on the card was unreadable, and the card (its
	// hash lists written) finished: the verdict model decides.
	run := verdict.Run{Stored: k.State, AllVerified: allVerified, Failed: cs.Failed, Unreadable: unreadable}
	cs.FirstRun = verdict.RunState(facts, run)
	cs.Status = verdict.CardState(facts, cs.FirstRun, false, "")
	cs.SafeToFormat = cs.Status.SafeToFormat()
	cs.Verdict = runVerdict(j, k, &cs, unreadable)
	if cs.SafeToFormat {
		cs.SafeAt = k.DoneAt
	}
	if ca := act.Cards[k.ID]; ca != nil {
		cs.BytesCopied, cs.TBPerHour = ca.BytesCopied, ca.EndToEndTBPerHour()
	}
	return cs, nil
}

// countFiles counts card k's files and their copies on dests into cs,
// file by file, and says whether every file is verified on every
// destination (and the card's every file recorded). of, if set, is the
// card whose files are counted (k a cascade's second run of it): k's
// other files (the hash lists copied with them) are not counted but
// listed when failed and must be verified all the same.
//
// The files are walked (catalog.EachFile), not listed: memory does not
// grow with the card's files. What is held is the first listed failed
// files (in cs, the others counted) and, with of, the paths of k's
// files that are not of's (notOf: the second run's hash lists, a few
// whatever the card holds).
func countFiles(cat *catalog.Catalog, k *catalog.Card, dests []*catalog.Dest, of *catalog.Card, cs *CardSummary, listed int) (bool, error) {
	var extra map[string]bool
	if of != nil {
		var err error
		if extra, err = notOf(cat, k.ID, of.ID); err != nil {
			return false, err
		}
		cs.Files, cs.Bytes = 0, 0
	}
	idx := map[int64]int{}
	for i, d := range dests {
		idx[d.ID] = i
	}
	n, verifiedAll := 0, 0
	err := cat.EachFile(k.ID, nil, func(f *catalog.File) error {
		n++
		if walked != nil {
			walked()
		}
		if f.State == StateFailed {
			cs.Failed++
			cs.addFailed(f.Rel, f.Error, listed)
		}
		counted := of == nil || !extra[f.Rel]
		if of != nil && counted {
			cs.Files++
			cs.Bytes += f.Size
		}
		// Only the copies on dests (OnDests) are the run's.
		on, ok := 0, true
		for _, cp := range f.Copies {
			i, mine := idx[cp.DestID]
			if !mine {
				continue
			}
			on++
			if !counted {
				// Not counted; it still has to be verified.
				ok = ok && cp.State == StateVerified
				continue
			}
			ds := &cs.Destinations[i]
			switch cp.State {
			case StateVerified:
				ds.Verified++
			case StateCopied, StatePresent:
				ds.Copied++
				ok = false
			case StateSkipped:
				ds.Skipped++
				ok = false
			default:
				ds.Failed++
				ok = false
			}
		}
		if ok && on == len(dests) && f.State == StateVerified {
			verifiedAll++
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return verifiedAll == k.Files && n == k.Files, nil
}

// walked, if set (tests), is called with each file countFiles walks: the
// memory tests sample the live heap there.
var walked func()

// notOf are the paths of card k's files that are no file of card of:
// for a cascade's second run k of card of, the first copy's hash lists
// copied with the card's files. The database compares the paths (a
// join on its key, no order of paths assumed); only these few are held.
func notOf(cat *catalog.Catalog, k, of int64) (map[string]bool, error) {
	rows, err := cat.Query(`SELECT rel_path FROM files f WHERE f.card_id=?
		AND NOT EXISTS (SELECT 1 FROM files g WHERE g.card_id=? AND g.rel_path=f.rel_path)`, k, of)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var rel string
		if err := rows.Scan(&rel); err != nil {
			return nil, err
		}
		out[rel] = true
	}
	return out, rows.Err()
}

// countTotals is countFiles read from the card's totals: the same counts
// (every copies row is a copy of one of the card's files: the engine
// records a file before its copies), and the failed files walked alone
// (the first listed listed, each one's advice counted).
func countTotals(cat *catalog.Catalog, k *catalog.Card, dests []*catalog.Dest, tot *catalog.CardTotals, cs *CardSummary, listed int) (bool, error) {
	n := tot.NFiles()
	cs.Failed = tot.Files[StateFailed]
	if cs.Failed > 0 {
		err := cat.EachFailedFile(k.ID, func(f catalog.File) error {
			if walked != nil {
				walked()
			}
			cs.addFailed(f.Rel, f.Error, listed)
			return nil
		})
		if err != nil {
			return false, err
		}
	}
	all := n == k.Files && tot.Files[StateVerified] == n
	for i, d := range dests {
		c := tot.Copies[d.ID]
		ds := &cs.Destinations[i]
		ds.Verified, ds.Copied, ds.Skipped = c[StateVerified], c[StateCopied]+c[StatePresent], c[StateSkipped]
		ds.Failed = tot.NCopies(d.ID) - ds.Verified - ds.Copied - ds.Skipped
		all = all && ds.Verified == n
	}
	return all, nil
}

// OnDests keeps the copies on the destinations in idx (one run's): the
// rows a dit verify before 0.x wrote for a cascade's card on the other
// run's destinations are not its copies.
func OnDests(cps []catalog.Copy, idx map[int64]int) []catalog.Copy {
	out := cps[:0:0]
	for _, cp := range cps {
		if _, ok := idx[cp.DestID]; ok {
			out = append(out, cp)
		}
	}
	return out
}

// runVerdict is the sentence that says why card k's first run (or, for a
// card without a cascade, the card) is in its state.
func runVerdict(j *catalog.Job, k *catalog.Card, cs *CardSummary, unreadable bool) string {
	if k.State == catalog.CardSealing && cs.Status.Ended() {
		// What kept the lists from being written (the card's own
		// failures are listed with their files).
		waits, written, aside := false, false, false
		for _, part := range strings.Split(k.Error, "; ") {
			w := strings.HasPrefix(part, HistoryWaits)
			if strings.HasPrefix(part, "hash lists not written") || part == "interrupted" || w {
				cs.addOther("(hash lists)", part)
			}
			waits = waits || w
			written = written || strings.Contains(part, HistoryWritten)
			aside = aside || strings.Contains(part, MoveHistoryAside)
		}
		if written && cs.Failed == 0 {
			return "Copies checked, but the card's cloud history, written by this job before, cannot list them all: NOT safe to format by this job (offload it again to another cloud folder)"
		}
		if waits {
			return fmt.Sprintf("FAILED: %s: NOT safe to format (%s)", historyWaitsWhy(cs.Failed), historyWaitsNext(j.ID, cs.Failed))
		}
		if cs.Failed > 0 {
			return fmt.Sprintf("FAILED, and hash lists not written: NOT safe to format (fix the failures, then resume job %d)", j.ID)
		}
		if aside {
			return fmt.Sprintf("Copies checked, hash lists not written: NOT safe to format (%s)", historyAsideNext(j.ID))
		}
		return fmt.Sprintf("Copies checked, hash lists not written: NOT safe to format (resuming job %d writes them)", j.ID)
	}
	switch cs.FirstRun {
	case verdict.Verified:
		return "Verified: safe to format"
	case verdict.Sealing:
		return "Writing the hash lists: NOT safe to format yet"
	case verdict.Queued:
		return "Queued: NOT safe to format yet"
	case verdict.Copying:
		return "Copying: NOT safe to format yet"
	case verdict.Verifying:
		return "Verifying: NOT safe to format yet"
	case verdict.Interrupted:
		return "Interrupted: NOT safe to format (resume the job)"
	case verdict.Copied:
		return "Copied, not verified: NOT safe to format"
	}
	switch {
	case cs.Failed > 0:
		return "FAILED: NOT safe to format"
	case unreadable:
		return "Incomplete (unreadable entries on the card): NOT safe to format"
	case k.State == StateVerified:
		return "FAILED: not every copy is verified (a copy was found different since): NOT safe to format"
	}
	return "FAILED: NOT safe to format"
}

// cascadeVerdict turns the summary of hop-1 card k (cs: on the first-run
// destinations) into the card's in a cascade: free when the first run
// verified it, safe to format only when its second run h verified it too.
func cascadeVerdict(j *catalog.Job, facts verdict.Facts, cs *CardSummary, k, h *catalog.Card, second func(*catalog.Card) (CardSummary, error)) {
	cs.CardFree = cs.FirstRun == verdict.Verified
	cs.SafeToFormat, cs.SafeAt = false, time.Time{}
	if cs.CardFree {
		cs.FreeAt = k.DoneAt
	}
	var hs CardSummary
	var s2 verdict.State
	if h != nil {
		var err error
		if hs, err = second(h); err != nil {
			hs.addOther("(second run)", err.Error())
		}
		s2 = hs.FirstRun
		cs.Then = &HopSummary{Source: hs.Path, Status: s2, State: h.State, Files: hs.Files, Bytes: hs.Bytes, Failed: hs.Failed,
			CopyStarted: h.CopyStarted, CopyFinished: h.CopyFinished, DoneAt: h.DoneAt, BytesCopied: hs.BytesCopied,
			TBPerHour: hs.TBPerHour, Destinations: hs.Destinations, Failures: hs.Failures, FailuresMore: hs.FailuresMore,
			Advice: hs.Advice, HashListFiles: max(h.Files-hs.Files, 0)}
		if len(cs.Destinations) > 0 {
			cs.Then.Source = cs.Destinations[0].Path
		}
		if h.State == StateFailed && h.Error != "" && hs.Failed == 0 {
			cs.Then.Failures = append(cs.Then.Failures, Failure{Path: "(second run)", Error: h.Error})
			cs.Then.Advice.note(h.Error)
			cs.Then.Failed++
		}
	}
	cs.Status = verdict.CardState(facts, cs.FirstRun, true, s2)
	if !cs.CardFree {
		return // the first run's verdict says why
	}
	free := "card free since " + cs.FreeAt.Local().Format("15:04:05")
	switch {
	case cs.Status == verdict.Safe:
		cs.SafeToFormat, cs.SafeAt = true, h.DoneAt
		cs.Verdict = "Verified: safe to format"
	case h != nil && h.State == catalog.CardSealing && cs.Status.Ended() && strings.Contains(h.Error, HistoryWritten):
		cs.Verdict = fmt.Sprintf("Second run: copies checked, but the card's cloud history, written by this job before, cannot list them all (%s): NOT safe to format by this job: keep the card (offload it again to another cloud folder)", free)
	case h != nil && h.State == catalog.CardSealing && cs.Status.Ended() && historyWaited(h):
		cs.Verdict = fmt.Sprintf("Second run FAILED (%s): %s: NOT safe to format: keep the card (%s)", free, historyWaitsWhy(hs.Failed), historyWaitsNext(j.ID, hs.Failed))
	case h != nil && h.State == catalog.CardSealing && cs.Status.Ended() && hs.Failed == 0 && strings.Contains(h.Error, MoveHistoryAside):
		cs.Verdict = fmt.Sprintf("Second run: copies checked, hash lists not written (%s): NOT safe to format (%s)", free, historyAsideNext(j.ID))
	case h != nil && h.State == catalog.CardSealing && cs.Status.Ended() && hs.Failed == 0:
		cs.Verdict = fmt.Sprintf("Second run: copies checked, hash lists not written (%s): NOT safe to format (resuming job %d writes them)", free, j.ID)
	case cs.Status == verdict.Failed:
		cs.Verdict = "Second run FAILED (" + free + "): NOT safe to format: keep the card"
	case cs.Status == verdict.CardFree:
		cs.Verdict = "Card free (" + free + "): second run not done: NOT safe to format yet"
	default:
		cs.Verdict = fmt.Sprintf("Card free (%s), second run not done: NOT safe to format (resuming job %d finishes it)", free, j.ID)
	}
}

// historyWaited: card (run) k ended with its history not written to a
// cloud destination because a file is not verified there (HistoryWaits).
func historyWaited(k *catalog.Card) bool {
	for _, part := range strings.Split(k.Error, "; ") {
		if strings.HasPrefix(part, HistoryWaits) {
			return true
		}
	}
	return false
}

// historyWaitsWhy says why a cloud run's history is not written: failed
// files not verified in the cloud.
func historyWaitsWhy(failed int) string {
	if failed == 0 {
		return "not every file is verified in the cloud, so the card's history is not written there"
	}
	return NFiles(failed) + " not verified in the cloud, so the card's history is not written there"
}

// historyWaitsNext says what writes it.
func historyWaitsNext(jobID int64, failed int) string {
	what := "what is missing"
	if failed > 0 {
		what = ItThem(failed)
	}
	return fmt.Sprintf("dit offload --resume %d uploads %s and writes the history", jobID, what)
}

// historyAsideNext says what writes a cloud history whose folder holds
// objects of another one (MoveHistoryAside).
func historyAsideNext(jobID int64) string {
	return fmt.Sprintf("where the history's objects are gone, resuming job %d writes them; where an object of another history is there: move the card's whole ascmhl/ folder in the cloud aside, then resume job %d", jobID, jobID)
}
