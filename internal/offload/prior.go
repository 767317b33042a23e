package offload

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/reports/ascmhl"
)

// EvAlreadyOffloaded is the event a front end emits for a card it skips
// because [FindPrior] found it offloaded and verified before.
const EvAlreadyOffloaded = "already_offloaded"

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
}

// Message says it the way a DIT reads it.
func (p *Prior) Message() string {
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
func FindPrior(ctx context.Context, cat *catalog.Catalog, fsy fsys.FS, cards []string, includeHidden bool) (priors []*Prior, histories []CardHistory, err error) {
	if fsy == nil {
		fsy = fsys.OS{}
	}
	priors = make([]*Prior, len(cards))
	for i, c := range cards {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		root, err := resolve(c)
		if err != nil {
			continue
		}
		sc, err := source.Scan(fsy, root, source.Options{IncludeHidden: includeHidden})
		if err != nil {
			continue
		}
		hist, records := cardHistory(root)
		if hist != nil {
			hist.Card = sc.Label
			histories = append(histories, *hist)
		}
		cands, err := cat.CardsLike(len(sc.Files), sc.Bytes)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range cands {
			p, err := matchPrior(cat, k, sc, records)
			if err != nil {
				return nil, nil, err
			}
			if p != nil {
				p.Card, p.Label = c, sc.Label
				priors[i] = p
				break
			}
		}
	}
	return priors, histories, nil
}

// cardHistory reads the history a card carries, if any.
func cardHistory(root string) (*CardHistory, map[string]*ascmhl.Record) {
	st, err := ascmhl.OpenOSStore(root)
	if err != nil {
		return nil, nil
	}
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
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

func matchPrior(cat *catalog.Catalog, k *catalog.Card, sc *source.Card, records map[string]*ascmhl.Record) (*Prior, error) {
	job, err := cat.Job(k.JobID)
	if err != nil {
		return nil, err
	}
	dests, err := cat.Dests(k.JobID)
	if err != nil {
		return nil, err
	}
	files, err := cat.Files(k.ID)
	if err != nil {
		return nil, err
	}
	if len(files) != len(sc.Files) || len(dests) == 0 {
		return nil, nil
	}
	byRel := make(map[string]*catalog.File, len(files))
	for _, f := range files {
		byRel[f.Rel] = f
	}
	for _, e := range sc.Files {
		f := byRel[e.Rel]
		if f == nil || f.Size != e.Size || f.Mtime.UnixNano() != e.Mtime.UnixNano() || f.State != StateVerified || len(f.Copies) != len(dests) {
			return nil, nil
		}
		for _, cp := range f.Copies {
			if cp.State != StateVerified {
				return nil, nil
			}
		}
		if r := records[e.Rel]; r != nil {
			for a, v := range r.Values {
				if s := f.Sums.Get(a); s != "" && s != v {
					return nil, nil
				}
			}
		}
	}
	p := &Prior{JobID: job.ID, JobName: job.Name, Date: k.VerifyFinished}
	if p.Date.IsZero() {
		p.Date = job.Finished
	}
	out, _ := ExpandLayout(job.Layout, job.Name, k.Label, job.Started)
	for _, d := range dests {
		p.Dests = append(p.Dests, filepath.Join(d.Path, filepath.FromSlash(path.Clean(out))))
	}
	return p, nil
}
