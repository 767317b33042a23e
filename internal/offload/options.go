package offload

import (
	"context"
	"path/filepath"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/raid"
)

// VerifyMode says what is read back after a copy.
// VerifyLimit is what read-back verification cannot catch, in the words
// the README, dit offload --help and the desktop app use.
const VerifyLimit = "Every copy is compared with the hashes of one read of the card. A card or " +
	"reader that returns a wrong bit on that read gives copies that match each other and the " +
	"hashes, so they verify. Re-reading the card (--verify source+dest; in the app: \"and re-read " +
	"the card\") catches it, at the cost of a second read on the card's bus."

type VerifyMode string

// Verify modes.
const (
	VerifyNone       VerifyMode = "none"        // copied, not verified: never safe to format
	VerifyDest       VerifyMode = "dest"        // read every copy back from its medium
	VerifySourceDest VerifyMode = "source+dest" // also re-read the card
)

// ParseVerifyMode checks a --verify value.
func ParseVerifyMode(s string) (VerifyMode, error) {
	switch VerifyMode(s) {
	case VerifyNone, VerifyDest, VerifySourceDest:
		return VerifyMode(s), nil
	}
	return "", usageErrorf("invalid --verify %q: use dest (default), source+dest or none", s)
}

// Conflict says what happens when a different file already exists where a
// copy would go.
type Conflict string

// Conflict policies.
const (
	ConflictFail   Conflict = "fail"   // the file fails on that destination
	ConflictSkip   Conflict = "skip"   // left alone, recorded as skipped (card not safe to format)
	ConflictRename Conflict = "rename" // the copy is written as "name (2).ext"
)

// ParseConflict checks an --on-conflict value.
func ParseConflict(s string) (Conflict, error) {
	switch Conflict(s) {
	case ConflictFail, ConflictSkip, ConflictRename:
		return Conflict(s), nil
	}
	return "", usageErrorf("invalid --on-conflict %q: use fail (default), skip or rename", s)
}

// DefaultLayout puts each card in its own folder under the job's folder.
const DefaultLayout = "{job}/{card}"

// Options configure an offload job, in three parts, embedded so that
// o.Cards, o.FS and o.OnEvent are its own fields too:
//
//   - JobSpec: what the job is, recorded by New and restored by Resume;
//   - Env: what one run of it is given, anew on every run (the filesystem,
//     the catalog, the clock, the limiter, tuning, the creator info);
//   - Hooks: the functions it calls (events, the seal, the reports).
type Options struct {
	JobSpec
	Env
	Hooks
}

// JobSpec is what a job is: every field is recorded by New (the catalog's
// job row, its cards and destinations) and restored by Resume, which runs
// the job with the JobSpec it was started with, whatever the front end
// gives (a resumed job's MHL: "" or the recorded one, any other is
// refused, see ResumeMHL; the CLI refuses the others too, checkResume).
// The rule: a setting belongs here only if a resume restores it
// (TestJobSpecSurvivesResume fails for one that does not); a setting that
// may differ from one run of the job to the next belongs to Env.
type JobSpec struct {
	Name  string   // job name; default: local date and time
	Cards []string // card folders or mount points
	Dests []string // destination folders (must exist)
	// Then are a cascade's second-run destinations: filled from each
	// card's first copy (on Dests[0]) once the card is verified on every
	// destination of Dests ("card free"); see cascade.go. ThenParallel is
	// how many cards the second run copies at once (default 1).
	Then         []string
	ThenParallel int
	Hashes       []hashing.Algo
	Verify       VerifyMode
	// VerifyAll recomputes every selected hash on read-back instead of
	// only the fastest one.
	VerifyAll     bool
	Layout        string
	OnConflict    Conflict
	IncludeHidden bool
	// Ignore are patterns of files not to copy, in ASC MHL's gitignore
	// syntax (Appendix C): "*.RMD", "CACHE/", "/PROXY". Files they match are
	// recorded as skipped (kind "ignored") and the patterns go into each
	// card's ASC MHL ignore list, so the history verifies.
	Ignore []string
	// MHL is the hash lists the front end writes into each card's folder
	// (asc, v1, both or none; see internal/seal.ParseFormat), so that a
	// resumed job writes the same lists (default asc). The engine only
	// records it: Seal writes the lists. On Resume, "" takes the job's
	// recorded choice and a different value is refused (see ResumeMHL).
	MHL string
	// Proxies are the editorial proxies the front end makes of each
	// card's clips once the card is verified ("PRESET[,burnin]", dit
	// offload --proxies; "" none) and ProxiesTo the destinations they go
	// to, so that a resumed job makes the same ones. The engine only
	// records them: internal/assembly makes the proxies and refuses a
	// resume that asks for others (assembly.ResumeProxies). A job
	// recorded before they were (catalog.Job.ProxiesUnrecorded) takes
	// those it is given.
	Proxies   string
	ProxiesTo []string
	// RcloneConfig is the rclone configuration file the cloud
	// destinations are reached with (absolute; "" rclone's own choice)
	// and RemoteBwLimit their upload limit in bytes/s (0 none), so that a
	// resumed job (and dit verify JOB) reaches its remotes as it
	// started. A front end gives them here or in Env.Remote (its
	// Recorded: the limit in dit's rate syntax, ParseRemoteBwLimit); New
	// records them.
	RcloneConfig  string
	RemoteBwLimit int64
}

// Env is what one run of a job is given and the catalog does not keep: a
// resume is given it anew, and may give it differently.
type Env struct {
	// The machine and the process.
	FS      fsys.FS
	Catalog *catalog.Catalog // Resume's own catalog argument takes its place
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// ToolVersion is recorded with a new job (the dit that started it)
	// and given to Seal and a dit array's writer by every run.
	ToolVersion string
	// BladeFS opens the blade folders of array destinations (tests inject
	// faults here; default: the OS).
	BladeFS func(dir string) raid.BladeFS
	// WrapStore, if set, wraps each remote destination's store as a
	// card's run opens it (tests inject transfer faults here).
	WrapStore func(dest.Store) dest.Store
	// RetryWait waits d before a streamed file's upload is tried again
	// (StreamRetries), or until ctx ends (its error then); nil: a timer.
	// Tests wait no real time.
	RetryWait func(ctx context.Context, d time.Duration) error
	// Limiter paces reads and writes (nil: as fast as the hardware goes).
	Limiter Limiter
	// Prior is the plan's figures of each run (rates, costs per file and
	// per card) that the live model's estimates start from (package
	// live); nil: none but Throttle, measured as the job runs.
	Prior func(label string, hop int) live.Prior
	// StallAfter: a card or destination with work left that has not
	// moved for this long is said to be stalled (0: live.StallAfter).
	StallAfter time.Duration

	// BlockSize is the read size; Buffers the number of blocks a file in
	// flight may hold (a card's pool: filesInFlight x Buffers blocks, so
	// memory per card is at most 4 x BlockSize x Buffers, allocated as
	// the read-ahead needs it). The defaults, 256 KiB x 32 (8 MiB a
	// file in flight, at most 32 MiB a card), keep a block in the CPU's
	// L2 cache while it is read, hashed and written: 5-8 % less CPU than
	// 1 MiB blocks in `make bench`, the same queue depth in bytes.
	BlockSize int
	Buffers   int
	// CheckpointEvery is how often (in bytes) a big file's copies are made
	// durable and the point recorded, so that an interrupted copy goes on
	// from there instead of from the start (files of at least twice this
	// size; on destinations that can reopen a temp: folders, not dit
	// arrays). 0: 64 MiB; negative: never.
	CheckpointEvery int64
	// Throttle caps each card's read rate in bytes/s (0: no cap).
	Throttle float64
	// RereadCard: a resume reads every kept prefix of a file going on
	// from the middle from the card again (checked against the prefix's
	// recorded digest), rather than from the last checkpoint's span on.
	RereadCard bool
	// AllowDegraded lets an offload write to a RAID 4 array with one blade
	// missing (its files are rebuilt onto the blade when it returns).
	AllowDegraded bool

	// Creator is what the DIT says of the offload in each card's hash
	// lists; NoDirectoryHashes has the ASC MHL manifest list the card's
	// folders without content and structure hashes. The engine passes
	// them to Seal (SealInfo) and records none: a resumed job writes
	// those it is given.
	Creator
	NoDirectoryHashes bool
	// ResumeArgs are what the front end's resume command needs besides
	// the job, e.g. "--db /path/catalog.db": added to every "dit offload
	// --resume N" the engine writes into messages.
	ResumeArgs string
	// Remote are the remote kind's settings (internal/offload/dest/remote:
	// remote.Settings, the rclone), which reach the remote destinations
	// (rclone:REMOTE:PATH, in Dests or Then; store.go): nil is the
	// kind's defaults, rclone on PATH with the user's own configuration.
	// A job with one hashes MD5 too. Their configuration file and limit
	// (Recorded: dit's rate syntax, decimal: "20MB/s") are taken into
	// JobSpec's RcloneConfig and RemoteBwLimit where those are not set;
	// the job runs with JobSpec's (dest.Settle).
	Remote dest.Settings
}

// Hooks are the front end's and the composition layer's functions a job
// calls.
type Hooks struct {
	// OnEvent receives events from any goroutine; it must not block long.
	OnEvent func(Event)
	// Seal, if set, is called for each card on each destination after
	// every file of the card reached its final state (the ASC MHL writer).
	// The card is "sealing" meanwhile, and "verified" (safe to format) only
	// once Seal returned nil or a *SealWarning for every destination; any
	// other error leaves it sealing, for a resume to finish.
	Seal func(ctx context.Context, info SealInfo) error
	// AfterJob, if set, is called once when the job ends (not when it is
	// interrupted) with its summary and the job's filesystem (through which
	// array destinations are reached), e.g. to write reports.
	AfterJob func(ctx context.Context, s *Summary, fsy fsys.FS) error
}

// Creator is what the DIT says of an offload in each card's hash lists
// (the ASC MHL manifest's <creatorinfo>: <author>, <location>, and
// Comment after dit's own <comment> text).
type Creator struct {
	Author            Author
	Location, Comment string
}

// Author is the person named in the hash lists' creator info: who ran or
// controlled the offload (name, email, phone, role; any may be empty).
type Author struct {
	Name, Email, Phone, Role string
}

func (o *Options) defaults() {
	if o.Verify == "" {
		o.Verify = VerifyDest
	}
	if o.Layout == "" {
		o.Layout = DefaultLayout
	}
	if o.OnConflict == "" {
		o.OnConflict = ConflictFail
	}
	if len(o.Hashes) == 0 {
		o.Hashes = []hashing.Algo{hashing.MD5, hashing.XXH64}
	}
	if o.BlockSize <= 0 {
		o.BlockSize = 256 << 10
	}
	if o.CheckpointEvery == 0 {
		o.CheckpointEvery = 64 << 20
	}
	if o.Buffers <= 0 {
		o.Buffers = 32
	}
	if o.FS == nil {
		o.FS = fsys.OS{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	if o.Name == "" {
		o.Name = o.Now().Format("2006-01-02_150405")
	}
	if o.MHL == "" {
		o.MHL = DefaultMHL
	}
	if o.ThenParallel <= 0 {
		o.ThenParallel = 1
	}
}

// settleRemote makes JobSpec's RcloneConfig and RemoteBwLimit the job's,
// taking the front end's (Env.Remote's Recorded) where they are not
// set, and gives Env.Remote them (dest.Settle). An invalid limit is a
// usage error naming it.
func (o *Options) settleRemote() error {
	var config, bwLimit string
	if o.Remote != nil {
		config, bwLimit = o.Remote.Recorded()
	}
	if o.RcloneConfig == "" && config != "" {
		abs, err := filepath.Abs(config)
		if err != nil {
			return usageErrorf("--rclone-config %q: %v", config, err)
		}
		o.RcloneConfig = abs
	}
	if o.RemoteBwLimit == 0 && bwLimit != "" {
		v, err := ParseRemoteBwLimit(bwLimit)
		if err != nil {
			return err
		}
		o.RemoteBwLimit = v
	}
	o.Remote = dest.Settle(o.Remote, o.RcloneConfig, o.RemoteBwLimit)
	return nil
}

// RemoteSettings are the settings a job's other uploads to remotes (its
// proxies) run with, as its files do: s (the front end's; nil the
// remote kind's defaults) with the configuration file and limit job rec
// recorded (rec nil: a new job, s's own), the limit in bytes/s. An
// invalid limit is a usage error.
func RemoteSettings(s dest.Settings, rec *catalog.Job) (dest.Settings, error) {
	o := Options{Env: Env{Remote: s}}
	if rec != nil {
		o.RcloneConfig, o.RemoteBwLimit = rec.RcloneConfig, rec.CloudBwLimit
	}
	if err := o.settleRemote(); err != nil {
		return nil, err
	}
	return o.Remote, nil
}

// ParseRemoteBwLimit reads a --cloud-bwlimit: a rate in dit's syntax,
// returned in whole bytes/s (dest.ParseBwLimit); anything else is a
// usage error naming the value and the syntax.
func ParseRemoteBwLimit(s string) (int64, error) { return dest.ParseBwLimit(s) }

// DefaultMHL is the hash lists of a job that names none (dit offload's
// --mhl default).
const DefaultMHL = "asc"

// ResumeMHL gives the hash lists a resumed job writes: the ones it was
// started with (rec.MHL). A requested choice ("" when the user named none)
// that differs is refused: the cards of one job would otherwise carry
// different lists on different runs, or lose a list that the first run
// began to write.
func ResumeMHL(rec *catalog.Job, requested string) (string, error) {
	stored := rec.MHL
	if stored == "" {
		stored = DefaultMHL
	}
	if requested != "" && requested != stored {
		return "", usageErrorf("job %d was started with --mhl %s, not --mhl %s: a resumed job writes the hash lists it started with; resume without --mhl (or with --mhl %s)",
			rec.ID, stored, requested, stored)
	}
	return stored, nil
}

// verifyAlgos is what read-back recomputes (dest.VerifyAlgos).
func verifyAlgos(hashes []hashing.Algo, all bool) []hashing.Algo {
	return dest.VerifyAlgos(hashes, all)
}

// ExpandLayout fills a --layout template (dest.ExpandLayout); a bad one
// is a [UsageError].
func ExpandLayout(tmpl, job, card string, start time.Time) (string, error) {
	out, err := dest.ExpandLayout(tmpl, job, card, start)
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return out, nil
}

// UsageError is bad input (dit exits 2 on it: cmd/dit ExitUsage;
// dest.UsageError).
type UsageError = dest.UsageError

func usageErrorf(format string, a ...any) error { return dest.Usagef(format, a...) }
