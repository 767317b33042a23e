package assembly

import (
	"context"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// Settings are everything a job is assembled from: what the job is (kept
// by a resume), what it runs on, and the front end's hooks. The zero
// value of a field is the engine's default.
type Settings struct {
	// Resume, when not 0, continues that interrupted job: its cards,
	// destinations and settings come from the catalog (Cards, Dests and
	// Then are not used; MHL "" takes the recorded choice, Proxies and
	// ProxiesTo empty the recorded ones: ResumeProxies).
	Resume int64

	Name  string
	Cards []string
	Dests []string
	// Then are a cascade's second-run destinations (dit offload --then);
	// ThenParallel how many cards the second run copies at once.
	Then         []string
	ThenParallel int
	// Again copies every card even if the catalog shows it offloaded and
	// verified before; AgainCards does so for these cards only (dit-gui's
	// "Copy it again").
	Again      bool
	AgainCards []string

	// How each file is copied and checked, what is sealed into each
	// card's folder, and the proxies made of the clips.
	Copying
	Sealing
	Proxying

	// Rclone reaches the cloud destinations (rclone:REMOTE:PATH among
	// Dests or Then): its configuration file and bandwidth limit (nil:
	// rclone on PATH, the user's own configuration).
	Rclone *cloud.Rclone

	// Sched is the bus budget (nil topology and no simulation or limit:
	// no scheduler).
	Sched Schedule
	// Notify is the notification config (webhooks, e-mail), loaded by the
	// front end (notify.LoadFile).
	Notify notify.Config
	// Drives is the drive-health check of the destinations before the job
	// (smartctl): DrivesWarn (the zero value) says which drives report
	// problems, DrivesRefuse refuses the job then, DrivesOff skips it.
	Drives DriveCheck

	// Catalog is where the job is recorded (its station names the
	// notifications); FS the filesystem (nil: the OS).
	Catalog     *catalog.Catalog
	FS          fsys.FS
	ToolVersion string
	// ResumeArgs go into every resume command the engine writes.
	ResumeArgs string

	Hooks Hooks
}

// Copying is how a job copies and checks each file.
type Copying struct {
	Hashes     []hashing.Algo
	Verify     offload.VerifyMode
	VerifyAll  bool
	Layout     string
	OnConflict offload.Conflict
	// IncludeHidden copies the card's hidden files too; Ignore are the
	// patterns of files left on the card (dit's ignore syntax).
	IncludeHidden bool
	Ignore        []string
	// AllowDegraded writes to a dit array with a blade missing.
	AllowDegraded   bool
	BlockSize       int
	CheckpointEvery int64 // 0: the engine's default; negative: never
	Throttle        float64
	// RereadCard: a resume reads the kept prefixes of files going on from
	// the middle from the card again (offload.Env.RereadCard).
	RereadCard bool
}

// Sealing is what a job writes beside each card's copies: the hash lists
// and the editorial lists.
type Sealing struct {
	// MHL is the hash lists written into each card's folder: asc, v1,
	// both or none ("" asc).
	MHL string
	// ALE adds the editorial lists (an Avid Log Exchange file, a CMX 3600
	// EDL and an FCPXML per frame rate) to the reports
	// written when the job ends, when it has clips (dit offload --ale).
	ALE bool
	// The ASC MHL creator info and folder hashes of the cards sealed in
	// this run.
	Author            offload.Author
	Location, Comment string
	NoDirectoryHashes bool
}

// Proxying is the editorial proxies a job makes of its clips.
type Proxying struct {
	// Proxies makes editorial proxies of the clips, from each card's
	// verified copy once the card is done: "PRESET[,burnin]" (dit offload
	// --proxies; internal/proxies). ProxiesTo are the folder destinations
	// they go to (default the first folder -d); both are recorded with
	// the job, and a resume makes those (ResumeProxies). ProxyWorkers how
	// many ffmpeg run at once (0: 1), this run's.
	Proxies      string
	ProxiesTo    []string
	ProxyWorkers int
}

// Schedule is a job's bus budget: the plan of a topology enforced by a
// scheduler (internal/sched).
type Schedule struct {
	// Topology is the set's topology (a topology file's): the job's part
	// of it is planned (JobTopology) and its other sources plan the cards
	// that join later. Prepared means it is the job's own already (the
	// plan dit-gui showed), planned as it is.
	Topology *plan.Topology
	Prepared bool
	// Discover: without a topology, the volumes of the cards and
	// destinations are discovered (dit offload --simulate or --limit
	// without --topology).
	Discover bool
	// Limits cap destinations: RATE (all) or DEST=RATE.
	Limits []string
	// Simulate plays the topology's hardware at Scale x its rates;
	// PhysicsOnly does not enforce the plan's shares (benchmarks).
	Simulate    bool
	Scale       float64
	PhysicsOnly bool
	// Sizes fills each card's size from its folder for the plan's times
	// (always in a cascade).
	Sizes bool
}

// active tells whether the job gets a scheduler.
func (s Schedule) active() bool {
	return s.Topology != nil || s.Discover || s.Simulate || len(s.Limits) > 0
}

// Hooks are the front end's: each may be nil. They are called from any
// goroutine and must not block long.
type Hooks struct {
	// DriveHealth asks a destination folder's drive for its health (nil:
	// devices.HealthOf, smartctl); tests give their own.
	DriveHealth func(ctx context.Context, vols []devices.Volume, path string) *devices.Health
	// OnEvent gets every engine event (after the clips, the scheduler and
	// before the notifications have seen it).
	OnEvent func(offload.Event)
	// OnPlan is told of the scheduler's plan and of every re-plan.
	OnPlan func(r *plan.Result, reason string)
	// OnNotify gets every notification the job makes (dit-gui shows it on
	// the desktop), whether or not Notify sends it anywhere.
	OnNotify func(notify.Message)
	// ResumeHint says how to resume a job in a notification (default:
	// the CLI's resume command).
	ResumeHint func(jobID int64) string
	// OnReports is told of the report files once written (before Run
	// returns).
	OnReports func(paths []string)
	// OnProxy is told of each proxy recorded (made or failed).
	OnProxy func(catalog.Proxy)
	// Pace wraps the scheduler (nil when there is none) in the job's
	// limiter: dit-gui's pause switch.
	Pace func(inner offload.Limiter) offload.Limiter
}

// UsageError is an error in what was given (a value, a path): the
// person fixes the input. The CLI exits 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}
