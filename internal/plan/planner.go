package plan

import (
	"math"

	"github.com/dit-org/dit/internal/hashing"
)

// Limits a card's rate can be limited by (CardPlan.LimitedBy).
const (
	LimitMedia   = "media"   // the card itself: it runs at full speed
	LimitCPU     = "cpu"     // hashing
	LimitUnknown = "unknown" // no rate known anywhere on its path
	busPrefix    = "bus:"
	destPrefix   = "dest:"
)

// CPU is what the planner knows of the machine's processor.
type CPU struct {
	// Cores usable for hashing.
	Cores float64
	// PerCore are single-core hash speeds in bytes/s.
	PerCore map[hashing.Algo]float64
	// MD5 are MD5's rates measured with k streams hashing at once (k
	// the key): the process hashes several MD5 streams in one core's
	// vector lanes (internal/hashing/lanes). Empty: PerCore[MD5], each
	// stream on a core of its own.
	MD5 map[int]StreamRate
}

// StreamRate is a hash's rate with several streams hashing at once.
type StreamRate struct {
	Stream  float64 // bytes/s of one stream
	PerCore float64 // bytes of all the streams hashed per core-second
}

// MD5At is MD5's rate for a job of n streams: the measurement of the
// most streams not above n (ok false: none).
func (c *CPU) MD5At(n int) (r StreamRate, ok bool) {
	best := 0
	for k, v := range c.MD5 {
		if k <= n && k > best && v.Stream > 0 && v.PerCore > 0 {
			best, r = k, v
		}
	}
	return r, best > 0
}

// Options say what the job does besides moving bytes.
type Options struct {
	// Hashes are computed on every card's stream, one goroutine per
	// algorithm (so MD5 runs on one core per card).
	Hashes []hashing.Algo
	// Verify plans the read-back of every copy: it counts against each
	// destination's read rate and its buses, and its hashing (VerifyHashes)
	// against the CPU.
	Verify       bool
	VerifyHashes []hashing.Algo
	// CPU, when set, adds the hashing constraints.
	CPU *CPU
	// FitMedia lists media for which Result.Fits says how many more cards
	// would still run at full speed (default: the media of the sources).
	FitMedia []string
	// NoFits skips the what-if counts (the scheduler's re-plans).
	NoFits bool
	// ThenParallel is how many cards a cascade's second run copies at
	// once (destinations with Run 2; default 1).
	ThenParallel int
}

// CardPlan is one card's planned rate and why.
type CardPlan struct {
	Name      string  `json:"name"`
	Media     string  `json:"media,omitempty"`
	Bus       string  `json:"bus,omitempty"`
	Rate      float64 `json:"rate_bytes_per_s"`
	MediaRate float64 `json:"media_rate_bytes_per_s,omitempty"`
	// LimitedBy is media, bus:NAME, dest:NAME, cpu or unknown.
	LimitedBy string `json:"limited_by"`
	// Why says it in words.
	Why   string `json:"why"`
	Bytes int64  `json:"bytes,omitempty"`
	// ETASeconds is the time to copy the card at the planned rates,
	// re-planned as other cards finish, with its start and its files'
	// costs when its file count is known (Files); nil when the size is
	// unknown.
	ETASeconds *float64 `json:"eta_s"`
	// SafeSeconds is when the card is safe to format, in seconds from
	// the start: copied, its last file read back on every destination
	// (and what the read-back fell behind per file), and its fixed costs
	// after the last byte (sealing, cloud listings, the history's
	// upload); in a cascade, its second run's. FreeSeconds (a cascade)
	// is when its first run is done that way: the card may leave the
	// reader. nil when a size or a rate on the way is unknown.
	FreeSeconds *float64 `json:"card_free_s,omitempty"`
	SafeSeconds *float64 `json:"safe_to_format_s,omitempty"`
	// Files is the card's file count (0: unknown). With it the plan
	// counts PerFileSeconds for each file copied (VerifyPerFileSeconds
	// for each read back) and FixedSeconds once: its run-1
	// destinations' costs (Costs: measured after earlier jobs, or the
	// defaults of their kinds), the most of their per-file costs, the
	// sum of their start and sealing (its files' entries in its history
	// included); 0 when not counted.
	Files                int     `json:"files,omitempty"`
	PerFileSeconds       float64 `json:"per_file_s"`
	VerifyPerFileSeconds float64 `json:"verify_per_file_s,omitempty"`
	FixedSeconds         float64 `json:"fixed_s"`
	// VerifyRate is the card's read-back rate after its copy: the
	// slowest of its run-1 destinations read back (0: none, or no
	// read-back). See Result.Prior.
	VerifyRate float64 `json:"verify_rate_bytes_per_s,omitempty"`
	// A cascade (Result.Cascade): SecondRate is its second run's rate
	// when it starts and SecondLimitedBy what bounds it.
	SecondRate      float64 `json:"second_run_rate_bytes_per_s,omitempty"`
	SecondLimitedBy string  `json:"second_run_limited_by,omitempty"`
}

// LinkLoad is one bus's planned load.
type LinkLoad struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Parent string `json:"parent,omitempty"`
	// Load is the busier direction (reads from devices or writes to them;
	// both together on a half-duplex bus).
	Load     float64  `json:"load_bytes_per_s"`
	Capacity float64  `json:"capacity_bytes_per_s"`
	Headroom float64  `json:"headroom_bytes_per_s"`
	Reads    float64  `json:"read_bytes_per_s"`
	Writes   float64  `json:"write_bytes_per_s"`
	Cards    []string `json:"cards,omitempty"`
	Dests    []string `json:"destinations,omitempty"`
	Full     bool     `json:"full"`
}

// DestLoad is one destination's planned load, in bytes of data.
type DestLoad struct {
	Name string `json:"name"`
	Bus  string `json:"bus,omitempty"`
	// Load is the data written per second; Capacity what the destination
	// takes (write rate over the RAID's write amplification, blade caps,
	// --limit); 0 when unknown.
	Load         float64 `json:"load_bytes_per_s"`
	Capacity     float64 `json:"capacity_bytes_per_s"`
	Headroom     float64 `json:"headroom_bytes_per_s"`
	ReadLoad     float64 `json:"read_load_bytes_per_s"`
	ReadCapacity float64 `json:"read_capacity_bytes_per_s"`
	// Amplification is the bytes the blades write per byte of data.
	Amplification float64 `json:"write_amplification"`
	// Run: 1, or 2 for a cascade's second-run destination.
	Run int `json:"run"`
	// Cloud: a cloud remote, written through the uplink (its capacity)
	// and verified by the storage's checksum, not read back locally.
	Cloud bool `json:"cloud,omitempty"`
	// SharesUplink: a cloud remote whose capacity is the uplink's, shared
	// with the other cloud destinations (Result.Uplink): its Headroom is
	// the least of its own and the uplink's, which is one room for all
	// of them, not one each.
	SharesUplink bool `json:"shares_uplink,omitempty"`
	Full         bool `json:"full"`
}

// CPULoad is the planned hashing load.
type CPULoad struct {
	Cores     float64 `json:"cores"`
	CoresUsed float64 `json:"cores_used"`
	// PerStream is the fastest one card's hashing can go, alone on the
	// machine: the speed of the slowest of the job's hashes on one core
	// (each hash runs on a core of its own), or less when all the cores
	// are needed for its hashes and read-back. 0: no hashes.
	PerStream float64 `json:"per_stream_bytes_per_s"`
	// SlowestHash is the slowest of the job's hashes; PerStreamWhy says
	// in words what bounds PerStream ("md5 on one core").
	SlowestHash  string `json:"slowest_hash,omitempty"`
	PerStreamWhy string `json:"per_stream_why,omitempty"`
}

// Fit says how many more cards of a medium would still run at full speed
// on a bus (or each on a new bus of its reader's kind, Bus ""), without
// slowing any card already planned.
type Fit struct {
	Media string `json:"media"`
	Bus   string `json:"bus,omitempty"`
	More  int    `json:"more"`
	// AtLeast is set when the count stopped at the search limit.
	AtLeast bool `json:"at_least,omitempty"`
	// StoppedBy is what would limit one card more.
	StoppedBy string `json:"stopped_by,omitempty"`
}

// Result is a plan.
type Result struct {
	Cards        []CardPlan `json:"cards"`
	Buses        []LinkLoad `json:"buses"`
	Destinations []DestLoad `json:"destinations"`
	CPU          *CPULoad   `json:"cpu,omitempty"`
	Total        float64    `json:"total_bytes_per_s"`
	TBPerHour    float64    `json:"tb_per_hour"`
	// ETASeconds is when the last card is copied (nil: a size is unknown);
	// SafeSeconds when every card is safe to format (nil: unknown).
	ETASeconds  *float64 `json:"eta_s"`
	SafeSeconds *float64 `json:"safe_to_format_s,omitempty"`
	// Bottleneck names, in words, what holds the job back most.
	Bottleneck string `json:"bottleneck"`
	Fits       []Fit  `json:"fits,omitempty"`
	// Cascade is the plan of a cascade's two runs (nil without one).
	Cascade *Cascade `json:"cascade,omitempty"`
	// Uploads are the cloud destinations' finish times.
	Uploads []Upload `json:"uploads,omitempty"`
	// Uplink is the cart's uplink (upload_rate) as one resource: the
	// cloud destinations' writes together against it, its headroom
	// counted once (nil: no upload_rate, or no cloud destination).
	Uplink *LinkLoad `json:"uplink,omitempty"`
}

// Card returns the plan of the card called name, or nil.
func (r *Result) Card(name string) *CardPlan {
	for i := range r.Cards {
		if r.Cards[i].Name == name {
			return &r.Cards[i]
		}
	}
	return nil
}

// constraint is a linear budget: sum(coef[i] * rate[i]) <= cap.
type constraint struct {
	id   string // media | bus:NAME | dest:NAME | cpu
	prio int    // which one is named when several bind at once
	coef []float64
	cap  float64
	why  string // the budget in words
}

// When several budgets fill at once, the card is said to be limited by the
// first of: its medium, its port's per-device cap, a destination (the
// device a DIT thinks of when an array and its own link fill together), a
// bus (nearest the device first), the CPU.
const (
	prioMedia  = 0
	prioDevice = 1
	prioDest   = 2
	prioBus    = 10 // + up to 10 for the bus depth
	prioCPU    = 200
)

// Plan allocates each source's rate by max-min fairness (progressive
// filling): every card's rate rises together until a budget on its path
// is full (its medium, the per-device cap of its port, each bus up the
// tree in each direction, each destination's write rate, blade caps,
// limit and read-back rate, the CPU); the cards held by that budget stop
// there and the others keep rising. Every card is copied to every
// destination. Plan is pure: the same topology and options give the same
// result.
func Plan(t *Topology, o Options) (*Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	cons, err := build(t, o, len(t.Sources))
	if err != nil {
		return nil, err
	}
	rates, limits := fill(cons, len(t.Sources))
	res := describeResult(t, o, cons, rates, limits)
	etas(t, o, res)
	cascade(t, o, res)
	uploads(t, res)
	lastSafe(res)
	if !o.NoFits {
		fits(t, o, res)
	}
	return res, nil
}

const eps = 1e-9

// fill is progressive filling: it returns each flow's rate and the index
// of the constraint that stopped it (-1: none; the rate is then 0).
func fill(cons []constraint, n int) ([]float64, []int) {
	rates := make([]float64, n)
	limits := make([]int, n)
	frozen := make([]bool, n)
	for i := range limits {
		limits[i] = -1
	}
	left := n
	for left > 0 {
		best := math.Inf(1)
		ts := make([]float64, len(cons))
		for ci, c := range cons {
			ts[ci] = math.Inf(1)
			var sum, used float64
			for i, a := range c.coef {
				if a == 0 {
					continue
				}
				if frozen[i] {
					used += a * rates[i]
				} else {
					sum += a
				}
			}
			if sum <= 0 {
				continue
			}
			ts[ci] = max((c.cap-used)/sum, 0)
			best = min(best, ts[ci])
		}
		if math.IsInf(best, 1) {
			for i := range frozen {
				if !frozen[i] {
					frozen[i] = true
					rates[i] = 0
				}
			}
			break
		}
		for i := range frozen {
			if frozen[i] {
				continue
			}
			pick := -1
			for ci, c := range cons {
				if c.coef[i] == 0 || ts[ci] > best*(1+eps)+eps {
					continue
				}
				if pick < 0 || c.prio < cons[pick].prio {
					pick = ci
				}
			}
			if pick >= 0 {
				frozen[i], rates[i], limits[i] = true, best, pick
				left--
			}
		}
		// Flows in no binding constraint keep rising with the others.
		for i := range frozen {
			if !frozen[i] {
				rates[i] = best
			}
		}
	}
	return rates, limits
}
