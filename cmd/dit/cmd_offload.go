package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// OffloadOptions are the flags of dit offload.
type OffloadOptions struct {
	Dests         []string
	Then          []string // a cascade's second-run destinations
	ThenParallel  int
	Hashes        string
	Verify        string
	VerifyHashes  string
	Name          string
	Layout        string
	OnConflict    string
	IncludeHidden bool
	Ignore        []string
	IgnoreFile    string
	AllowDegraded bool
	JSON          bool
	Resume        int64
	Throttle      string
	BlockSize     string
	// CheckpointEvery: mid-file resume granularity (bytes, "0" off).
	CheckpointEvery string
	Sched           schedulerFlags
	MHL             string   // asc | v1 | both | none
	ALE             bool     // an ALE per frame rate with the reports
	Proxies         string   // PRESET[,burnin]: editorial proxies of the clips
	ProxiesTo       []string // the folder destinations they go to
	ProxyWorkers    int      // ffmpeg at once
	Again           bool     // copy cards offloaded before
	// Creator: the ASC MHL creatorinfo (author, location, comment);
	// NoDirectoryHashes: folders without hashes. Per run.
	Creator           creatorFlags
	NoDirectoryHashes bool
	NotifyConfig      string // notify: section's file ("": the user's config file; "none")
	DriveHealth       string // warn | refuse | off: the destinations' drive health (smartctl)
	Cloud             cloudFlags
}

// AddFlags registers the flags.
func (o *OffloadOptions) AddFlags(f *pflag.FlagSet) {
	f.StringArrayVarP(&o.Dests, "dest", "d", nil, "destination `folder` (repeat for several); it must exist. rclone:REMOTE:PATH is a remote of your rclone configuration: beside a folder, each card is uploaded from its verified copy there (a second run); with only cloud destinations, each card is streamed from the card as it is read")
	f.StringArrayVar(&o.Then, "then", nil, "cascade: second-run destination `folder` (repeat for several), filled from each card's verified first copy on the first -d once the card is free; or rclone:REMOTE:PATH (a cloud upload)")
	f.IntVar(&o.ThenParallel, "then-parallel", 1, "cascade: how many cards the second run copies at once")
	o.Cloud.AddFlags(f, true)
	f.StringVar(&o.Hashes, "hash", "xxh64,md5", "hashes computed while reading: md5,sha1,xxh64,xxh3,xxh128,c4,blake3")
	f.StringVar(&o.Verify, "verify", "dest", "read-back: dest (every copy), source+dest (also re-read the card), none")
	addVerifyHashesFlag(f, &o.VerifyHashes, "", nil)
	f.StringVar(&o.Name, "name", "", "job name (default: date and time, e.g. 2026-11-22_093000)")
	f.StringVar(&o.Layout, "layout", offload.DefaultLayout, "folder of each card on a destination: {job}, {card}, {date}, {time}, {host}")
	f.StringVar(&o.OnConflict, "on-conflict", "fail", "when a different file is already there: fail, skip or rename")
	f.BoolVar(&o.ALE, "ale", false, "also write the job's Avid Log Exchange file (one per frame rate) with its reports, when it has clips")
	f.StringVar(&o.Proxies, "proxies", "", "make editorial proxies of the clips with ffmpeg from each card's verified copy (never the card), at low priority: `PRESET`[,burnin] ("+assembly.ProxyPresets()+"; burnin: the timecode and clip name drawn in); see docs/proxies.md")
	f.StringArrayVar(&o.ProxiesTo, "proxies-to", nil, "`DEST` of the job (a -d or --then: a folder, a dit array's at the job's end, or rclone:REMOTE:PATH uploaded and verified by the storage's MD5) the proxies go to, into its proxies/ folder (repeat for several; default the first -d)")
	f.IntVar(&o.ProxyWorkers, "proxy-workers", 1, "with --proxies, how many ffmpeg run at once (each at low priority)")
	f.BoolVar(&o.IncludeHidden, "include-hidden", false, "also copy OS metadata (.DS_Store, ._*, .Spotlight-V100, Thumbs.db, ...)")
	f.StringArrayVar(&o.Ignore, "ignore", nil, "do not copy files matching `PATTERN` (ASC MHL / gitignore syntax: *.RMD, CACHE/, /PROXY); repeat for several; recorded in each card's hash list")
	f.StringVar(&o.IgnoreFile, "ignore-file", "", "ignore patterns from `FILE`, one per line (# comments)")
	f.BoolVar(&o.AllowDegraded, "allow-degraded", false, "write to a RAID 4 array destination with one blade missing")
	o.Sched.AddFlags(f)
	f.BoolVar(&o.JSON, "json", false, "newline-delimited JSON events on stdout; the last line is the summary")
	f.Int64Var(&o.Resume, "resume", 0, "continue interrupted job `JOB` (same cards, destinations and settings: a different --hash, --verify, --layout, -d, ... is refused)")
	f.StringVar(&o.Throttle, "throttle", "", "cap each card's read rate, e.g. 200MB/s (for tests and shared buses)")
	f.StringVar(&o.BlockSize, "block-size", "256KiB", "read block size")
	f.MarkHidden("block-size")
	f.StringVar(&o.CheckpointEvery, "checkpoint-every", "64MiB", "make big files' copies durable this often, so an interrupted copy goes on from there (0: never)")
	f.StringVar(&o.MHL, "mhl", "asc", "hash lists written into each card's folder: asc (ASC MHL history), v1 (MHL v1.1), both or none (a resumed job keeps the choice it started with)")
	f.BoolVar(&o.Again, "again", false, "copy a card even if the catalog shows it offloaded and verified before")
	f.StringVar(&o.DriveHealth, "drive-health", "warn", "destination drives reporting problems (smartctl: media errors, critical warnings, wear): warn, refuse the job, or off")
	o.Creator.AddFlags(f)
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
	ctx := cmd.Context()
	if err := checkNotifyConfig(o.NotifyConfig); err != nil {
		return err
	}
	if err := o.Cloud.check(); err != nil {
		return err
	}
	if o.Resume == 0 {
		// Mistakes on the command line first: before the catalog is
		// opened (or created) and asked which cards were offloaded.
		if err := checkOffloadArgs(o, g, args); err != nil {
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
	cat, err := open()
	if err != nil {
		return err
	}
	defer cat.Close()
	if o.Resume != 0 {
		// The job remembers its cards, destinations and settings: what is
		// given again must be the same (checkResume), and is then unused.
		if err := checkResume(cmd, o, cat, args); err != nil {
			return err
		}
		args, o.Dests = nil, nil
	}
	out := newPrinter(g, o.JSON)
	st, err := setupOffload(cmd, o, g, cat, out, args, nil)
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

// checkOffloadArgs refuses a new job's command-line mistakes (the flags'
// values, then the cards, destinations and layout: offload.Check) before
// anything is opened or recorded.
func checkOffloadArgs(o OffloadOptions, g *GlobalOptions, args []string) error {
	s, err := offloadSettings(o, g, args)
	if err != nil {
		return err
	}
	if err, _ := assembly.CheckMHL(o.MHL, nil); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if err := checkSchedFlags(o.Sched); err != nil {
		return err
	}
	return assembly.Check(s)
}

// offloadSetup is a dit offload (or a job dit watch starts) assembled
// (internal/assembly) from the flags, ready to open and run.
type offloadSetup struct {
	prep *assembly.Prepared
}

// setupOffload assembles the job of the flags and prints what the
// catalog's memory of earlier offloads decided (nil, nil: the cards were
// all offloaded before, and it was said). extra, if set, gets every
// engine event too (a watch's).
func setupOffload(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions, cat *catalog.Catalog, out printer, args []string, extra func(offload.Event)) (*offloadSetup, error) {
	usage := func(err error) error { return &exitError{code: ExitUsage, err: err} }
	s, err := offloadSettings(o, g, args)
	if err != nil {
		return nil, err
	}
	s.Catalog, s.Again = cat, o.Again
	// The job's number, from its events, for the events the front end
	// adds (reports).
	var jobID atomic.Int64
	s.Hooks.OnEvent = func(e offload.Event) {
		jobID.Store(e.JobID)
		out.Event(e)
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

// offloadSettings turns the flags into the job's settings, without the
// catalog, the hooks, the notifications and the bus budget: a bad value
// is a usage error naming it.
func offloadSettings(o OffloadOptions, g *GlobalOptions, args []string) (assembly.Settings, error) {
	var none assembly.Settings
	usage := func(err error) error { return &exitError{code: ExitUsage, err: err} }
	algos, err := hashing.ParseList(o.Hashes)
	if err != nil {
		return none, usage(fmt.Errorf("--hash: %w", err))
	}
	mode, err := offload.ParseVerifyMode(o.Verify)
	if err != nil {
		return none, usage(err)
	}
	conflict, err := offload.ParseConflict(o.OnConflict)
	if err != nil {
		return none, usage(err)
	}
	if o.VerifyHashes != "fastest" && o.VerifyHashes != "all" {
		return none, usage(fmt.Errorf("invalid --verify-hashes %q: use fastest or all", o.VerifyHashes))
	}
	var throttle float64
	if o.Throttle != "" {
		if throttle, err = units.ParseRate(o.Throttle); err != nil {
			return none, usage(fmt.Errorf("--throttle: %w", err))
		}
	}
	bs, err := units.ParseBytes(o.BlockSize)
	if err != nil || bs < 4096 || bs > 256<<20 {
		return none, usage(fmt.Errorf("invalid --block-size %q: use 4KiB to 256MiB", o.BlockSize))
	}
	ignore, err := ignorePatterns(o.Ignore, o.IgnoreFile)
	if err != nil {
		return none, usage(err)
	}
	author, err := o.Creator.author()
	if err != nil {
		return none, err
	}
	ckEvery, err := units.ParseBytes(o.CheckpointEvery)
	if err != nil || ckEvery < 0 {
		return none, usage(fmt.Errorf("invalid --checkpoint-every %q: a size such as 64MiB, or 0 for never", o.CheckpointEvery))
	}
	if ckEvery == 0 {
		ckEvery = -1
	}
	if o.ThenParallel < 1 {
		return none, usage(fmt.Errorf("invalid --then-parallel %d: give 1 or more cards at once", o.ThenParallel))
	}
	if o.ProxyWorkers < 0 {
		return none, usage(fmt.Errorf("invalid --proxy-workers %d: give 1 or more ffmpeg at once", o.ProxyWorkers))
	}
	if o.Resume != 0 {
		o.Then = nil
	}
	drives, ok := map[string]assembly.DriveCheck{"": assembly.DrivesWarn, "warn": assembly.DrivesWarn, "refuse": assembly.DrivesRefuse, "off": assembly.DrivesOff}[o.DriveHealth]
	if !ok {
		return none, usage(fmt.Errorf("--drive-health %q: give warn, refuse or off", o.DriveHealth))
	}
	return assembly.Settings{Resume: o.Resume, Name: o.Name, Cards: args, Dests: o.Dests, Then: o.Then, ThenParallel: o.ThenParallel, Drives: drives,
		Hashes: algos, Verify: mode, VerifyAll: o.VerifyHashes == "all", Layout: o.Layout, OnConflict: conflict,
		IncludeHidden: o.IncludeHidden, Ignore: ignore, AllowDegraded: o.AllowDegraded, MHL: o.MHL, ALE: o.ALE,
		Proxies: o.Proxies, ProxiesTo: o.ProxiesTo, ProxyWorkers: o.ProxyWorkers,
		BlockSize: int(bs), CheckpointEvery: ckEvery, Throttle: throttle, FS: fsys.OS{}, ToolVersion: version,
		Rclone: o.Cloud.rclone(), ResumeArgs: g.resumeArgs(), Location: o.Creator.Location, Comment: o.Creator.Comment, NoDirectoryHashes: o.NoDirectoryHashes,
		Author: offload.Author{Name: author.Name, Email: author.Email, Phone: author.Phone, Role: author.Role}}, nil
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
	if _, err := assembly.LearnCosts(cat, sum.JobID); err != nil {
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
	} else if !jsonOut && !hasFolderDest(sum) {
		fmt.Fprintln(g.stdout, reportsNotWritten(g, sum.JobID))
	}
	if !jsonOut {
		writeProxies(g, job)
	}
	notifyWarnings(g, job.Finish(ctx, sum, nil))
	return sum, nil
}

func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &exitError{code: ExitUsage, err: fmt.Errorf("invalid job %q: give the job number shown by dit jobs", s)}
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

// ignorePatterns gathers --ignore and --ignore-file patterns (one per line,
// blank lines and # comments left out), each checked to be one ASC MHL can
// record.
func ignorePatterns(flags []string, file string) ([]string, error) {
	out := append([]string(nil), flags...)
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--ignore-file: %w", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
	}
	for _, p := range out {
		if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\x00\n") {
			return nil, fmt.Errorf("--ignore %q: not a pattern (e.g. *.RMD, CACHE/, /PROXY)", p)
		}
	}
	return out, nil
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
