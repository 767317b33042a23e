package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
)

// OffloadOptions are the flags of dit offload. The job's settings are
// bound to an assembly.Spec (the preset file's keys in the flags' words:
// assembly.FlagNames), which checks them; --limit is the planning
// flags' (Sched) and goes into the Spec's Limits. The rest is the CLI's
// own.
type OffloadOptions struct {
	assembly.Spec
	JSON         bool
	Resume       int64
	RereadCard   bool
	Sched        schedulerFlags
	Again        bool   // copy cards offloaded before
	NotifyConfig string // notify: section's file ("": the user's config file; "none")
}

// AddFlags registers the flags.
func (o *OffloadOptions) AddFlags(f *pflag.FlagSet) {
	f.StringArrayVarP(&o.Dests, "dest", "d", nil, "destination `folder` (repeat for several); it must exist. rclone:REMOTE:PATH is a remote of your rclone configuration: beside a folder, each card is uploaded from its verified copy there (a second run); with only cloud destinations, each card is streamed from the card as it is read")
	f.StringArrayVar(&o.Then, "then", nil, "cascade: second-run destination `folder` (repeat for several), filled from each card's verified first copy on the first -d once the card is free; or rclone:REMOTE:PATH (a cloud upload)")
	f.IntVar(&o.ThenParallel, "then-parallel", 1, "cascade: how many cards the second run copies at once")
	addCloudFlags(f, &o.RcloneConfig, &o.RemoteBwLimit, true)
	f.StringVar(&o.Hashes, "hash", assembly.DefaultHashes, "hashes computed while reading: md5,sha1,xxh64,xxh3,xxh128,c4,blake3")
	f.StringVar(&o.Verify, "verify", "dest", "read-back: dest (every copy), source+dest (also re-read the card), none")
	addVerifyHashesFlag(f, &o.VerifyHashes, "", nil)
	f.StringVar(&o.Name, "name", "", "job name (default: date and time, e.g. 2026-11-22_093000)")
	f.StringVar(&o.Layout, "layout", offload.DefaultLayout, "folder of each card on a destination: {job}, {card}, {date}, {time}, {host}")
	f.StringVar(&o.OnConflict, "on-conflict", "fail", "when a different file is already there: fail, skip or rename")
	f.BoolVar(&o.ALE, "ale", false, "also write the job's editorial lists with its reports, when it has clips: an Avid Log Exchange file, a CMX 3600 EDL and an FCPXML (one of each per frame rate)")
	f.StringVar(&o.Proxies, "proxies", "", "make editorial proxies of the clips with ffmpeg from each card's verified copy (never the card), at low priority: `PRESET`[,burnin] ("+assembly.ProxyPresets()+"; burnin: the timecode and clip name drawn in); see docs/proxies.md")
	f.StringArrayVar(&o.ProxiesTo, "proxies-to", nil, "`DEST` of the job (a -d or --then: a folder, a dit array's at the job's end, or rclone:REMOTE:PATH uploaded and verified by the storage's MD5) the proxies go to, into its proxies/ folder (repeat for several; default the first -d)")
	f.IntVar(&o.ProxyWorkers, "proxy-workers", 1, "with --proxies, how many ffmpeg run at once (each at low priority)")
	f.BoolVar(&o.IncludeHidden, "include-hidden", false, "also copy OS metadata (.DS_Store, ._*, .Spotlight-V100, Thumbs.db, ...)")
	f.StringArrayVar(&o.Ignore, "ignore", nil, "do not copy files matching `PATTERN` (ASC MHL / gitignore syntax: *.RMD, CACHE/, /PROXY); repeat for several; recorded in each card's hash list")
	f.StringVar(&o.IgnoreFile, "ignore-file", "", "ignore patterns from `FILE`, one per line (# comments)")
	f.BoolVar(&o.AllowDegraded, "allow-degraded", false, "write to a RAID 4 array destination with one blade missing")
	o.Sched.AddFlags(f)
	f.BoolVar(&o.JSON, "json", false, "newline-delimited JSON events on stdout; the last line is the summary")
	addJobFlag(f, &o.Resume, "resume", "continue interrupted job `JOB` (same cards, destinations and settings: a different --hash, --verify, --layout, -d, ... is refused)")
	f.BoolVar(&o.RereadCard, "reread-card", false, "with --resume: read the kept part of every file going on from the middle from the card again, rather than from its last checkpoint on")
	f.StringVar(&o.Throttle, "throttle", "", "cap each card's read rate, e.g. 200MB/s (for tests and shared buses)")
	f.StringVar(&o.BlockSize, "block-size", assembly.DefaultBlockSize, "read block size")
	f.MarkHidden("block-size")
	f.StringVar(&o.Checkpoint, "checkpoint-every", assembly.DefaultCheckpoint, "make big files' copies durable this often, so an interrupted copy goes on from there (0: never)")
	f.StringVar(&o.MHL, "mhl", offload.DefaultMHL, "hash lists written into each card's folder: asc (ASC MHL history), v1 (MHL v1.1), both or none (a resumed job keeps the choice it started with)")
	f.BoolVar(&o.Again, "again", false, "copy a card even if the catalog shows it offloaded and verified before")
	f.StringVar(&o.DriveHealth, "drive-health", "warn", "destination drives reporting problems (smartctl: media errors, critical warnings, wear): warn, refuse the job, or off")
	addCreatorFlags(f, &o.Creator)
	f.BoolVar(&o.NoDirectoryHashes, "no-directory-hashes", false, "ASC MHL: list each card's folders without content and structure hashes")
	f.StringVar(&o.NotifyConfig, "notify-config", "", "notifications (webhook, e-mail) from the notify: section of `FILE` (default: the user's dit/config.yaml, if any; none: no notifications)")
}

func newOffloadCommand(g *GlobalOptions) *cobra.Command {
	var o OffloadOptions
	cmd := &cobra.Command{
		Use:   "offload -d DEST [-d DEST...] [flags] CARD...",
		Short: "Copy cards to destinations, hash inline, verify every copy",
		Long: `Copy every CARD to every DEST at once. Each card is read once; the hashes are
computed as it is read; each card lands in its own folder (--layout, default
{job}/{card}) so cards with the same file names never collide. A copy is
written to a temporary name, fsynced, renamed and its folder fsynced; then it
is read back from the medium and compared with the source hashes.

Nothing is ever written to a card. An existing different file is never
overwritten (--on-conflict). Free space is checked on every destination
before anything is written. Ctrl-C stops cleanly; resume with --resume JOB.
A card is "safe to format" only when every file is verified on every
destination and its hash lists are written there (--mhl).

Cascading copy (--then): the card is copied and verified to the -d
destinations first (a fast array); then it is "card free": it may leave the
reader (not be formatted) while the second run fills the --then destinations
(shuttles) from the first copy on the first -d (through the array reader on
a dit array), checks every file against the card's hashes of the first run
and reads the copies back. The card is safe to format only when both runs
verified it. Second runs overlap the next cards' first runs; --then-parallel
sets how many cards the second run copies at once (default 1).

` + wrapText("The one limit of --verify dest (the default): "+offload.VerifyLimit, 78) + `

A resumed job keeps the cards, destinations and settings it started with
(--hash, --verify, --verify-hashes, --layout, --on-conflict, --include-hidden,
--name, --mhl, --rclone-config, --cloud-bwlimit): giving one again with a
different value is refused (exit 2).

--author-name, --author-email, --author-phone, --author-role, --location and
--comment go into each card's ASC MHL manifest (its <creatorinfo>; the
comment after dit's own), and --no-directory-hashes lists the card's folders
there without hashes: for the cards sealed in this run (a resumed job takes
those given to it).

Examples:
  dit offload -d /Volumes/RAID -d /Volumes/SHUTTLE /Volumes/A001 /Volumes/A002
  dit offload -d /mnt/raid --hash xxh64,md5 --name Day01 --json /media/A023
  dit offload -d /Volumes/Blade1 --then /Volumes/SHUTTLE1 --then /Volumes/SHUTTLE2 /Volumes/A001
  dit offload --resume 12

` + exitCodesHelp,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOffload(cmd, o, g, args)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runOffload(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions, args []string) error {
	if err := checkNotifyConfig(o.NotifyConfig); err != nil {
		return err
	}
	// Mistakes on the command line first: before the catalog is opened
	// (or created) and asked which cards were offloaded. A resume's
	// settings are the job's: what is given again must be the same
	// (checkResume, once its catalog is open), and is then unused.
	if err := checkOffloadFlags(cmd, o, g); err != nil {
		return err
	}
	s, err := offloadSettings(o, g, args)
	if err != nil {
		return err
	}
	if o.Resume == 0 {
		if err := checkSchedFlags(o.Sched); err != nil {
			return err
		}
		if err := assembly.Check(s); err != nil {
			return err
		}
	}
	// A new job may create the catalog (in an existing folder); a resume
	// needs the one its job is in.
	open := g.openCatalog
	if o.Resume != 0 {
		open = g.openCatalogExisting
	} else if err := g.checkNewCatalog(); err != nil {
		return err
	}
	fresh := g.freshCatalog()
	cat, err := open()
	if err != nil {
		return err
	}
	err = offloadWith(cmd, o, g, cat, s, args)
	cat.Close()
	return forgetRefused(fresh, err)
}

// offloadWith runs the offload of settings s (offloadSettings) with its
// catalog open.
func offloadWith(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions, cat *catalog.Catalog, s assembly.Settings, args []string) error {
	ctx := cmd.Context()
	if o.Resume != 0 {
		if err := checkResume(cmd, o, cat, args); err != nil {
			return err
		}
	}
	out := newPrinter(g, o.JSON)
	st, err := setupOffload(cmd, o, g, cat, out, s, nil)
	if err != nil || st == nil {
		return err
	}
	job, err := st.prep.Open(ctx)
	if err != nil {
		return err
	}
	sum, err := st.run(ctx, g, cat, out, job, o.JSON)
	if err != nil {
		return err
	}
	if sum.ExitCode != 0 {
		return &exitError{code: sum.ExitCode}
	}
	return nil
}

// checkNotifyConfig refuses a missing or invalid --notify-config file
// (exit 2) before any catalog is opened (or created) or asked about the
// cards, for a new job and a resume alike.
func checkNotifyConfig(file string) error {
	if _, err := loadNotifyConfig(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s does not exist: give the file that holds the notify: section, or --notify-config none", file)
		}
		return &exitError{code: ExitUsage, err: fmt.Errorf("--notify-config: %w", err)}
	}
	return nil
}

// offloadSetup is a dit offload (or a job dit watch starts) assembled
// (internal/assembly) from the flags, ready to open and run.
type offloadSetup struct {
	prep *assembly.Prepared
}

// setupOffload assembles the job of settings s (offloadSettings: the
// flags'; a watch's: its preset's) with the CLI's own options o (the
// catalog, --again, --json, --resume, --notify-config, the bus budget)
// and prints what the catalog's memory of earlier offloads decided (nil,
// nil: the cards were all offloaded before, and it was said). extra, if
// set, gets every engine event too (a watch's).
func setupOffload(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions, cat *catalog.Catalog, out printer, s assembly.Settings, extra func(offload.Event)) (*offloadSetup, error) {
	usage := func(err error) error { return &exitError{code: ExitUsage, err: err} }
	var err error
	s.Catalog, s.Again = cat, o.Again
	// The job's number, from its events, for the events the front end
	// adds (reports).
	var jobID atomic.Int64
	s.Hooks.OnEvent = func(e offload.Event) {
		jobID.Store(e.JobID)
		if e.Type == offload.EvDecided && e.Job != nil {
			out.Decided(e.Job, cat.Path())
		} else {
			out.Event(e)
		}
		if extra != nil {
			extra(e)
		}
	}
	if o.Resume != 0 {
		// A resumed job writes the hash lists it started with (an
		// explicit different --mhl was refused by checkResume).
		s.MHL = ""
		if err := resumeProxies(cmd, cat, o.Resume, &s); err != nil {
			return nil, err
		}
	}
	if o.JSON {
		s.Hooks.OnReports = func(paths []string) {
			out.Event(offload.Event{Type: "reports", Time: time.Now(), JobID: jobID.Load(), Message: strings.Join(paths, "\n")})
		}
		s.Hooks.OnProxy = func(p catalog.Proxy) { out.Event(proxyEvent(p)) }
	}
	if s.Notify, err = loadNotifyConfig(o.NotifyConfig); err != nil {
		return nil, usage(fmt.Errorf("--notify-config: %w", err))
	}
	if s.Sched, err = offloadSchedule(o.Sched); err != nil {
		return nil, err
	}
	p, err := assembly.Prepare(cmd.Context(), s)
	if err != nil {
		return nil, usageOf(err)
	}
	for _, d := range p.Decisions {
		if o.JSON {
			ev := offload.Event{Type: offload.EventType(d.Event), Time: time.Now(), Card: d.Label, Message: d.Message}
			if d.Prior != nil {
				ev.Path = d.Card
			}
			out.Event(ev)
		} else {
			fmt.Fprintln(g.stdout, d.Message)
		}
	}
	if p.NothingToCopy {
		if !o.JSON {
			fmt.Fprintln(g.stdout, assembly.NothingToCopy)
		}
		return nil, nil
	}
	for _, n := range p.Notes {
		fmt.Fprintln(g.stderr, "dit: note:", n)
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(g.stderr, "dit: warning:", w)
	}
	return &offloadSetup{prep: p}, nil
}

// usageOf is err with the exit code of a usage error when the assembly
// says the input is at fault.
func usageOf(err error) error {
	var ue *assembly.UsageError
	if errors.As(err, &ue) {
		return &exitError{code: ExitUsage, err: ue.Err}
	}
	return err
}

// offloadSettings are the job's settings of the flags, without the
// catalog, the hooks, the notifications and the topology: the Spec's
// (each value checked by assembly, a bad one a usage error naming its
// flag) and the CLI's own. A resume takes this run's settings only
// (Spec.ForResume): the job keeps its cards, destinations and the rest.
func offloadSettings(o OffloadOptions, g *GlobalOptions, args []string) (assembly.Settings, error) {
	spec := o.Spec
	spec.Limits = o.Sched.Limits
	if o.ThenParallel == 0 {
		// The Spec's "not given" (1); typed on the command line, a
		// mistake (the flag's default is 1).
		return assembly.Settings{}, &exitError{code: ExitUsage, err: errors.New("--then-parallel: 0: give 1 or more cards at once")}
	}
	if o.Resume != 0 {
		spec, args = spec.ForResume(), nil
	} else if o.RereadCard {
		return assembly.Settings{}, &exitError{code: ExitUsage, err: errors.New("--reread-card: only with --resume JOB (a new job reads every card whole)")}
	}
	s, err := spec.Settings(assembly.FlagNames, args)
	if err != nil {
		return assembly.Settings{}, usageOf(err)
	}
	s.RereadCard = o.RereadCard
	return cliSettings(s, o.Resume, g), nil
}

// cliSettings are a job's settings with what the CLI adds to them: the
// job it resumes (0: a new one), the OS's filesystem, dit's version and
// the resume command's flags.
func cliSettings(s assembly.Settings, resume int64, g *GlobalOptions) assembly.Settings {
	s.Resume, s.FS, s.ToolVersion, s.ResumeArgs = resume, fsys.OS{}, version, g.resumeArgs()
	return s
}

// run runs an assembled job to its end and prints its summary.
func (st *offloadSetup) run(ctx context.Context, g *GlobalOptions, cat *catalog.Catalog, out printer, job *assembly.Job, jsonOut bool) (*offload.Summary, error) {
	if err := job.Start(); err != nil {
		job.Close()
		return nil, err
	}
	pv := job.Plan()
	if pv != nil && !jsonOut {
		// The plan of what runs (simulating at a scale, the scaled rates
		// and times).
		writePlan(g.stdout, pv.Topology, planJob{algos: pv.Hashes, verify: pv.Verify, valgos: pv.VerifyHashes}, pv.Run)
		writeScale(g.stdout, pv.Scale)
		fmt.Fprintln(g.stdout)
	}
	if jsonOut {
		// stdout is the JSON stream: the job's number, which a DIT needs
		// to resume it, goes to stderr too.
		fmt.Fprintf(g.stderr, "dit: job %d %q started (if it stops: %s)\n", job.ID(), job.Name(), g.resumeCommand(job.ID()))
	}
	out.Start(job.Job)
	sum, err := job.Run(ctx)
	out.Stop()
	if err != nil {
		notifyWarnings(g, job.Finish(ctx, nil, err))
		return nil, err
	}
	if sum.NothingToDo {
		// A resume of a done job that found nothing to do: it changed
		// nothing, and says so (the JSON summary carries nothing_to_do).
		msg := fmt.Sprintf("nothing to do: job %d is done (%s shows it)", sum.JobID, g.showCommand(sum.JobID))
		out.Summary(sum, cat.Path())
		if jsonOut {
			fmt.Fprintln(g.stderr, "dit: "+msg)
		} else {
			fmt.Fprintln(g.stdout, "\n"+msg)
		}
		notifyWarnings(g, job.Finish(ctx, nil, nil)) // nothing happened: no job_done again
		return sum, nil
	}
	out.Summary(sum, cat.Path())
	if err := job.LearnErr(); err != nil {
		fmt.Fprintln(g.stderr, "dit: warning: the job's costs were not learned for the next plans:", err)
	}
	if jsonOut && sum.ExitCode != 0 {
		if next := nextStep(g, sum.JobID, sum.State, sum.Cards); next != "" {
			fmt.Fprintf(g.stderr, "dit: job %d %s: %s\n", sum.JobID, sum.State, next)
		}
	}
	if pv != nil && !jsonOut {
		writePlanSummary(g.stdout, sum.Plans)
		if err := job.PlanErr(); err != nil {
			fmt.Fprintln(g.stderr, "dit: warning: re-planning:", err)
		}
	}
	if written := job.Reports(); !jsonOut && len(written) > 0 {
		fmt.Fprintln(g.stdout, "Reports:")
		for _, p := range written {
			fmt.Fprintln(g.stdout, "  "+p)
		}
		writeArrayPlaces(g.stdout, append(slices.Clone(sum.Destinations), sum.Then...))
	} else if !jsonOut && !hasFolderDest(sum) {
		fmt.Fprintln(g.stdout, reportsNotWritten(g, sum.JobID))
	}
	if !jsonOut {
		writeProxies(g, job)
	}
	notifyWarnings(g, job.Finish(ctx, sum, nil))
	return sum, nil
}

// parseJobID reads a command's JOB argument (dit job show, verify,
// report): a job number, else a usage error naming the value.
func parseJobID(s string) (int64, error) {
	id, ok := parseJobNumber(s)
	if !ok {
		return 0, usagef("JOB %q: not a job number: %s", s, jobNumberHint)
	}
	return id, nil
}

// wrapText breaks s into lines of at most width characters, at spaces.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// ignorePatterns gathers --ignore and --ignore-file patterns (dit mhl's
// flags) as dit offload's are read (assembly.IgnorePatterns).
func ignorePatterns(flags []string, file string) ([]string, error) {
	return assembly.IgnorePatterns(flags, file, assembly.FlagNames)
}

// hasFolderDest: the job has a destination that is not a cloud one (the
// reports are written into those at its end).
func hasFolderDest(s *offload.Summary) bool {
	for _, d := range append(append([]string(nil), s.Destinations...), s.Then...) {
		if !cloud.IsDest(d) {
			return true
		}
	}
	return false
}

// reportsNotWritten is the summary's line for a job with only cloud
// destinations: no folder got its reports.
func reportsNotWritten(g *GlobalOptions, jobID int64) string {
	return fmt.Sprintf("Reports: not written (no folder destination): %s --out DIR writes them", g.withCatalog(fmt.Sprintf("dit report %d", jobID)))
}
