package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/internal/watch"
)

// WatchOptions are the flags of dit watch.
type WatchOptions struct {
	Preset   string
	Volumes  string // a folder whose subfolders are volumes ("" : the system's mounts)
	Interval time.Duration
	JSON     bool
	Eject    bool
	NoEject  bool
	// EjectWith runs this command with the volume's path instead of the
	// system's eject (tests; a site's own script).
	EjectWith string
	Sched     schedulerFlags
	Throttle  string // each card's read rate cap (tests)
	// NotifyConfig, when set, replaces the preset's notify: section:
	// a file's, or "none" (no notifications this run).
	NotifyConfig string
}

func newWatchCommand(g *GlobalOptions) *cobra.Command {
	var o WatchOptions
	cmd := &cobra.Command{
		Use:   "watch --preset FILE",
		Short: "Offload every camera card that is mounted, with a preset; eject each when it is free",
		Long: `Watch for volumes being mounted and offload every camera card with the
preset's settings (destinations, cascade, hashes, verification, layout, hash
lists): the first card starts a job, the next ones join it while it runs
(planned and scheduled as dit offload does); a card that arrives after the job
ended starts the next one. Runs until Ctrl-C.

A camera card is recognised by its folders (DCIM, PRIVATE, XDROOT, CONTENTS,
CLIPS, ARRI/RED/Blackmagic media) or by the preset's volume_pattern. Every
other volume is ignored and said so: system disks, the destinations and
anything holding one, the blades of a dit array, a card already offloaded and
verified (skipped).

A card removed while it is copied fails its remaining files with "card
removed"; nothing partial is kept. When the same card comes back, the watch
takes it up again: files verified before are not copied again.

With eject: true in the preset (or --eject), each card is ejected once it is
free (in a cascade, after its first run; otherwise when verified): udisksctl
unmount and power-off on Linux, diskutil eject on macOS. A destination is
never ejected. The result is in the event stream and the catalog.

The preset's job keys are dit offload's flags in the same words (hashes is
--hash, destinations -d, on_conflict --on-conflict, ...), checked as the flags
are when the watch starts; its own keys are topology, volume_pattern, eject
and notify. The whole format is in dit's internal/watch package doc; an
example:

  destinations: [/Volumes/Blade1]
  then: [/Volumes/SHUTTLE1, /Volumes/SHUTTLE2]
  hashes: xxh64,md5
  name: "Day {date}"
  volume_pattern: ["A[0-9][0-9][0-9]*"]
  eject: true
  limit: 1.5GB/s          # cap each destination's writes, as dit offload --limit

--limit replaces the preset's limit: for this run; --notify-config none sends
no notification this run, whatever the preset's notify: section says.

` + exitCodesHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, o, g)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Preset, "preset", "", "preset `file` (YAML): destinations, cascade, hashes, verify, layout, naming, eject")
	f.StringVar(&o.Volumes, "volumes", "", "watch this `folder`'s subfolders as volumes (default: the system's mounts; /Volumes on macOS)")
	f.DurationVar(&o.Interval, "interval", time.Second, "how often the mounted volumes are looked at")
	f.BoolVar(&o.JSON, "json", false, "newline-delimited JSON events on stdout (the watch's own: type \"volume\"; each job's, with its summary)")
	f.BoolVar(&o.Eject, "eject", false, "eject each card once it is free (as eject: true in the preset)")
	f.BoolVar(&o.NoEject, "no-eject", false, "never eject (whatever the preset says)")
	f.StringVar(&o.EjectWith, "eject-with", "", "eject by running this `command` with the volume's path as its argument")
	f.MarkHidden("eject-with")
	f.StringVar(&o.Throttle, "throttle", "", "cap each card's read rate, e.g. 200MB/s")
	f.MarkHidden("throttle")
	f.StringVar(&o.Sched.Topology, "topology", "", "topology `file` for the bus budget (overrides the preset's)")
	f.StringArrayVar(&o.Sched.Limits, "limit", nil, "cap destinations: RATE (all) or DEST=RATE, e.g. 1.5GB/s (overrides the preset's limit:)")
	f.StringVar(&o.NotifyConfig, "notify-config", "", "notifications from the notify: section of `FILE` instead of the preset's; none: no notifications this run")
	f.BoolVar(&o.Sched.Simulate, "simulate", false, "play the topology's hardware (as dit offload --simulate)")
	f.Float64Var(&o.Sched.Scale, "simulate-scale", scaleFromEnv(), "with --simulate, at this fraction of the field rates")
	f.MarkHidden("simulate")
	f.MarkHidden("simulate-scale")
	return cmd
}

func runWatch(cmd *cobra.Command, o WatchOptions, g *GlobalOptions) error {
	if o.Preset == "" {
		return usagef("--preset FILE is required: the YAML file of the watch's destinations and settings (see dit watch --help)")
	}
	p, err := watch.LoadPreset(o.Preset)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	for _, d := range append(append([]string(nil), p.Dests...), p.Then...) {
		if cloud.IsDest(d) {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return usagef("destination %s of preset %s is not there: mount it (dit never creates a destination root)", d, o.Preset)
		}
	}
	if err := checkWatchFlags(o, p); err != nil {
		return err
	}
	// This run's --throttle and --limit replace the preset's: checked as
	// dit offload's flags are.
	if _, err := (assembly.Spec{SpecPace: assembly.SpecPace{Throttle: o.Throttle, Limits: o.Sched.Limits}}).Settings(assembly.FlagNames, nil); err != nil {
		return usageOf(err)
	}
	if o.Throttle != "" {
		p.Throttle = o.Throttle
	}
	if o.NoEject {
		p.Eject = false
	} else if o.Eject {
		p.Eject = true
	}
	if o.Sched.Topology == "" {
		o.Sched.Topology = p.Topology
	}
	if len(o.Sched.Limits) == 0 {
		o.Sched.Limits = p.Limits
	} else {
		p.Limits = o.Sched.Limits
	}
	if o.NotifyConfig != "" {
		if err := checkNotifyConfig(o.NotifyConfig); err != nil {
			return err
		}
	}
	if _, err := offloadSchedule(o.Sched); err != nil {
		return err // the topology file, read before the catalog is
	}
	if err := g.checkNewCatalog(); err != nil {
		return err
	}
	fresh := g.freshCatalog()
	cat, err := g.openCatalog()
	if err != nil {
		return err
	}
	err = watchWith(cmd, o, g, p, cat)
	cat.Close()
	return forgetRefused(fresh, err)
}

// checkWatchFlags checks the watch's own values and the preset's job
// name before the catalog is opened.
func checkWatchFlags(o WatchOptions, p *watch.Preset) error {
	if o.Interval <= 0 {
		return usagef("--interval %s: give how often to look, above zero, e.g. 1s", o.Interval)
	}
	if o.Volumes != "" {
		if err := checkFolderArg("--volumes", o.Volumes, "give the folder whose subfolders are the volumes to watch"); err != nil {
			return err
		}
	}
	return checkJobName("name: of preset "+o.Preset+":", p.Name)
}

// watchWith runs the watch with its catalog open until it is stopped.
func watchWith(cmd *cobra.Command, o WatchOptions, g *GlobalOptions, p *watch.Preset, cat *catalog.Catalog) error {
	ctx := cmd.Context()
	var src watch.Source = watch.System()
	if o.Volumes != "" {
		src = watch.Dir(o.Volumes)
	}
	var jsonMu sync.Mutex
	say := func(ev watch.Event) {
		if o.JSON {
			b, _ := json.Marshal(ev)
			jsonMu.Lock()
			g.stdout.Write(append(b, '\n'))
			jsonMu.Unlock()
			return
		}
		line := fmt.Sprintf("watch: %s (%s): %s", orDash(ev.Label), ev.Path, ev.Action)
		if ev.JobID != 0 {
			line += fmt.Sprintf(" (job %d)", ev.JobID)
		}
		if ev.Message != "" {
			line += ": " + ev.Message
		}
		fmt.Fprintln(g.stdout, line)
	}
	runner := &cliRunner{cmd: cmd, g: g, o: o, p: p, cat: cat}
	w := &watch.Watcher{Preset: p, Runner: runner, Ejector: watch.SystemEjector{}, Catalog: cat, Say: say}
	if o.EjectWith != "" {
		w.Ejector = commandEjector(o.EjectWith)
	}
	if !o.JSON {
		what := describePreset(p)
		if o.NotifyConfig == "none" {
			what += ", no notifications"
		}
		fmt.Fprintf(g.stdout, "watch: preset %s: %s; waiting for camera cards (Ctrl-C stops)\n", o.Preset, what)
	}
	w.Run(ctx, watch.Watch(ctx, src, o.Interval))
	return watchStopped(g, cat, runner.started())
}

// watchStopped is how a stopped watch ends: from the verdict of each job
// it ran (the read model), nothing resumable is claimed of a job that is
// done, and a job that is not is named with what to do.
func watchStopped(g *GlobalOptions, cat *catalog.Catalog, jobs []int64) error {
	var bad []string
	code := offload.ExitOK
	safe, cards := 0, 0
	for _, id := range jobs {
		s, err := offload.LoadSummary(cat, id)
		if err != nil {
			return err
		}
		for _, c := range s.Cards {
			cards++
			if c.SafeToFormat {
				safe++
			}
		}
		switch s.Status {
		case verdict.Done:
		case verdict.Interrupted:
			code = offload.ExitInterrupted
			bad = append(bad, fmt.Sprintf("job %d is interrupted: resume it with %s", id, g.resumeCommand(id)))
		default:
			if code == offload.ExitOK {
				code = offload.ExitSomeFailed
			}
			bad = append(bad, fmt.Sprintf("job %d %s: %s", id, s.Status, orDash(nextStep(g, id, s.State, s.Cards))))
		}
	}
	if len(bad) == 0 {
		fmt.Fprintf(g.stdout, "watch stopped: %s done, %d of %s safe to format\n", plural(len(jobs), "job"), safe, plural(cards, "card"))
		return nil
	}
	return &exitError{code: code, err: errors.New("watch stopped: " + strings.Join(bad, "; "))}
}

func describePreset(p *watch.Preset) string {
	s := "to " + strings.Join(p.Dests, ", ")
	if len(p.Then) > 0 {
		s += ", then " + strings.Join(p.Then, ", ")
	}
	s += ", " + cmp.Or(p.Hashes, assembly.DefaultHashes)
	if len(p.Limits) > 0 {
		s += ", writes capped at " + strings.Join(p.Limits, " ")
	}
	if p.Eject {
		s += ", eject when free"
	}
	return s
}

// cliRunner starts a watch's jobs as dit offload would with the preset as
// its flags, printing as dit offload does.
type cliRunner struct {
	mu   sync.Mutex
	jobs []int64 // the jobs started, in order
	cmd  *cobra.Command
	g    *GlobalOptions
	o    WatchOptions
	p    *watch.Preset
	cat  *catalog.Catalog
}

// cliJob is a job of the watch and how it is run and printed.
type cliJob struct {
	*assembly.Job
	r   *cliRunner
	st  *offloadSetup
	out printer
}

func (j *cliJob) Run(ctx context.Context) (*offload.Summary, error) {
	return j.st.run(ctx, j.r.g, j.r.cat, j.out, j.Job, j.r.o.JSON)
}

func (r *cliRunner) Start(ctx context.Context, card string, resume int64, onEvent func(offload.Event)) (watch.Job, error) {
	s, err := r.settings(card, resume)
	if err != nil {
		return nil, err
	}
	out := newPrinter(r.g, r.o.JSON)
	st, err := setupOffload(r.cmd, r.offloadOptions(resume), r.g, r.cat, out, s, onEvent)
	if err != nil || st == nil {
		return nil, err
	}
	job, err := st.prep.Open(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if !slices.Contains(r.jobs, job.ID()) {
		r.jobs = append(r.jobs, job.ID())
	}
	r.mu.Unlock()
	return &cliJob{Job: job, r: r, st: st, out: out}, nil
}

// started are the jobs the watch started or resumed.
func (r *cliRunner) started() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.jobs...)
}

// settings are the job's settings for card: the preset's
// (watch.Preset.JobSettings, the same as dit offload's of the same
// flags), with the CLI's own. A resumed job takes this run's settings of
// the preset only (assembly.Spec.ForResume): it keeps its own.
func (r *cliRunner) settings(card string, resume int64) (assembly.Settings, error) {
	p, cards := *r.p, []string{card}
	if resume != 0 {
		p.Spec, cards = p.Spec.ForResume(), nil
	}
	s, err := p.JobSettings(cards, time.Now())
	if err != nil {
		return s, usageOf(err)
	}
	return cliSettings(s, resume, r.g), nil
}

// offloadOptions are what the watch gives each job besides the preset's
// settings, as dit offload's own flags: --json, the resume, the bus
// budget and the notifications (--notify-config, the preset's notify:
// section, or the user's config file).
func (r *cliRunner) offloadOptions(resume int64) OffloadOptions {
	notifyFile := r.o.NotifyConfig
	if notifyFile == "" && r.p.Notify != nil {
		notifyFile = r.p.File
	}
	return OffloadOptions{JSON: r.o.JSON, Resume: resume, Sched: r.o.Sched, NotifyConfig: notifyFile}
}

// commandEjector ejects by running a command with the volume's path.
type commandEjector string

func (c commandEjector) Eject(ctx context.Context, v watch.Volume) error {
	out, err := exec.CommandContext(ctx, string(c), v.Path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", string(c), v.Path, err, strings.TrimSpace(string(out)))
	}
	return nil
}
