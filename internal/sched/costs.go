package sched

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// What LearnCosts measures from, and how ApplyCosts combines.
const (
	// MinCostFiles is the fewest files a card's run needs for its
	// per-file costs to be measured: with fewer, its time beyond its
	// bytes is mostly the byte rate's error, not its files'.
	MinCostFiles = 20
	// bigFile is the least size of a file whose time says the byte rate.
	bigFile = 8_000_000
	// hidden is the share of a copy's time its files' costs must take at
	// least to be measured: below it, the card's reads hid them (the
	// files are written while the next ones are read).
	hidden = 0.05
	// RecentCosts is how many of a volume's latest measurements the
	// planner combines (each figure's median).
	RecentCosts = 5
)

// CostVolume names a destination for its measured costs: a cloud
// remote rclone:REMOTE:PATH by rclone:REMOTE (the storage, whatever the
// folder), else its volume as dit speedtest names it (array:UUID for a
// dit array's blade, fs-uuid:..., fsid:...).
func CostVolume(path string) string {
	if rest, ok := strings.CutPrefix(path, "rclone:"); ok {
		remote, _, _ := strings.Cut(rest, ":")
		return "rclone:" + remote
	}
	return speedtest.PathVolume(path)
}

// CostKind is what the destination at path is to dit: a cloud remote,
// a dit array (a blade's path) or a folder.
func CostKind(path string) string {
	switch {
	case strings.HasPrefix(path, "rclone:"):
		return plan.CostCloud
	case raid.IsBlade(path):
		return plan.CostArray
	}
	return plan.CostFolder
}

// LearnCosts measures what the destinations of a finished job cost its
// cards beyond their bytes, and records it in cat (table costs) for the
// plans that follow ([ApplyCosts]). For each card run that ended
// verified, in a job that ran once (a resumed job's card times span its
// runs, and nothing is learned from it), from the catalog alone:
//
//   - its byte rate R: the rate of its files of 8 MB or more when there
//     are two or more, a quarter of its bytes at least (their bytes over
//     the time from each one's start to the next one's: their own costs
//     in, so what is charged to the files is at least theirs; not for an
//     upload, which sends several files at once), else the 90th
//     percentile of its per-second copy samples;
//   - Start: from the card's start to its first file's;
//   - PerFile (with at least MinCostFiles files): the copy's time beyond
//     Start and its bytes at R, shared by its files, unless that is less
//     than 5 % of the copy (its reads hid its files' costs: they are not
//     measured); with fewer files, what that time has beyond its files at
//     their kind's default (which the plan counts for them) is counted in
//     Start (the card's own);
//   - VerifyPerFile: from the tail after the copy (the last copy to the
//     last file read back): what it has beyond what was left to read back
//     (LeftToReadBack) at R, per file when the read-back fell behind (the
//     plan's model, solved);
//   - Fixed: from the last file read back to the card's end (sealed); a
//     run to a cloud remote, read back by one listing of the storage's
//     checksums, has its whole tail there (and no VerifyPerFile).
//
// Each destination volume of the run gets the run's figures, once (two
// destination folders on one drive are one volume): its per-file costs
// (paid side by side: the plan takes the most over a run's destinations)
// and its part of Start and Fixed (paid one destination after another:
// the plan sums them). It returns what it recorded.
func LearnCosts(cat *catalog.Catalog, jobID int64) ([]catalog.Costs, error) {
	job, err := cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	if runs, err := cat.Runs(jobID); err != nil || len(runs) != 1 {
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
	samples, err := cat.CardSamples(jobID)
	if err != nil {
		return nil, err
	}
	station := job.Station
	if station == "" {
		station = cat.Station()
	}
	verify := job.VerifyMode != "none"
	var out []catalog.Costs
	for _, k := range cards {
		if k.State != "verified" || k.CopyStarted.IsZero() || k.CopyFinished.IsZero() || k.DoneAt.IsZero() {
			continue
		}
		files, err := timedRun(cat, k)
		if err != nil {
			return out, err
		}
		cloud, pf := false, 0.0
		for _, d := range dests {
			if max(d.Hop, 1) == max(k.Hop, 1) {
				kind := CostKind(d.Path)
				cloud = cloud || kind == plan.CostCloud
				pf = max(pf, plan.DefaultCosts[kind].PerFile)
			}
		}
		m, ok := measureRun(k, files, samples, verify, cloud, pf)
		if !ok {
			continue
		}
		share(&m, dests, k.Hop)
		seen := map[string]bool{}
		for _, d := range dests {
			vol := CostVolume(d.Path)
			if max(d.Hop, 1) != max(k.Hop, 1) || seen[vol] {
				continue // one row a volume: two folders on one drive paid once
			}
			seen[vol] = true
			row := m
			row.Volume, row.Kind, row.Path, row.T = vol, CostKind(d.Path), d.Path, k.DoneAt
			row.Station, row.JobUUID, row.Card, row.Hop = station, job.UUID, k.Label, max(k.Hop, 1)
			if err := cat.AddCosts(&row); err != nil {
				return out, err
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// runTimes is what LearnCosts needs of a card's run, gathered as its
// files come in the order their copies started (Catalog.EachCopyStart):
// a few figures, whatever the card's file count.
type runTimes struct {
	n        int
	first    time.Time
	tail     ReadBack
	bigBytes int64   // the files of bigFile or more whose end is known
	bigTook  float64 // seconds from each one's start to the next's
	bigN     int
	last     time.Time // the previous file's start
	lastSize int64     // and its size
}

// add counts the next file's copy (started at start, size bytes).
func (r *runTimes) add(start time.Time, size int64) {
	if r.n == 0 {
		r.first = start
	}
	r.endLast(start)
	r.n++
	r.tail.Add(size)
	r.last, r.lastSize = start, size
}

// endLast counts the previous file's time, to end, when it is large.
func (r *runTimes) endLast(end time.Time) {
	if r.n > 0 && r.lastSize >= bigFile {
		r.bigBytes, r.bigTook, r.bigN = r.bigBytes+r.lastSize, r.bigTook+end.Sub(r.last).Seconds(), r.bigN+1
	}
}

// timedRun walks card k's files whose copy started in its run (at or
// after k.CopyStarted: a resume's earlier files are not this run's) in
// the order they started; the last large file ends at k.CopyFinished.
func timedRun(cat *catalog.Catalog, k *catalog.Card) (runTimes, error) {
	var r runTimes
	err := cat.EachCopyStart(k.ID, k.CopyStarted, func(start time.Time, size int64) error {
		r.add(start, size)
		return nil
	})
	r.endLast(k.CopyFinished)
	return r, err
}

// measureRun is card k's run's costs (see LearnCosts), without the
// destination; false when nothing can be said (no file timed). A run to
// a cloud remote is read back by a listing of the storage's checksums
// once the uploads are done: its tail is a fixed cost, not a per-file
// one.
func measureRun(k *catalog.Card, timed runTimes, samples []catalog.Sample, verify, cloud bool, defaultPerFile float64) (catalog.Costs, bool) {
	c := catalog.Costs{Files: k.Files, Bytes: k.Bytes}
	if timed.n == 0 {
		return c, false
	}
	bytes, left := timed.tail.Bytes(), timed.tail.Left()
	start := max(timed.first.Sub(k.CopyStarted).Seconds(), 0)
	c.Start = &start
	r, how := byteRate(k, timed, samples, cloud)
	c.Detail = "byte rate " + how
	n := float64(timed.n)
	if r > 0 {
		// What the copy took beyond its start and its bytes: its files'
		// costs; with too few files to share it, the card's own.
		excess := max(k.CopyFinished.Sub(k.CopyStarted).Seconds()-start-float64(bytes)/r, 0)
		switch {
		case excess <= hidden*(k.CopyFinished.Sub(k.CopyStarted).Seconds()-start):
			// Its reads hid its files' costs: they are not measured.
		case timed.n >= MinCostFiles:
			pf := excess / n
			c.PerFile = &pf
		default:
			// The plan counts the default per file for them: the rest
			// is the card's.
			start += max(excess-n*defaultPerFile, 0)
		}
	}
	if !verify || k.VerifyFinished.IsZero() {
		return c, true
	}
	fixed := max(k.DoneAt.Sub(k.VerifyFinished).Seconds(), 0)
	x := k.VerifyFinished.Sub(k.CopyFinished).Seconds() // the tail
	if r > 0 && !cloud {
		x -= float64(left) / r
	}
	switch {
	case cloud:
		fixed += max(x, 0)
		zero := 0.0
		c.VerifyPerFile = &zero
	case c.PerFile != nil:
		v := (x + n**c.PerFile) / (n + 1) // it fell behind by n x (v - PerFile)
		if x <= *c.PerFile {
			v = x // it kept up: the last file's own
		}
		v = max(v, 0)
		c.VerifyPerFile = &v
	}
	c.Fixed = &fixed
	return c, true
}

// share makes a run's start and sealing each destination's part of
// them: a card's folders are made and its history sealed on one
// destination after another, and the plan sums them.
func share(m *catalog.Costs, dests []*catalog.Dest, hop int) {
	n := 0
	for _, d := range dests {
		if max(d.Hop, 1) == max(hop, 1) {
			n++
		}
	}
	for _, v := range []*float64{m.Start, m.Fixed} {
		if v != nil && n > 1 {
			*v /= float64(n)
		}
	}
}

// byteRate is the card's byte rate (see LearnCosts) and how it was
// found, in words.
func byteRate(k *catalog.Card, timed runTimes, samples []catalog.Sample, cloud bool) (float64, string) {
	if !cloud {
		big, took, n, all := timed.bigBytes, timed.bigTook, timed.bigN, timed.tail.Bytes()
		if n >= 2 && took > 0 && 4*big >= all {
			r := float64(big) / took
			return r, fmt.Sprintf("%s (its %d files of %s or more)", units.FormatRate(r), n, units.FormatBytes(bigFile))
		}
	}
	var rates []float64
	for _, s := range samples {
		if s.CardID == k.ID && s.Phase == "copy" && s.Rate > 0 && (s.Seconds == 0 || s.Seconds >= 0.5) {
			rates = append(rates, s.Rate)
		}
	}
	if len(rates) < 3 {
		return 0, "unknown"
	}
	sort.Float64s(rates)
	r := rates[len(rates)*9/10]
	return r, fmt.Sprintf("%s (90th percentile of %d copy samples)", units.FormatRate(r), len(rates))
}

// ApplyCosts sets each destination's cost kind (a dit array's blade:
// array; a cloud remote: cloud) and, where recent (the catalog's
// RecentCosts; nil: none) has measurements of its volume or remote, its
// measured Costs: each per-file figure and Start the median of the
// newest RecentCosts that measured it; Fixed and SealPerFile from their
// sealing times against their file counts (see sealCosts); the kind's
// default for a figure none measured. The notes say which destinations
// were given measured costs.
func ApplyCosts(t *plan.Topology, recent func(volume string, n int) ([]catalog.Costs, error)) []string {
	var notes []string
	for i := range t.Destinations {
		d := &t.Destinations[i]
		if d.Path == "" {
			continue
		}
		d.CostKind = CostKind(d.Path)
		if recent == nil {
			continue
		}
		rows, err := recent(CostVolume(d.Path), RecentCosts)
		if err != nil || len(rows) == 0 {
			continue
		}
		c := plan.DefaultCosts[plan.CostKindOf(*d)]
		for _, f := range []struct {
			dst *float64
			get func(catalog.Costs) *float64
		}{
			{&c.PerFile, func(k catalog.Costs) *float64 { return k.PerFile }},
			{&c.VerifyPerFile, func(k catalog.Costs) *float64 { return k.VerifyPerFile }},
			{&c.Start, func(k catalog.Costs) *float64 { return k.Start }},
		} {
			var vs []float64
			for _, k := range rows {
				if v := f.get(k); v != nil {
					vs = append(vs, *v)
				}
			}
			if len(vs) > 0 {
				*f.dst = median(vs)
			}
		}
		c.Fixed, c.SealPerFile = sealCosts(rows, c.Fixed, c.SealPerFile)
		d.Costs = &c
		notes = append(notes, fmt.Sprintf("%s: measured costs used (%d card run(s), the latest %s): %s a file, %s a file read back, %s before a card and %s after it (%s a file)",
			d.Name, len(rows), rows[0].T.Local().Format("2006-01-02 15:04"), ms(c.PerFile), ms(c.VerifyPerFile), secsWords(c.Start), secsWords(c.Fixed), ms(c.SealPerFile)))
	}
	return notes
}

// sealCosts are a destination's Fixed and SealPerFile from its measured
// sealing times (fixed_s) and their file counts: the least-squares line
// through them when the counts differ enough (the most at least 4 times
// the least, of 2 runs or more), else the default SealPerFile per file
// and the median of what is left as Fixed. None is below 0.
func sealCosts(rows []catalog.Costs, fixed, perFile float64) (float64, float64) {
	var xs, ys []float64
	for _, k := range rows {
		if k.Fixed != nil {
			xs, ys = append(xs, float64(k.Files)), append(ys, *k.Fixed)
		}
	}
	if len(xs) == 0 {
		return fixed, perFile
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if len(xs) >= 2 && hi >= 4*max(lo, 1) {
		var mx, my float64
		for i := range xs {
			mx, my = mx+xs[i], my+ys[i]
		}
		mx, my = mx/float64(len(xs)), my/float64(len(xs))
		var sxy, sxx float64
		for i := range xs {
			sxy, sxx = sxy+(xs[i]-mx)*(ys[i]-my), sxx+(xs[i]-mx)*(xs[i]-mx)
		}
		b := max(sxy/sxx, 0)
		return max(my-b*mx, 0), b
	}
	left := make([]float64, len(xs))
	for i := range xs {
		left[i] = ys[i] - perFile*xs[i]
	}
	return max(median(left), 0), perFile
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func ms(s float64) string { return fmt.Sprintf("%.1f ms", s*1000) }

func secsWords(s float64) string { return fmt.Sprintf("%.2f s", s) }
