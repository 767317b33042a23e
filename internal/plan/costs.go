package plan

import (
	"math"
	"time"
)

// Costs are the time a destination adds to a card beyond its bytes, in
// seconds: what bytes over a rate miss (thousands of small files take far
// longer than their bytes; a card is not safe the instant its last byte
// is read back).
type Costs struct {
	// PerFile is what each file adds to the card's copy: creating it,
	// making it durable and renaming it on the destination, its catalog
	// rows, opening it on the card (one file after another: the slowest
	// destination's).
	PerFile float64 `json:"per_file_s"`
	// VerifyPerFile is what each file adds to its read-back (opening it,
	// dropping its cached pages, recording it); a read-back slower per
	// file than the copy falls behind by the difference, file by file.
	VerifyPerFile float64 `json:"verify_per_file_s"`
	// Start is the card's time before its first byte on this destination
	// (its folders; a cloud listing).
	Start float64 `json:"start_s"`
	// Fixed is the card's time from its last byte read back to safe to
	// format on this destination: sealing (its ASC MHL history written
	// and read back), a cloud listing for the storage's checksums, the
	// history's upload, rclone's process starts; SealPerFile is what
	// each file adds to it (its entry in the history). A card is sealed
	// on its destinations one after another: a run pays the sum of its
	// destinations' Start, Fixed and SealPerFile.
	Fixed       float64 `json:"fixed_s"`
	SealPerFile float64 `json:"seal_per_file_s"`
}

// Cost kinds: what a destination is to dit, which sets its default
// costs (Destination.CostKind; a cloud remote is CostCloud whatever its
// CostKind).
const (
	CostFolder = "folder" // a folder on a volume
	CostArray  = "array"  // a dit array (raid): through its own writer
	CostCloud  = "cloud"  // rclone:REMOTE:PATH
)

// DefaultCosts are the costs of a destination of each kind that has not
// been measured (Destination.Costs nil). They were measured with dit on
// a 2-core VM, each card's costs derived from its catalog as
// internal/sched's LearnCosts derives them after every job. A folder:
// cards of 3,000 files of 10 kB with four 40 MB clips to two folders on
// an ext4 disk, the machine otherwise idle (2026-12-04: 0.44-0.81 ms a
// file, 0.62-0.83 ms a file read back; at a --throttle the limit hides
// part of it, 0.27-0.63 ms; the same cards on the machine loaded 13-28
// by other work cost 1.1-2.0 ms, a figure that made every estimate of a
// card of small files several seconds long until its files were seen);
// sealing 0.02 s and 0.04 ms a file. A 4-blade dit RAID 4 on that disk
// (15-20 ms a file through the array's writer) and a local S3 server
// (moto) through rclone (11-17 ms an object; its listing and history 0.7
// s and 1.8 ms a file) were measured under load (2026-12-03). A folder in
// memory (tmpfs) costs a tenth of a disk's per file; what a volume costs
// is learned after its first job.
var DefaultCosts = map[string]Costs{
	CostFolder: {PerFile: 0.0006, VerifyPerFile: 0.0007, Start: 0.005, Fixed: 0.02, SealPerFile: 0.00004},
	CostArray:  {PerFile: 0.018, VerifyPerFile: 0.018, Start: 0.025, Fixed: 0.05, SealPerFile: 0.000045},
	CostCloud:  {PerFile: 0.012, VerifyPerFile: 0, Start: 0.05, Fixed: 0.7, SealPerFile: 0.0018},
}

// CostKindOf is d's cost kind: cloud for a cloud remote, else its
// CostKind (a folder when unset).
func CostKindOf(d Destination) string {
	switch {
	case IsCloud(d):
		return CostCloud
	case d.CostKind != "":
		return d.CostKind
	}
	return CostFolder
}

// DestCosts returns destination i's costs: measured (Costs) or the
// defaults of its kind.
func (t *Topology) DestCosts(i int) Costs {
	d := t.Destinations[i]
	if d.Costs != nil {
		return *d.Costs
	}
	return DefaultCosts[CostKindOf(d)]
}

// cardCosts are what a card's run (1, or 2 for a cascade's second run)
// pays beyond its bytes: the most of the per-file costs over the run's
// destinations (they are written and read back side by side), the sum
// of the start and sealing costs (a card's folders are made and its
// history sealed on one destination after another). Without read-back
// there is no VerifyPerFile.
func cardCosts(t *Topology, o Options, run int) Costs {
	var c Costs
	for i, d := range t.Destinations {
		if (d.Run == 2) != (run == 2) {
			continue
		}
		dc := t.DestCosts(i)
		c.PerFile = max(c.PerFile, dc.PerFile)
		c.VerifyPerFile = max(c.VerifyPerFile, dc.VerifyPerFile)
		c.Start += dc.Start
		c.Fixed += dc.Fixed
		c.SealPerFile += dc.SealPerFile
	}
	if !o.Verify {
		c.VerifyPerFile = 0
	}
	return c
}

// counted reports whether a card's costs are counted: only when its
// file count is known (a card folder that is here, files: in the
// topology); a card known by its size alone is planned by its bytes.
func counted(s Source) bool { return s.Files > 0 }

// overhead is the time card s's run pays beyond its bytes at rate r
// while it copies: its start (unless its copy has begun), and its files'
// costs where they do not hide behind its reads. The card is read on one
// side and its files written on the other, side by side: the copy takes
// the longer of its bytes at r and its files' costs with its bytes at w,
// the destinations' write rate that is the card's (0: unknown, not
// counted).
func overhead(s Source, c Costs, r, w float64) float64 {
	if !counted(s) {
		return 0
	}
	var v float64
	if !s.Copying {
		v = c.Start
	}
	files := float64(s.Files) * c.PerFile
	if w > 0 && !math.IsInf(w, 1) {
		files += float64(s.Size) / w
	}
	if r > 0 {
		files -= float64(s.Size) / r
	}
	return v + max(files, 0)
}

// tail is the time from a card's run's last byte copied to its last
// file read back on every destination of the run: what is left to read
// back then (LastFile) at the slowest destination's read rate the card
// gets (readOf: its read rate, or its share of it), its last file's
// read-back cost, and what the read-back fell behind when it is slower
// per file than the copy.
func tail(t *Topology, o Options, s Source, run int, readOf func(di int, d Destination) float64) float64 {
	if !o.Verify {
		return 0
	}
	var v float64
	for di := range t.Destinations {
		d := t.Dest(di)
		if (d.Run == 2) == (run == 2) && d.Read > 0 && !IsCloud(d) {
			v = max(v, float64(s.LastFile)/readOf(di, d))
		}
	}
	if counted(s) {
		c := cardCosts(t, o, run)
		v += c.VerifyPerFile + float64(s.Files)*max(0, c.VerifyPerFile-c.PerFile)
	}
	return v
}

// fullRead is a destination's whole read rate (a card alone reading
// back).
func fullRead(_ int, d Destination) float64 { return d.Read }

// fixedAfter is what a card's run pays after its last file is read back
// (sealing, cloud listings, the history's upload).
func fixedAfter(t *Topology, o Options, s Source, run int) float64 {
	if !counted(s) {
		return 0
	}
	c := cardCosts(t, o, run)
	return c.Fixed + float64(s.Files)*c.SealPerFile
}

// work is what is left of a card's run: bytes and the time it pays
// beyond them, paid along the bytes (a file's cost with its bytes).
type work struct {
	bytes, over float64
}

// left is the time the work takes at rate r (+Inf when r is 0 and bytes
// are left).
func (w work) left(r float64) float64 {
	if w.bytes <= 0 {
		return max(w.over, 0)
	}
	if r <= 0 {
		return math.Inf(1)
	}
	return w.bytes/r + w.over
}

// advance is the work left after dt seconds at rate r: both parts in the
// same proportion.
func (w work) advance(r, dt float64) work {
	total := w.left(r)
	if total <= 0 || math.IsInf(total, 1) {
		return w
	}
	f := max(total-dt, 0) / total
	return work{bytes: w.bytes * f, over: w.over * f}
}

// done reports whether the work is finished (size is the run's bytes).
func (w work) done(size float64) bool {
	return w.bytes <= size*1e-9+1 && w.over <= 1e-9
}

// Prior is what the plan expects of a card, for an estimator of time
// left that starts from the plan and corrects it with what the run
// measures (the engine's live estimate): the card's planned copy rate,
// what each file adds to the copy and to its read-back, the read-back's
// rate, and the card's fixed costs (before its first byte and after its
// last byte read back, its sealing with its files' entries). Its first
// four fields are those of the live model's prior.
type Prior struct {
	Rate          float64       // bytes/s of the copy (0: unknown)
	PerFile       time.Duration // added to the copy by each file
	VerifyRate    float64       // bytes/s of the read-back after the copy (0: unknown or none)
	Fixed         time.Duration // the card's fixed costs: start and after the last byte
	VerifyPerFile time.Duration // added to the read-back by each file
	Files         int           // the card's files (0: unknown; then PerFile is not counted in the plan)
	Bytes         int64         // the card's bytes (0: unknown)
}

// Prior returns the plan's prior for the card called name (its first
// run); false when the plan has no such card.
func (r *Result) Prior(card string) (Prior, bool) {
	c := r.Card(card)
	if c == nil {
		return Prior{}, false
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return Prior{Rate: c.Rate, PerFile: sec(c.PerFileSeconds), VerifyRate: c.VerifyRate, Fixed: sec(c.FixedSeconds),
		VerifyPerFile: sec(c.VerifyPerFileSeconds), Files: c.Files, Bytes: c.Bytes}, true
}

// cardCostFields fills a card's cost figures (its first run's, when
// they are counted) and its read-back rate: the slowest of its run-1
// destinations read back locally.
func cardCostFields(t *Topology, o Options, i int, cp *CardPlan) {
	s := t.Sources[i]
	cp.Files = s.Files
	if !counted(s) {
		return
	}
	c := cardCosts(t, o, 1)
	cp.PerFileSeconds, cp.VerifyPerFileSeconds = c.PerFile, c.VerifyPerFile
	cp.FixedSeconds = c.Start + fixedAfter(t, o, s, 1)
}

// verifyRate is card i's read-back rate after its copy: the slowest of
// its run-1 destinations read back locally (0: none, or no read-back).
func verifyRate(t *Topology, o Options, cp *CardPlan) {
	if !o.Verify {
		return
	}
	for di := range t.Destinations {
		d := t.Dest(di)
		if d.Run != 2 && !IsCloud(d) && d.Read > 0 && (cp.VerifyRate == 0 || d.Read < cp.VerifyRate) {
			cp.VerifyRate = d.Read
		}
	}
}
