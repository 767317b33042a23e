package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
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

The preset file format is in dit's internal/watch package doc; an example:

  destinations: [/Volumes/Blade1]
  then: [/Volumes/SHUTTLE1, /Volumes/SHUTTLE2]
  hashes: xxh64,md5
  name: "Day {date}"
  volume_pattern: ["A[0-9][0-9][0-9]*"]
  eject: true

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
	f.BoolVar(&o.Sched.Simulate, "simulate", false, "play the topology's hardware (as dit offload --simulate)")
	f.Float64Var(&o.Sched.Scale, "simulate-scale", scaleFromEnv(), "with --simulate, at this fraction of the field rates")
	f.MarkHidden("simulate")
	f.MarkHidden("simulate-scale")
	cmd.MarkFlagRequired("preset")
	return cmd
}

// volumeEvent is what the watch itself says, one per volume seen.
type volumeEvent struct {
	Type    string    `json:"type"` // "volume"
	Time    time.Time `json:"time"`
	Path    string    `json:"path"`
	Label   string    `json:"label,omitempty"`
	Action  string    `json:"action"` // offload, join, retry, resume, ignored, skipped, removed, ejected, eject_failed, error
	JobID   int64     `json:"job_id,omitempty"`
	Message string    `json:"message,omitempty"`
}

// watcher is the state of a dit watch.
type watcher struct {
	cmd    *cobra.Command
	g      *GlobalOptions
	o      WatchOptions
	p      *watch.Preset
	cat    *catalog.Catalog
	eject  watch.Ejector
	jsonMu sync.Mutex

	mu      sync.Mutex
	job     *offload.Job
	jobDone chan struct{}
	vols    map[string]watch.Volume // card label -> its volume, for eject
	// unfinished: cards whose job ended without them verified, by path ->
	// job, taken up again (resumed) when they come back.
	unfinished map[string]int64
	pending    []string // cards seen while a job was ending
}

func (w *watcher) say(ev volumeEvent) {
	ev.Type, ev.Time = "volume", time.Now()
	if w.o.JSON {
		b, _ := json.Marshal(ev)
		w.jsonMu.Lock()
		w.g.stdout.Write(append(b, '\n'))
		w.jsonMu.Unlock()
		return
	}
	line := fmt.Sprintf("watch: %s (%s): %s", orDash(ev.Label), ev.Path, ev.Action)
	if ev.JobID != 0 {
		line += fmt.Sprintf(" (job %d)", ev.JobID)
	}
	if ev.Message != "" {
		line += ": " + ev.Message
	}
	fmt.Fprintln(w.g.stdout, line)
}

func runWatch(cmd *cobra.Command, o WatchOptions, g *GlobalOptions) error {
	ctx := cmd.Context()
	p, err := watch.LoadPreset(o.Preset)
	if err != nil {
		return &exitError{code: offload.ExitUsage, err: err}
	}
	for _, d := range append(append([]string(nil), p.Destinations...), p.Then...) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("destination %s of preset %s is not there: mount it (dit never creates a destination root)", d, o.Preset)
		}
	}
	if o.NoEject {
		p.Eject = false
	} else if o.Eject {
		p.Eject = true
	}
	if o.Sched.Topology == "" {
		o.Sched.Topology = p.Topology
	}
	cat, err := g.openCatalog()
	if err != nil {
		return err
	}
	defer cat.Close()
	var src watch.Source = watch.System()
	if o.Volumes != "" {
		src = watch.Dir(o.Volumes)
	}
	w := &watcher{cmd: cmd, g: g, o: o, p: p, cat: cat, eject: watch.SystemEjector{}, vols: map[string]watch.Volume{}, unfinished: map[string]int64{}}
	if o.EjectWith != "" {
		w.eject = commandEjector(o.EjectWith)
	}
	if !o.JSON {
		fmt.Fprintf(g.stdout, "watch: preset %s: %s; waiting for camera cards (Ctrl-C stops)\n", o.Preset, describePreset(p))
	}
	changes := watch.Watch(ctx, src, o.Interval)
	for {
		w.mu.Lock()
		done := w.jobDone
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			w.wait()
			return &exitError{code: offload.ExitInterrupted, err: errors.New("watch stopped (Ctrl-C): a job it was running is resumable with dit offload --resume")}
		case <-done:
			w.ended()
		case c, ok := <-changes:
			if !ok {
				w.wait()
				return &exitError{code: offload.ExitInterrupted}
			}
			if c.Gone {
				w.gone(c.Volume)
			} else {
				w.appeared(ctx, c.Volume)
			}
		}
	}
}

func describePreset(p *watch.Preset) string {
	s := "to " + strings.Join(p.Destinations, ", ")
	if len(p.Then) > 0 {
		s += ", then " + strings.Join(p.Then, ", ")
	}
	s += ", " + p.Hashes
	if p.Eject {
		s += ", eject when free"
	}
	return s
}

// wait lets a running job end (interrupted by ctx).
func (w *watcher) wait() {
	w.mu.Lock()
	done := w.jobDone
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// appeared handles a volume that was mounted.
func (w *watcher) appeared(ctx context.Context, v watch.Volume) {
	ok, why := watch.Recognize(v.Path, w.p)
	if !ok {
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "ignored", Message: why})
		return
	}
	w.mu.Lock()
	job := w.job
	w.mu.Unlock()
	if job != nil {
		// The card of the running job came back: take it up again.
		if err := job.RetryCard(v.Path); err == nil {
			w.remember(v)
			w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "retry", JobID: job.ID(), Message: "the card is back: files verified before are not copied again"})
			return
		} else if !strings.Contains(err.Error(), "is not in job") {
			w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "error", JobID: job.ID(), Message: err.Error()})
			return
		}
		label, err := job.AddCard(v.Path)
		switch {
		case err == nil:
			w.remember(v)
			w.say(volumeEvent{Path: v.Path, Label: label, Action: "join", JobID: job.ID(), Message: why})
			return
		case errors.Is(err, offload.ErrNotRunning):
			w.mu.Lock()
			w.pending = append(w.pending, v.Path)
			w.mu.Unlock()
			w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "queued", JobID: job.ID(), Message: "the job is ending: the card starts the next one"})
			return
		default:
			w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "error", JobID: job.ID(), Message: err.Error()})
			return
		}
	}
	w.start(ctx, v, why)
}

func (w *watcher) remember(v watch.Volume) {
	w.mu.Lock()
	w.vols[v.Label] = v
	w.mu.Unlock()
}

// start starts a job for card v: a resume of the job it was left
// unfinished in, or a new one.
func (w *watcher) start(ctx context.Context, v watch.Volume, why string) {
	w.mu.Lock()
	resume := w.unfinished[v.Path]
	w.mu.Unlock()
	o := w.offloadOptions()
	args := []string{v.Path}
	if resume != 0 {
		o.Resume, args = resume, nil
		o.Dests, o.Then = nil, nil
	}
	out := newPrinter(w.g, w.o.JSON)
	st, err := setupOffload(w.cmd, o, w.g, w.cat, out, args)
	if err != nil {
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "error", Message: err.Error()})
		return
	}
	if st == nil {
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "skipped", Message: "already offloaded and verified on every destination of the preset"})
		return
	}
	prev := st.opts.OnEvent
	st.opts.OnEvent = func(e offload.Event) {
		prev(e)
		w.onEvent(ctx, e)
	}
	var job *offload.Job
	if resume != 0 {
		job, err = offload.Resume(ctx, w.cat, resume, st.opts)
	} else {
		job, err = offload.New(ctx, st.opts)
	}
	if err != nil {
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "error", Message: err.Error()})
		return
	}
	w.remember(v)
	action := "offload"
	if resume != 0 {
		action, why = "resume", "the card is back: files verified before are not copied again"
	}
	w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: action, JobID: job.ID(), Message: why})
	done := make(chan struct{})
	w.mu.Lock()
	w.job, w.jobDone = job, done
	delete(w.unfinished, v.Path)
	w.mu.Unlock()
	go func() {
		defer close(done)
		sum, err := st.run(ctx, w.g, w.cat, out, job, w.o.JSON)
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil {
			fmt.Fprintf(w.g.stderr, "dit: watch: job %d: %v\n", job.ID(), err)
			return
		}
		for _, c := range sum.Cards {
			if !c.SafeToFormat && !c.CardFree {
				w.unfinished[c.Path] = sum.JobID
			}
		}
	}()
}

// ended is called when the running job has ended: cards that came while it
// was ending start the next one.
func (w *watcher) ended() {
	w.mu.Lock()
	w.job, w.jobDone = nil, nil
	pending := w.pending
	w.pending = nil
	w.mu.Unlock()
	for _, p := range pending {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			w.appeared(w.cmd.Context(), watch.Volume{Path: p, Label: labelOf(p)})
		}
	}
}

func labelOf(p string) string {
	p = strings.TrimRight(p, string(os.PathSeparator))
	if i := strings.LastIndexByte(p, os.PathSeparator); i >= 0 {
		return p[i+1:]
	}
	return p
}

// gone handles a volume that went away: a card of the running job that is
// still being read is removed.
func (w *watcher) gone(v watch.Volume) {
	w.mu.Lock()
	job := w.job
	w.mu.Unlock()
	if job != nil && job.CardRemoved(v.Path, "insert it again: dit watch takes it up, without copying verified files again") {
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: "removed", JobID: job.ID(), Message: "card removed while it was copied: its remaining files fail; nothing partial is kept"})
	}
}

// onEvent ejects a card once it is free (a cascade's first run verified,
// or verified without a cascade).
func (w *watcher) onEvent(ctx context.Context, e offload.Event) {
	if !w.p.Eject {
		return
	}
	free := e.Type == offload.EvCardFree || (e.Type == offload.EvCardDone && e.State == offload.StateVerified &&
		len(w.p.Then) == 0 && !strings.HasSuffix(e.Card, offload.SecondRunSuffix))
	if !free {
		return
	}
	w.mu.Lock()
	v, ok := w.vols[e.Card]
	job := w.job
	w.mu.Unlock()
	if !ok {
		return
	}
	go func() {
		msg, action := "ejected: the card may be removed (it is free, NOT safe to format until every copy is verified)", "ejected"
		if len(w.p.Then) == 0 {
			msg = "ejected: verified on every destination"
		}
		err := watch.SafeToEject(v, w.p)
		if err == nil {
			ectx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = w.eject.Eject(ectx, v)
			cancel()
		}
		if err != nil {
			msg, action = "not ejected: "+err.Error(), "eject_failed"
		}
		var id int64
		if job != nil {
			id = job.ID()
			w.recordEject(id, e.Card, msg)
		}
		w.say(volumeEvent{Path: v.Path, Label: v.Label, Action: action, JobID: id, Message: msg})
	}()
}

// recordEject keeps the eject result with the card in the catalog.
func (w *watcher) recordEject(jobID int64, label, msg string) {
	cards, err := w.cat.Cards(jobID)
	if err != nil {
		return
	}
	for _, k := range catalog.FirstRun(cards) {
		if k.Label == label {
			w.cat.SetCardEject(k.ID, time.Now().UTC().Format(time.RFC3339)+" "+msg)
		}
	}
}

// offloadOptions are the preset as dit offload's flags.
func (w *watcher) offloadOptions() OffloadOptions {
	p := w.p
	name := p.Name
	if name != "" {
		host, _ := os.Hostname()
		now := time.Now()
		name = strings.NewReplacer("{date}", now.Format("2006-01-02"), "{time}", now.Format("150405"), "{host}", host).Replace(name)
	}
	return OffloadOptions{Dests: p.Destinations, Then: p.Then, ThenParallel: p.ThenParallel, Hashes: p.Hashes, Verify: p.Verify,
		VerifyHashes: p.VerifyHashes, Name: name, Layout: p.Layout, OnConflict: string(offload.ConflictFail), IncludeHidden: p.IncludeHidden,
		Ignore: p.Ignore, JSON: w.o.JSON, BlockSize: "256KiB", CheckpointEvery: "64MiB", Sched: w.o.Sched, MHL: p.MHL, Throttle: w.o.Throttle}
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
