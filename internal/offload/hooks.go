package offload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// Limiter paces the pipeline (bandwidth budgets, simulation). WaitRead is
// called before each block read from card (the index of the card in the
// job, command-line order); WaitWrite before each block written by that
// card to dest; WaitVerify before each block read back for verification:
// a copy of card on dest (or a file already at the copy's place, read to
// compare), or with dest -1 the card itself re-read (VerifySourceDest). n is the bytes about to be read or written. All must
// return early with ctx.Err() when ctx ends. A Limiter that also has a
// Paused() bool method (dit-gui's pause switch) tells the live model when
// the job is held on purpose: it is then paused, not stalled.
type Limiter interface {
	WaitRead(ctx context.Context, card int, n int) error
	WaitWrite(ctx context.Context, card, dest int, n int) error
	WaitVerify(ctx context.Context, card, dest int, n int) error
}

// SealFile is one file of a card as recorded, for a sealer.
type SealFile struct {
	Rel   string
	Size  int64
	Mtime time.Time
	Sums  hashing.Sums // source hashes (action "original")
	// State is the copy's state on this destination (verified, failed,
	// copied, present, skipped); Verified the time it was read back.
	State    string
	Verified time.Time
	// VerifyAlgos are the algorithms recomputed on read-back.
	VerifyAlgos []hashing.Algo
	Error       string
}

// SealProgress is told how far a seal's hash lists are: before the
// walks of the card's files that write them, how many there are
// (Walks); then each file each of those walks comes to (Walked). A walk
// that only looks files up is not one of them.
type SealProgress interface {
	Walks(n int)
	Walked()
}

// SealFiles are a card's files on one destination, in path order (byte
// order of Rel): a cursor that reads them from the catalog each time it
// is walked, so a sealer holds one file at a time, not the card's list.
// The *SealFile given to fn is reused for the next file.
type SealFiles func(fn func(*SealFile) error) error

// Each walks the files in path order; an error from fn stops the walk and
// is returned. A nil SealFiles has no file.
func (s SealFiles) Each(fn func(*SealFile) error) error {
	if s == nil {
		return nil
	}
	return s(fn)
}

// List is every file, held whole (a cloud seal stages and uploads from
// it).
func (s SealFiles) List() ([]SealFile, error) {
	var out []SealFile
	err := s.Each(func(f *SealFile) error {
		out = append(out, *f)
		return nil
	})
	return out, err
}

// SealFileList walks list (in its order: give it in path order).
func SealFileList(list []SealFile) SealFiles {
	return func(fn func(*SealFile) error) error {
		for i := range list {
			f := list[i]
			if err := fn(&f); err != nil {
				return err
			}
		}
		return nil
	}
}

// SealInfo describes one card on one destination once every file of the
// card has reached its final state. A sealer (ASC MHL writer) turns it into
// the proof that travels with the copy.
type SealInfo struct {
	JobID       int64
	JobName     string
	Host        string
	ToolVersion string
	Started     time.Time
	Algos       []hashing.Algo
	Card        catalog.Card
	CardRoot    string // the card itself (read-only), e.g. to find an earlier ascmhl history
	DestRoot    string // the -d folder
	CardDir     string // the card's folder on this destination (absolute)
	// Files are the card's files as recorded, with their copy on this
	// destination: walked from the catalog, never held whole.
	Files SealFiles
	// Progress, if set, is told how far the hash lists are (the live
	// model's sealing figures).
	Progress SealProgress
	// Ignore are the job's ignore patterns (Options.Ignore): the hash
	// lists record them.
	Ignore   []string
	Finished time.Time
	// FS is the job's filesystem: on a dit array destination the card's
	// folder is a logical folder of the array, reachable only through it.
	FS fsys.FS
	// Creator and NoDirectoryHashes are Options' (the ASC MHL creator
	// info; folders without hashes).
	Creator
	NoDirectoryHashes bool
	// Stage is set for a cloud destination (CardDir is then the card's
	// folder there, rclone:REMOTE:PATH/...): a local folder that stands
	// for it, holding only the card's ASC MHL history (copied from the
	// card, if it has one). The seal writes there; the engine uploads
	// what it wrote and verifies it in the cloud. The card's files on the
	// remote are those of Files whose copy is verified, in the folders
	// holding them, whose times DirTimes gives (by path, as on the card).
	Stage    string
	DirTimes map[string]time.Time
}

// OwnComment starts the comment of every ASC MHL generation a seal writes
// for this card in this folder (SealComment).
func (info SealInfo) OwnComment() string {
	return SealComment(info.JobID, info.JobName, info.Card.Label, info.CardRoot, info.CardDir)
}

// SealComment starts the comment of every ASC MHL generation job jobID
// (named jobName) writes for card, read from cardRoot, in its folder
// cardDir on a destination: how dit tells the generations it wrote for this
// very card and folder from a history copied with the card (a seal's
// recovery and redo, and a resume that finds the chain file it copied
// extended by its own seal).
func SealComment(jobID int64, jobName, card, cardRoot, cardDir string) string {
	return fmt.Sprintf("dit job %d %q: card %s copied from %s to %s;", jobID, jobName, card, cardRoot, cardDir)
}

// SealWarning is what a sealer returns when it wrote the hash lists but
// has something to say (files it left out, a history it recovered after a
// crash): the card is sealed, and the messages reach the DIT as warnings.
// Any other error means the lists were not written: the card is not
// sealed, hence not safe to format.
type SealWarning struct {
	Messages []string
}

func (w *SealWarning) Error() string { return strings.Join(w.Messages, "; ") }

// seal runs Options.Seal for every destination of a finished card and
// returns what kept a destination's hash lists from being written (empty:
// the card is sealed everywhere). Warnings are emitted and kept for the
// summary. info.Finished is the card's seal time (catalog cards.sealed),
// the same when a seal a crash interrupted is done again.
func (c *cardRun) seal(ctx context.Context) []string {
	j := c.j
	fail := func(msg string) []string {
		j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Message: msg})
		return []string{msg}
	}
	if err := j.cat.Flush(); err != nil {
		for di := range c.dests {
			c.sealFailedAt(di) // no hash lists are written anywhere
		}
		return fail("catalog: " + err.Error())
	}
	c.lc.sealEach.Store(int64(c.files))
	var problems []string
	for di, d := range c.dests {
		if ctx.Err() != nil {
			return append(problems, "interrupted")
		}
		info := SealInfo{JobID: j.rec.ID, JobName: j.rec.Name, Host: j.rec.Host, ToolVersion: j.opts.ToolVersion,
			Started: j.rec.Started, Algos: j.algos, Card: *c.rec, CardRoot: c.scan.Root, DestRoot: d.root,
			CardDir: filepath.Join(d.root, filepath.FromSlash(c.out)), Ignore: j.opts.Ignore, Finished: c.rec.Sealed, FS: j.opts.FS,
			Creator: j.opts.Creator, NoDirectoryHashes: j.opts.NoDirectoryHashes,
			Files: c.sealCounting(di, c.sealFiles(d.rec.ID)), Progress: sealProgress{&c.lc.dests[di]}}
		var err error
		if d.isStore() {
			info.CardDir = storePath(d, c.out)
			// A cloud seal walks the card's files from the catalog
			// again as it stages, seals and uploads (never held whole).
			msg, lerr := c.historyWaits(di, info.Files)
			if lerr != nil {
				c.sealFailedAt(di)
				problems = append(problems, fail("catalog: "+lerr.Error())...)
				continue
			}
			if msg != "" {
				// Its chain is written once: not before every file is
				// verified there (a resume uploads them, then writes it).
				// Said as it happens; the card's failures list it.
				j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Path: info.CardDir, Message: msg})
				c.sealFailedAt(di)
				problems = append(problems, msg)
				continue
			}
			err = c.sealStore(ctx, di, info, c.sealFiles(d.rec.ID))
		} else {
			err = j.opts.Seal(ctx, info)
		}
		var w *SealWarning
		if err == nil || errors.As(err, &w) {
			c.sealWritten(di)
		}
		switch {
		case err == nil:
		case errors.As(err, &w):
			for _, m := range w.Messages {
				msg := "hash lists in " + info.CardDir + ": " + m
				j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Path: info.CardDir, Message: msg})
				j.addWarning(c.rec.Label + ": " + msg)
			}
		default:
			msg := "hash lists not written in " + info.CardDir + ": " + err.Error()
			j.emit(Event{Type: EvWarning, Card: c.label(), Hop: hopOf(c.rec), Path: info.CardDir, Message: msg})
			j.addWarning(c.rec.Label + ": " + msg)
			c.sealFailedAt(di)
			problems = append(problems, msg)
			continue
		}
		crashpoint.Hit("seal: destination sealed")
	}
	return problems
}

// sealFiles walks the card's files with their copy on destination
// destID from the catalog (catalog.EachFile: one file at a time).
func (c *cardRun) sealFiles(destID int64) SealFiles {
	return func(fn func(*SealFile) error) error {
		var sf SealFile
		return c.j.cat.EachFile(c.rec.ID, nil, func(f *catalog.File) error {
			sf = SealFile{Rel: f.Rel, Size: f.Size, Mtime: f.Mtime, Sums: f.Sums, Error: f.Error}
			for _, cp := range f.Copies {
				if cp.DestID == destID {
					sf.State, sf.Verified = cp.State, cp.VerifiedAt
					if cp.VerifyAlgos != "" {
						sf.VerifyAlgos, _ = hashing.ParseList(cp.VerifyAlgos)
					}
					if cp.Error != "" {
						sf.Error = cp.Error
					}
				}
			}
			return fn(&sf)
		})
	}
}

// addWarning keeps a warning for the job's summary.
func (j *Job) addWarning(msg string) {
	j.warnMu.Lock()
	j.warnings = append(j.warnings, msg)
	j.warnMu.Unlock()
}
