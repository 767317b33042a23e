package jobreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/offload/summary"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid/mountplace"
)

// Report is everything a job report shows, built from the catalog.
type Report struct {
	Generated    time.Time    `json:"generated"`
	Job          Job          `json:"job"`
	Totals       Totals       `json:"totals"`
	Destinations []DestTotals `json:"destinations"`
	Cards        []Card       `json:"cards"`
	// ThumbnailsNote says why a job with clips has no poster frames:
	// "no thumbnails (ffmpeg not found)".
	ThumbnailsNote string `json:"thumbnails_note,omitempty"`

	ale    bool                 // Options.ALE
	fs     fsys.FS              // Options.FS
	places *mountplace.Resolver // where the copies in a dit array open
	src    *fileSource          // Build's: the files read from the catalog as they are written
}

// Job describes the job.
type Job struct {
	ID           int64     `json:"id"`
	Name         string    `json:"name"`
	State        string    `json:"state"`
	Host         string    `json:"host"`
	ToolVersion  string    `json:"tool_version"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished"`
	Hashes       []string  `json:"hashes"`
	Verify       string    `json:"verify"`        // none | dest | source+dest
	VerifyHashes string    `json:"verify_hashes"` // fastest | all
	Layout       string    `json:"layout"`
	Error        string    `json:"error,omitempty"`
}

// Totals add up the whole job.
type Totals struct {
	// JobFigures are the job's files, bytes, failed files, times (Seconds:
	// start to finish, pauses included; ActiveSeconds: its runs summed;
	// PausedSeconds; Runs), bytes read from the cards (BytesCopied, in all
	// runs: a file copied again after an interruption counts twice) and
	// end-to-end TB/hour (TBPerHour): the summary's (offload.LoadSummary,
	// the job model of internal/offload/model.go), the same names and
	// meanings as in dit job show --json.
	offload.JobFigures
	Cards        int `json:"cards"`
	SafeToFormat int `json:"safe_to_format"`
	Skipped      int `json:"skipped"`
	// BytesVerified are the bytes read back from the copies (a copy
	// verified by the storage's own MD5 is not read back: see
	// VerifyNotApplicable).
	BytesVerified int64 `json:"bytes_verified"`
	// VerifyNotApplicable says why the job's verify TB/hour is not given
	// (0) though copies were verified: some were verified by the
	// storage's own MD5 (S3 ETag), not read back ("not read back: ..."
	// when none was read back; "not measured: ..." when some were: the
	// time spent reading back is not told apart). BytesVerified are then
	// the read-back copies' sizes. Empty otherwise.
	VerifyNotApplicable string `json:"verify_not_applicable,omitempty"`
	// Resumed: more than one run (the job was interrupted and resumed).
	Resumed bool `json:"resumed"`
	// Simulated: the job ran with dit offload --simulate (readers and
	// buses of the plan simulated at SimulateScale of their rates).
	Simulated     bool    `json:"simulated"`
	SimulateScale float64 `json:"simulate_scale,omitempty"`
	// Verified: every card of the job is safe to format.
	Verified bool `json:"verified"`
	// TB/hour (10^12 bytes per hour), "-" (0) when nothing was moved:
	// CopyTBPerHour is BytesCopied over the time some card was copying,
	// VerifyTBPerHour BytesVerified over the time some copy was read
	// back (end to end, TBPerHour, is BytesCopied over ActiveSeconds).
	CopyTBPerHour   float64 `json:"copy_tb_per_hour"`
	VerifyTBPerHour float64 `json:"verify_tb_per_hour"`
}

// DestTotals add up one destination over every card.
type DestTotals struct {
	Path string `json:"path"`
	// Array is, for a blade of a dit array, where the array's files open
	// (its mount point, or its mount place and the command that mounts it).
	Array    *ArrayPlace `json:"array,omitempty"`
	Run      int         `json:"run,omitempty"` // 2: a cascade's second-run destination (--then)
	Verified int         `json:"verified"`
	Copied   int         `json:"copied"` // copied or present, not verified
	Failed   int         `json:"failed"`
	Skipped  int         `json:"skipped"`
	// Bytes are the bytes of the copies that are there (verified or copied).
	Bytes int64 `json:"bytes"`
	// VerifiedBy counts its verified copies by how they were verified:
	// the storage's own MD5 (S3 ETag) or read back.
	VerifiedBy VerifiedBy `json:"verified_by"`
	// WriteRate and ReadBackRate are the destination's: each second's
	// sample is what every card wrote to (read back from) it then.
	// ReadBackRate is left out where the storage's MD5 verified any copy
	// there (nothing, or not only what was read back, was measured).
	WriteRate    Rate `json:"write_rate"`
	ReadBackRate Rate `json:"read_back_rate,omitzero"`
}

// Rate summarises per-second throughput samples, in bytes per second.
type Rate struct {
	Samples int     `json:"samples"`
	Mean    float64 `json:"mean"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	P95     float64 `json:"p95"`
}

// Card is one card of the job.
type Card struct {
	// CardFigures are the card's label, verdict (state, verdict, safe to
	// format), files, bytes, failed files, copy and verify times, bytes
	// read from it in all runs (BytesCopied), end-to-end TB/hour
	// (TBPerHour, as EndToEndTBPerHour) and a cascade's card free and
	// safe-to-format times: its summary's (offload.CardSummary, the job
	// model of internal/offload/model.go), the same names and meanings
	// as in dit job show --json.
	offload.CardFigures
	Source string `json:"source"`
	Media  string `json:"media,omitempty"`
	Bus    string `json:"bus,omitempty"`
	// Skipped and Failures are the card's first MaxListed skipped
	// entries and failures (its runs' failed files, then what else
	// failed); Unlisted counts those left out.
	Skipped  []Skip    `json:"skipped"`
	Failures []Failure `json:"failures"`
	Unlisted
	CopyRate   Rate `json:"copy_rate"`
	VerifyRate Rate `json:"verify_rate,omitzero"`
	// BytesVerified are the bytes read back from its copies (every
	// destination); CopySeconds and VerifySeconds the time spent in each
	// (summed per-second samples: pauses and interruptions left out),
	// ActiveSeconds the time either went on. VerifySeconds, VerifyRate
	// and VerifyTBPerHour are given only where bytes were read back and
	// every verified copy was (VerifyNotApplicable says why not; then
	// BytesVerified are the read-back copies' sizes).
	BytesVerified       int64   `json:"bytes_verified"`
	VerifyNotApplicable string  `json:"verify_not_applicable,omitempty"`
	CopySeconds         float64 `json:"copy_seconds"`
	VerifySeconds       float64 `json:"verify_seconds,omitempty"`
	ActiveSeconds       float64 `json:"active_seconds"`
	CopyTBPerHour       float64 `json:"copy_tb_per_hour"`
	VerifyTBPerHour     float64 `json:"verify_tb_per_hour"`
	EndToEndTBPerHour   float64 `json:"end_to_end_tb_per_hour"`
	// Destinations are the card's folders on every destination: the
	// first run's, then (in a cascade) the second run's (Run 2).
	Destinations []CardDest `json:"destinations"`
	// FileList is every file of the card in a report made by hand; a
	// report from Build leaves it nil: its writers read each card's files
	// from the catalog as they write them (memory flat in the files), and
	// its JSON has them here.
	FileList []File `json:"file_list"`
	// Then is a cascade's second run, from the first copy.
	Then *SecondRun `json:"then,omitempty"`
	// Clips are the card's clips (internal/clips), when it has any;
	// ClipTotals say what most of them are and their length.
	ClipTotals
	Clips []Clip `json:"clips,omitempty"`
	// Proxies are the editorial proxies of the card's clips (proxies.go).
	Proxies []Proxy `json:"proxies,omitempty"`

	series []point
}

// MaxListed is how many of a card's skipped entries, and of its
// failures, a report holds: a card of a million frames may carry as many
// of each; every format lists these and says how many more there are
// (Unlisted), and dit job show JOB lists them all.
const MaxListed = 1000

// Unlisted counts what a card's lists in a report leave out: its
// skipped entries (SkippedMore) and failed files (FailuresMore, both
// runs') beyond the first MaxListed of each. NotListed says so, with
// the command that lists them all ("" when nothing is left out). The
// card's counts (Failed, Totals.Skipped) are the true ones.
type Unlisted struct {
	SkippedMore  int    `json:"skipped_more,omitempty"`
	FailuresMore int    `json:"failures_more,omitempty"`
	NotListed    string `json:"not_listed,omitempty"`
}

// ClipTotals are a card's clips at a glance: the Camera and CardType of
// most of them, ClipSeconds their length summed (where known).
type ClipTotals struct {
	Camera      string  `json:"camera,omitempty"`
	CardType    string  `json:"card_type,omitempty"`
	ClipSeconds float64 `json:"clip_seconds,omitempty"`
}

// moreLine is the sentence that says n more entries (what: "skipped",
// "failed") of a card of job jobID are not listed, "" when n is 0.
func moreLine(n int, what string, jobID int64) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("… and %s more %s, not listed here: dit job show %d lists them all", thousands(n), what, jobID)
}

// notListed is c's NotListed: its skipped entries and failures left out
// of the report, said.
func (c *Card) notListed(jobID int64) string {
	var out []string
	for _, s := range []string{moreLine(c.FailuresMore, "failed", jobID), moreLine(c.SkippedMore, "skipped", jobID)} {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// SecondRun is a card's second run in a cascade: its first copy (Source)
// read and written to the --then destinations. Its figures are defined as
// the card's: bytes read from the first copy over the time spent.
type SecondRun struct {
	Source            string    `json:"source"`
	State             string    `json:"state"`
	Files             int       `json:"files"`
	Bytes             int64     `json:"bytes"`
	Failed            int       `json:"failed"`
	CopyStarted       time.Time `json:"copy_started,omitzero"`
	CopyFinished      time.Time `json:"copy_finished,omitzero"`
	DoneAt            time.Time `json:"done_at,omitzero"`
	BytesCopied       int64     `json:"bytes_copied"`
	CopySeconds       float64   `json:"copy_seconds"`
	ActiveSeconds     float64   `json:"active_seconds"`
	CopyTBPerHour     float64   `json:"copy_tb_per_hour"`
	EndToEndTBPerHour float64   `json:"end_to_end_tb_per_hour"`
}

// CardDest is one card on one destination.
type CardDest struct {
	Path     string `json:"path"`          // the card's folder there
	Run      int    `json:"run,omitempty"` // 2: a cascade's second run (written from the first copy)
	Verified int    `json:"verified"`
	Copied   int    `json:"copied"`
	Failed   int    `json:"failed"`
	Skipped  int    `json:"skipped"`
	// VerifiedBy, WriteRate, ReadBackRate: as a destination's (DestTotals).
	VerifiedBy   VerifiedBy `json:"verified_by"`
	WriteRate    Rate       `json:"write_rate"`
	ReadBackRate Rate       `json:"read_back_rate,omitzero"`
}

// Skip is an entry of the card that was not copied.
type Skip struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// Failure is a file that failed, and why.
type Failure struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// File is one file with its hashes and its state on each destination.
type File struct {
	Path   string            `json:"path"`
	Size   int64             `json:"size"`
	Mtime  time.Time         `json:"mtime"`
	State  string            `json:"state"`
	Hashes map[string]string `json:"hashes"`
	Error  string            `json:"error,omitempty"`
	Copies []Copy            `json:"copies"`
}

// Copy is one file on one destination.
type Copy struct {
	Dest       string    `json:"dest"`
	State      string    `json:"state"`
	VerifiedAt time.Time `json:"verified_at,omitzero"`
	VerifiedBy string    `json:"verified_by,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// point is one per-second sample for the chart: seconds since the job
// started, bytes per second.
type point struct {
	t     float64
	rate  float64
	phase string
}

// Options tune Build.
type Options struct {
	// Now is the report's generation time; default time.Now.
	Now func() time.Time
	// Device returns a card's media and bus when they are known (the
	// catalog does not record them).
	Device func(k *catalog.Card) (media, bus string)
	// FS reads the poster frames: the job's filesystem, with its dit
	// arrays open (nil: folders, and each array opened read-only).
	FS fsys.FS
	// ALE adds the job's editorial lists (its Avid Log Exchange files,
	// CMX 3600 EDLs and FCPXMLs, one per frame rate) to [Report.Outputs]
	// when it has clips.
	ALE bool
}

// ErrNotFinished is returned for a job that is running or interrupted.
var ErrNotFinished = errors.New("the job has not finished")

// Build reads a finished job from the catalog. A job that does not exist
// is an error wrapping catalog.ErrNoJob; one that is running or was
// interrupted wraps ErrNotFinished.
func Build(cat *catalog.Catalog, jobID int64, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	b, err := load(cat, jobID, o)
	if err != nil {
		return nil, err
	}
	b.start()
	b.source()
	b.sampleRates()
	ci := -1
	for _, k := range b.cards {
		if k.Hop == 2 {
			continue // with its card
		}
		ci++
		c, err := b.card(k, &b.sum.Cards[ci])
		if err != nil {
			return nil, err
		}
		b.r.add(c)
	}
	b.r.loadThumbnails()
	b.totals()
	return b.r, nil
}

// builder is what Build reads of a job from the catalog, and the report
// its steps fill in.
type builder struct {
	cat     *catalog.Catalog
	o       Options
	j       *catalog.Job
	sum     *offload.Summary
	cards   []*catalog.Card
	dests   []*catalog.Dest
	samples []catalog.Sample
	planned map[string][2]string
	act     *offload.Activity
	tots    map[int64]*catalog.CardTotals

	r       *Report
	destIdx map[int64]int           // destination id: its index in dests
	second  map[int64]*catalog.Card // card id: its second run's card
	// rates are the samples' rates by card, destination and phase (card
	// 0: a destination's, every card's of a second summed).
	rates, destRates map[rateKey][]float64
}

type rateKey struct {
	card, dest int64
	phase      string
}

// load reads the job (finished) and what its report is made of.
func load(cat *catalog.Catalog, jobID int64, o Options) (*builder, error) {
	j, err := cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	if j.State == catalog.JobRunning || j.State == catalog.JobInterrupted {
		return nil, fmt.Errorf("job %d is %s: %w; resume it (dit offload --resume %d, with the same --db if one was given) and report it when it is done", jobID, j.State, ErrNotFinished, jobID)
	}
	b := &builder{cat: cat, o: o, j: j}
	if b.sum, err = summary.LoadListing(cat, jobID, MaxListed); err != nil {
		return nil, err
	}
	if b.cards, err = cat.Cards(jobID); err != nil {
		return nil, err
	}
	if b.dests, err = cat.Dests(jobID); err != nil {
		return nil, err
	}
	if b.samples, err = cat.Samples(jobID); err != nil {
		return nil, err
	}
	if b.planned, err = plannedDevices(cat, jobID); err != nil {
		return nil, err
	}
	if b.act, err = offload.JobActivity(cat, jobID); err != nil {
		return nil, err
	}
	if b.tots, err = cat.JobTotals(jobID); err != nil {
		return nil, err
	}
	return b, nil
}

// start makes the report with the job and its destinations.
func (b *builder) start() {
	j := b.j
	b.r = &Report{Generated: b.o.Now(), Job: Job{ID: j.ID, Name: j.Name, State: string(b.sum.Status), Host: j.Host, ToolVersion: j.ToolVersion,
		Started: j.Started, Finished: j.Finished, Hashes: strings.Split(j.Hashes, ","), Verify: j.VerifyMode,
		VerifyHashes: j.VerifyHashes, Layout: j.Layout, Error: j.Error}, ale: b.o.ALE, fs: b.o.FS,
		places: mountplace.NewResolver()}
	b.destIdx = map[int64]int{}
	for i, d := range b.dests {
		b.destIdx[d.ID] = i
		dt := DestTotals{Path: d.Path, Array: b.r.arrayPlace(d.Path)}
		if d.Hop == 2 {
			dt.Run = 2
		}
		b.r.Destinations = append(b.r.Destinations, dt)
	}
	b.second = map[int64]*catalog.Card{}
	for _, k := range b.cards {
		if k.Hop == 2 {
			b.second[k.FromCard] = k
		}
	}
}

// sampleRates groups the per-second samples' rates by card,
// destination and phase; a destination's rate in a second is what every
// card moved to it in that second: the cards' samples of one tick (one
// time) summed.
func (b *builder) sampleRates() {
	type tick struct {
		k rateKey
		t int64
	}
	b.rates = map[rateKey][]float64{}
	destTick := map[tick]float64{}
	var ticks []tick
	for _, s := range b.samples {
		k := rateKey{s.CardID, s.DestID, s.Phase}
		b.rates[k] = append(b.rates[k], s.Rate)
		if s.DestID != 0 {
			tk := tick{rateKey{0, s.DestID, s.Phase}, s.T.UnixNano()}
			if _, ok := destTick[tk]; !ok {
				ticks = append(ticks, tk)
			}
			destTick[tk] += s.Rate
		}
	}
	b.destRates = map[rateKey][]float64{}
	for _, tk := range ticks {
		b.destRates[tk.k] = append(b.destRates[tk.k], destTick[tk])
	}
}

// card is card k of the first run with its summary cs: its figures, its
// second run, its copies on each destination, its files, its chart's
// samples and its clips.
func (b *builder) card(k *catalog.Card, cs *offload.CardSummary) (Card, error) {
	c := Card{CardFigures: cs.CardFigures, Source: k.Path, Skipped: []Skip{}, Failures: []Failure{},
		CopyRate: stats(b.rates[rateKey{k.ID, 0, "copy"}]), VerifyRate: stats(b.rates[rateKey{k.ID, 0, "verify"}])}
	if b.o.Device != nil {
		c.Media, c.Bus = b.o.Device(k)
	} else if d, ok := b.planned[k.Label]; ok {
		c.Media, c.Bus = d[0], d[1]
	}
	if err := b.skipped(&c, k); err != nil {
		return c, err
	}
	for _, f := range cs.Failures {
		c.Failures = append(c.Failures, Failure{Path: f.Path, Error: f.Error})
	}
	c.FailuresMore = cs.FailuresMore
	h := b.second[k.ID]
	b.secondRun(&c, cs, h)
	c.NotListed = c.notListed(b.j.ID)
	if ca := b.act.Cards[k.ID]; ca != nil {
		c.BytesVerified = ca.BytesVerified
		c.CopySeconds, c.VerifySeconds = round(ca.CopyTime.Seconds(), 3), round(ca.VerifyTime.Seconds(), 3)
		c.ActiveSeconds = round(ca.ActiveTime.Seconds(), 3)
		c.CopyTBPerHour = round(ca.CopyTBPerHour(), 3)
		c.VerifyTBPerHour = round(ca.VerifyTBPerHour(), 3)
		c.EndToEndTBPerHour = c.TBPerHour // the summary's: the same figure
	}
	b.cardDests(&c, k, h)
	if err := b.count(&c, k, h); err != nil {
		return c, err
	}
	for _, s := range b.samples {
		if s.CardID == k.ID && s.DestID == 0 {
			c.series = append(c.series, point{t: s.T.Sub(b.j.Started).Seconds(), rate: s.Rate, phase: s.Phase})
		}
	}
	noReadBackFigures(&c)
	if err := loadProxies(b.r, b.cat, b.j.ID, k.ID, &c); err != nil {
		return c, err
	}
	return c, loadClips(b.cat, k.ID, &c)
}

// errListed stops a walk of a card's skipped entries once MaxListed
// are held.
var errListed = errors.New("listed")

// skipped are card k's first MaxListed skipped entries, read as they
// come, and how many more it has (counted in the catalog).
func (b *builder) skipped(c *Card, k *catalog.Card) error {
	n, err := b.cat.SkippedCount(k.ID)
	if err != nil {
		return err
	}
	err = b.cat.EachSkipped(k.ID, func(s catalog.Skip) error {
		if len(c.Skipped) == MaxListed {
			return errListed
		}
		c.Skipped = append(c.Skipped, Skip{Path: s.Rel, Kind: s.Kind, Reason: s.Reason})
		return nil
	})
	if err != nil && !errors.Is(err, errListed) {
		return err
	}
	c.SkippedMore = max(n.N-len(c.Skipped), 0)
	return nil
}

// secondRun is a cascade card's second run (h, nil without one).
func (b *builder) secondRun(c *Card, cs *offload.CardSummary, h *catalog.Card) {
	if cs.Then == nil || h == nil {
		return
	}
	c.Then = &SecondRun{Source: b.r.displayOpen(cs.Then.Source), State: string(cs.Then.Status), Files: cs.Then.Files, Bytes: cs.Then.Bytes,
		Failed: cs.Then.Failed, CopyStarted: h.CopyStarted, CopyFinished: h.CopyFinished, DoneAt: h.DoneAt}
	if ha := b.act.Cards[h.ID]; ha != nil {
		c.Then.BytesCopied = ha.BytesCopied
		c.Then.CopySeconds, c.Then.ActiveSeconds = round(ha.CopyTime.Seconds(), 3), round(ha.ActiveTime.Seconds(), 3)
		c.Then.CopyTBPerHour, c.Then.EndToEndTBPerHour = round(ha.CopyTBPerHour(), 3), round(ha.EndToEndTBPerHour(), 3)
	}
	for _, f := range cs.Then.Failures {
		c.Failures = append(c.Failures, Failure{Path: f.Path + " (2nd run)", Error: f.Error})
	}
	c.FailuresMore += cs.Then.FailuresMore
}

// cardDests are card k's folders on each destination with their write
// and read-back rates (a second run's, from its card h).
func (b *builder) cardDests(c *Card, k, h *catalog.Card) {
	out, _ := offload.ExpandLayout(b.j.Layout, b.j.Name, k.Label, b.j.Started)
	for _, d := range b.dests {
		from, run := k.ID, 0
		if d.Hop == 2 {
			run = 2
			if h != nil {
				from = h.ID
			}
		}
		c.Destinations = append(c.Destinations, CardDest{Path: b.r.openPath(d.Path, out), Run: run,
			WriteRate: stats(b.rates[rateKey{from, d.ID, "copy"}]), ReadBackRate: stats(b.rates[rateKey{from, d.ID, "verify"}])})
	}
}

// add puts card c in the report and its figures in the totals.
func (r *Report) add(c Card) {
	r.Totals.Cards++
	if c.SafeToFormat {
		r.Totals.SafeToFormat++
	}
	r.Totals.Skipped += len(c.Skipped) + c.SkippedMore
	r.Cards = append(r.Cards, c)
}

// totals are the destinations' rates and the job's figures.
func (b *builder) totals() {
	r := b.r
	for i, d := range b.dests {
		r.Destinations[i].WriteRate = stats(b.destRates[rateKey{0, d.ID, "copy"}])
		r.Destinations[i].ReadBackRate = stats(b.destRates[rateKey{0, d.ID, "verify"}])
	}
	t, act := &r.Totals, b.act
	t.JobFigures = b.sum.JobFigures
	t.BytesVerified, t.Resumed = act.BytesVerified, t.Runs > 1
	t.CopyTBPerHour, t.VerifyTBPerHour = round(act.CopyTBPerHour(), 3), round(act.VerifyTBPerHour(), 3)
	t.Verified = t.Cards > 0 && t.SafeToFormat == t.Cards
	r.noJobReadBackFigures()
	for _, p := range b.sum.Plans {
		if p.Simulated {
			t.Simulated, t.SimulateScale = true, p.Scale
		}
	}
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// stats summarises rates: mean, min, max and the 95th percentile (nearest
// rank), rounded to whole bytes per second.
func stats(rates []float64) Rate {
	if len(rates) == 0 {
		return Rate{}
	}
	s := append([]float64(nil), rates...)
	sort.Float64s(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	rank := int(math.Ceil(0.95*float64(len(s)))) - 1
	return Rate{Samples: len(s), Mean: math.Round(sum / float64(len(s))), Min: math.Round(s[0]), Max: math.Round(s[len(s)-1]),
		P95: math.Round(s[max(rank, 0)])}
}

// FormatTBH renders a TB/hour figure with three decimals ("-" if none).
func FormatTBH(v float64) string {
	if v == 0 {
		return "-"
	}
	return units.FormatTBPerHour(v)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// plannedDevices reads each card's medium and bus from the job's first
// recorded bus-budget plan (a job run with --topology, --simulate or
// discovery): label -> {media, bus}. Jobs without a plan give none.
func plannedDevices(cat *catalog.Catalog, jobID int64) (map[string][2]string, error) {
	plans, err := cat.Plans(jobID)
	if err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for _, p := range plans {
		var detail struct {
			Cards []struct {
				Name  string `json:"name"`
				Media string `json:"media"`
				Bus   string `json:"bus"`
			} `json:"cards"`
		}
		if json.Unmarshal([]byte(p.Detail), &detail) != nil {
			continue
		}
		for _, c := range detail.Cards {
			if _, seen := out[c.Name]; !seen && (c.Media != "" || c.Bus != "") {
				out[c.Name] = [2]string{c.Media, c.Bus}
			}
		}
	}
	return out, nil
}
