package earlier

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/raid"
)

// Prior is an earlier offload of exactly a card's content: every file's
// path, size and modification time equal, and every file verified on every
// destination of that job.
type Prior struct {
	Card    string // the card folder as given now
	Label   string // its label now
	JobID   int64
	JobName string
	Date    time.Time // when the earlier copy finished verifying
	// Dests are the card's folders on the earlier job's destinations.
	Dests []string
	// Covered are the destinations given now (as given) that hold a
	// verified copy of the card from an earlier job, still there (every
	// file with its size); Missing the ones that do not. With no
	// destinations given, every earlier one counts as covered.
	Covered []string
	Missing []string
	// Gone names earlier verified copies that are no longer there whole.
	Gone []string

	destRoots []string // the earlier job's -d folders, as Dests
	// copies are, per destination, where each file's verified copy is
	// (held compactly, against the card's scan: files), while the card is
	// looked up; FindPrior drops them before it returns.
	copies []copyList
	files  *source.Files
	// by is, for each destination of Covered, the earlier offload whose
	// copy is there (several jobs may have filled them).
	by map[string]*Prior
}

// Done reports whether every destination given has a verified copy.
func (p *Prior) Done() bool { return len(p.Missing) == 0 }

// Message says it the way a DIT reads it.
func (p *Prior) Message() string {
	others := false
	for _, d := range p.Covered {
		others = others || p.by[d] != nil && p.by[d] != p
	}
	if len(p.Covered) > 0 && (len(p.Missing) > 0 || others) {
		// Each destination under the job that wrote its copy there.
		var jobs []*Prior
		on := map[*Prior][]string{}
		for _, d := range p.Covered {
			q := p.by[d]
			if q == nil {
				q = p
			}
			if on[q] == nil {
				jobs = append(jobs, q)
			}
			on[q] = append(on[q], d)
		}
		var parts []string
		for i, q := range jobs {
			lead := "in job"
			if i == 0 {
				lead = p.Label + " was offloaded in job"
			}
			parts = append(parts, fmt.Sprintf("%s %d on %s, verified on %s", lead, q.JobID, q.Date.Local().Format("2006-01-02"), strings.Join(on[q], ", ")))
		}
		msg := strings.Join(parts, "; ")
		if len(p.Missing) > 0 {
			msg += "; not yet on " + strings.Join(p.Missing, ", ")
		}
		return msg
	}
	return fmt.Sprintf("%s was offloaded in job %d on %s, verified (to %s)", p.Label, p.JobID,
		p.Date.Local().Format("2006-01-02"), strings.Join(p.Dests, ", "))
}

// CardHistory describes an ASC MHL history a card carries.
type CardHistory struct {
	Card        string
	Generations int
	Last        string // "ascmhl 1.2 on host, 2026-11-20 10:00 UTC"
	Problem     string // why it cannot be trusted, if so
}

// FindPrior looks each card up before an offload: it scans the card
// (read-only) and searches the catalog for a finished job in which a card
// with the same files (path, size, modification time) ended verified on
// every destination. When the card carries an ASC MHL history, a catalog
// match must also agree with the hashes that history records, so a card
// whose content changed behind equal sizes and times is not taken for the
// earlier one. The result has one entry per card, nil where there is no
// earlier offload; histories lists the cards that carry one (dit appends a
// generation to the copy of it on each destination). A card that cannot be
// scanned gets nil: New reports the problem.
//
// "Already offloaded" is judged per destination: dests are the
// destinations of the offload about to start. A card counts as done on a
// destination when an earlier job left a verified copy of it there whose
// every file is still there with its size (checked with a stat of each,
// through the array for a dit array destination). Prior.Missing lists the
// destinations still to copy to; with dests nil, any earlier verified
// offload counts (the app, which picks destinations later).
func FindPrior(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, cards []string, includeHidden bool, ignore []string, dests ...string) (priors []*Prior, histories []CardHistory, err error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	pl := &priorLook{cat: cat, fsy: fsy, look: fsy, dests: dests, includeHidden: includeHidden, ignore: ignore}
	for _, d := range dests {
		r, err := dest.Resolve(d)
		if err != nil {
			r = d
		}
		pl.roots = append(pl.roots, r)
	}
	if len(pl.roots) > 0 {
		// Copies on a dit array are looked up through it (read-only).
		f, arrays, err := dest.MountArrays(fsy, pl.roots, raid.OpenOptions{})
		if err == nil {
			pl.look = f
			defer func() {
				for _, a := range arrays {
					a.Close()
				}
			}()
		}
	}
	priors = make([]*Prior, len(cards))
	for i, c := range cards {
		// Not stopped by ctx: a Ctrl-C while the cards are read before
		// a new job is recorded stops the job once it is (interrupted,
		// resumable), not before, when it would leave nothing behind
		// after saying it saves the job (a second Ctrl-C quits at once).
		p, hist, err := pl.card(c)
		if err != nil {
			return nil, nil, err
		}
		if hist != nil {
			histories = append(histories, *hist)
		}
		priors[i] = p
	}
	return priors, histories, nil
}

// priorLook is FindPrior's search: the destinations given (dests, and
// roots: their resolved paths; none: the app's), and look, the file
// system their copies are looked up through.
type priorLook struct {
	cat           *catalog.Catalog
	fsy, look     fsys.FS
	dests, roots  []string
	includeHidden bool
	ignore        []string
}

// card is the earlier offload of the card at c (nil: none, or none with
// a copy there whole), and the ASC MHL history the card carries (nil:
// none). A card that cannot be scanned has neither.
func (pl *priorLook) card(c string) (*Prior, *CardHistory, error) {
	root, err := dest.Resolve(c)
	if err != nil {
		return nil, nil, nil
	}
	sc, hist, records, err := scanCard(pl.fsy, root, pl.includeHidden, pl.ignore)
	if err != nil {
		return nil, nil, nil
	}
	if hist != nil {
		hist.Card = sc.Label
	}
	cands, err := pl.cat.CardsLike(sc.Files.Len(), sc.Bytes)
	if err != nil {
		return nil, hist, err
	}
	var first *Prior
	covered := map[string]*Prior{}
	var gone []string
	var ix *cardIndex
	var found []*Prior
	defer func() {
		// Each file's copies were for the stats: none is kept.
		for _, p := range found {
			p.copies, p.files = nil, nil
		}
	}()
	for _, k := range cands {
		if ix == nil {
			ix = newCardIndex(sc.Files)
		}
		p, err := matchPrior(pl.cat, k, sc, ix, records)
		if err != nil {
			return nil, hist, err
		}
		if p == nil {
			continue
		}
		found = append(found, p)
		if first == nil {
			first = p
		}
		if len(pl.roots) == 0 {
			gone = append(gone, pl.ownDests(p)...)
			if len(p.Covered) > 0 {
				first = p
				break
			}
			continue
		}
		gone = append(gone, pl.givenDests(p, covered)...)
	}
	if first == nil {
		return nil, hist, nil
	}
	first.Card, first.Label, first.Gone = c, sc.Label, gone
	if !pl.settle(first, covered) {
		return nil, hist, nil
	}
	return first, hist, nil
}

// ownDests (no destinations given: the app) counts the earlier job's own
// destinations in p.Covered, each only if its copy is still there whole,
// and returns those where it is not.
func (pl *priorLook) ownDests(p *Prior) (gone []string) {
	pf, arrays, err := dest.MountArrays(pl.fsy, p.destRoots, raid.OpenOptions{})
	if err != nil {
		pf = pl.fsy
	}
	for di := range p.destRoots {
		if p.copies[di].intact(pf, p.destRoots[di], p.files) {
			p.Covered = append(p.Covered, p.Dests[di])
		} else {
			gone = append(gone, p.Dests[di])
		}
	}
	for _, a := range arrays {
		a.Close()
	}
	return gone
}

// givenDests marks in covered the destinations given that hold p's copy
// whole (one not covered yet by an earlier candidate), and returns p's
// destinations among them where it is not whole.
func (pl *priorLook) givenDests(p *Prior, covered map[string]*Prior) (gone []string) {
	for di, d := range p.destRoots {
		for ri, r := range pl.roots {
			if covered[pl.dests[ri]] != nil || !samePath(r, d) {
				continue
			}
			if p.copies[di].intact(pl.look, d, p.files) {
				covered[pl.dests[ri]] = p
			} else {
				gone = append(gone, p.Dests[di])
			}
		}
	}
	return gone
}

// settle sets first's Covered and Missing from the destinations given
// (covered); false: no destination holds it whole, so it does not count.
func (pl *priorLook) settle(first *Prior, covered map[string]*Prior) bool {
	if len(pl.roots) == 0 {
		return len(first.Covered) > 0 // offloaded before, but no copy of it is there whole any more
	}
	first.by = covered
	for _, d := range pl.dests {
		if covered[d] != nil {
			first.Covered = append(first.Covered, d)
		} else {
			first.Missing = append(first.Missing, d)
		}
	}
	return len(first.Covered) > 0 // false: offloaded before, but to none of these destinations
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	return dest.SameFile(a, b)
}

// ScanCard scans a card as an offload copies it: OS metadata is skipped
// (unless includeHidden), except what an ASC MHL history on the card
// lists (an earlier hop recorded it: left out, the copy's history would
// not verify). It also returns that history's records (nil: none, or a
// damaged one).
func ScanCard(fsy fsys.FS, root string, includeHidden bool, ignore ...string) (*source.Card, *ascmhl.Records, error) {
	sc, _, records, err := scanCard(fsy, root, includeHidden, ignore)
	return sc, records, err
}

// scanCard is ScanCard that also describes the card's history (read once).
func scanCard(fsy fsys.FS, root string, includeHidden bool, ignore []string) (*source.Card, *CardHistory, *ascmhl.Records, error) {
	hist, records := cardHistory(root)
	var keep func(string) bool
	if records != nil {
		keep = records.Keeps
	}
	opt := ScanOptions(includeHidden, keep, ignore)
	sc, err := source.Scan(fsy, root, opt)
	return sc, hist, records, err
}

// ScanOptions are the scan options of a card whose listed files (an
// earlier hop's history, a cascade's first run) are copied whatever their
// names, OS metadata included, with the job's ignore patterns. keep
// (nil: none listed) says whether a path is a listed file or a folder
// holding one; the scan asks it only of names it would leave out as OS
// metadata.
func ScanOptions(includeHidden bool, keep func(rel string) bool, patterns []string) source.Options {
	opt := source.Options{IncludeHidden: includeHidden}
	if keep != nil && !includeHidden {
		opt.Keep = keep
	}
	if len(patterns) > 0 {
		ign := ignore.New(patterns)
		opt.Ignore = ign.Match
		opt.Why = "matches an ignore pattern of the job (" + strings.Join(patterns, ", ") + ")"
	}
	return opt
}

// cardHistory reads the history a card carries, if any.
func cardHistory(root string) (*CardHistory, *ascmhl.Records) {
	st, err := ascmhl.OpenOSStore(root)
	if err != nil {
		return nil, nil
	}
	defer st.Close()
	h, err := ascmhl.LoadHistoryIndexed(st) // heads and records only
	if err == ascmhl.ErrNoHistory {
		return nil, nil
	}
	ch := &CardHistory{}
	if err != nil {
		ch.Problem = err.Error()
		return ch, nil
	}
	ch.Generations = len(h.Generations)
	if m := h.Latest(); m != nil {
		ch.Last = fmt.Sprintf("%s %s on %s, %s", m.Tool, m.ToolVersion, m.Host, m.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(h.Problems) > 0 {
		ch.Problem = strings.Join(h.Problems, "; ")
		return ch, nil
	}
	return ch, h.Records()
}
