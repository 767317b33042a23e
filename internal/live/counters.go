package live

import "time"

// Counters is what the engine counted of one run of a card, read once a
// tick (the pipeline's own counters; the model keeps no other record).
// Byte and file counts are distinct: a byte read again after a retry is
// in BytesResent, not again in BytesCopied.
type Counters struct {
	// Key identifies the run across ticks (the engine's run; a card
	// taken up again by a retry is a new run).
	Key   any
	Label string
	Hop   int
	Phase Phase
	// What the run copies and what is copied of it: Files the run's
	// files (its card's), FilesToCopy those it reads to write.
	Files       int
	FilesToCopy int
	Bytes       int64
	FilesCopied int
	BytesCopied int64
	BytesResent int64
	FilesDone   int
	FilesFailed int
	// What is read back over all destinations, and so far.
	VerifyFiles   int
	VerifyTotal   int64
	FilesVerified int
	BytesVerified int64
	CardSide
	// After: the phases after the read-back (hash lists, proxies).
	After
	Dests []DestCounters
}

// CardSide is where a run is on its source: Current the file being read
// (or read back); Retries the files dit tried again in this run;
// CardError why the card's side is held, when dit knows.
type CardSide struct {
	Current   string
	Retries   int
	CardError string
}

// After counts the phases of a card after its copies are read back: the
// seal (its hash lists: SealFiles files to name, a file once per
// destination; FilesSealed named so far) and its editorial proxies
// (Proxies clips to make, ProxiesMade made so far, failed ones
// included: done with). In a snapshot each done figure is capped at its
// total; 0 totals (omitted in JSON): the run has none, or has not come
// to them yet.
type After struct {
	SealFiles   int `json:"seal_files,omitempty"`
	FilesSealed int `json:"files_sealed,omitempty"`
	Proxies     int `json:"proxies,omitempty"`
	ProxiesMade int `json:"proxies_made,omitempty"`
	// SealSteps counts every file the seal's walks came to, over all its
	// walks and destinations (it walks the card's files more than once;
	// FilesSealed, capped, is how far the first walk is): the run moves
	// while it grows. Not in snapshots.
	SealSteps int64 `json:"-"`
}

// capped is a with every done figure at most its total.
func (a After) capped() After {
	a.FilesSealed = min(max(a.FilesSealed, 0), a.SealFiles)
	a.ProxiesMade = min(max(a.ProxiesMade, 0), a.Proxies)
	a.SealSteps = 0
	return a
}

// DestCounters is what the engine counted of one run's copy on one
// destination.
type DestCounters struct {
	Dest          string
	State         DestState
	Bytes         int64
	BytesWritten  int64
	BytesResent   int64
	VerifyTotal   int64
	BytesVerified int64
	// VerifyFiles: files to read back there; FilesVerified: read back so
	// far; VerifyBusy: the time spent reading them back (the read-back's
	// own clock: what its costs are measured by).
	VerifyFiles   int
	FilesVerified int
	VerifyBusy    time.Duration
	FilesFailed   int
	Current       string
	// Retries made there so far; Retry/RetryOf the one in progress
	// (RetryOf 0: no limit known); LastError the last failure's reason,
	// at ErrorAt.
	Retries   int
	Retry     int
	RetryOf   int
	LastError string
	ErrorAt   time.Time
}

// Prior is what the plan expects of a run before it is measured: the
// card's read rate (bytes/s, 0: not planned), the cost of each file
// (opening, creating, syncing, renaming), the read-back rate of each of
// its destinations and their cost per file, and the fixed cost of
// the run after its last byte is read back (writing its hash lists,
// cloud listings, a history upload): Fixed, plus SealPerFile for each
// of its files (a hash list names every file).
type Prior struct {
	Rate          float64
	PerFile       time.Duration
	VerifyRate    float64
	VerifyPerFile time.Duration
	Fixed         time.Duration
	SealPerFile   time.Duration
}

// Config is what the model knows of a job.
type Config struct {
	// Window: the time constant over which rates are smoothed and costs
	// measured (default RateWindow); StallAfter: a card or destination
	// with work left that has not moved for this long is stalled
	// (default StallAfter).
	Window     time.Duration
	StallAfter time.Duration
	// Prior gives the plan's figures of a run (nil: none planned).
	Prior func(label string, hop int) Prior
	// Verify: copies are read back. Cascade: the job's cards have a
	// second run to ThenDests destinations, ThenSlots at once (default 1).
	Verify    bool
	Cascade   bool
	ThenDests int
	ThenSlots int
	// Earlier: what the job's earlier runs (before a resume) read from
	// the cards and the time they were active, for the job's TB/hour.
	EarlierBytes  int64
	EarlierActive time.Duration
}

// RateWindow is the default window of rates and measured costs.
const RateWindow = 8 * time.Second

// StallAfter is the default time without movement that makes a stall.
const StallAfter = 10 * time.Second
