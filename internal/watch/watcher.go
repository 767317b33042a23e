package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
)

// EventType is the kind of a watch's own event: in dit watch --json its
// events are "volume", beside each job's engine events
// (offload.EventType).
type EventType string

// EvVolume: the watch did something with a volume it saw (Event.Action).
const EvVolume EventType = "volume"

// Action is what a watch did with a volume.
type Action string

// The actions of a watch.
const (
	Offloaded   Action = "offload"      // a job started with the card
	Joined      Action = "join"         // the card joined the running job
	Retried     Action = "retry"        // a card of the running job came back: taken up again
	Resumed     Action = "resume"       // a card whose job ended unfinished came back: its job resumed
	Queued      Action = "queued"       // the job was ending: the card starts the next one
	Ignored     Action = "ignored"      // not a camera card (Message: why)
	Skipped     Action = "skipped"      // already offloaded and verified
	Removed     Action = "removed"      // pulled while it was copied
	Ejected     Action = "ejected"      // ejected once free
	EjectFailed Action = "eject_failed" // not ejected (Message: why)
	Errored     Action = "error"        // the watch could not do what it should (Message: why)
)

// Words is the action as a person reads it ("eject failed").
func (a Action) Words() string { return strings.ReplaceAll(string(a), "_", " ") }

// Event is what a watch says about a volume it saw: what it did with it
// (Action) and why or what came of it (Message).
type Event struct {
	Type    EventType `json:"type"` // EvVolume
	Time    time.Time `json:"time"`
	Path    string    `json:"path"`
	Label   string    `json:"label,omitempty"`
	Action  Action    `json:"action"`
	JobID   int64     `json:"job_id,omitempty"`
	Message string    `json:"message,omitempty"`
}

// Job is an offload job a watch runs: offload.Job's calls, and Run, which
// runs it to its end with the front end's output.
type Job interface {
	ID() int64
	AddCard(path string) (string, error)
	RetryCard(path string) error
	CardRemoved(path, hint string) bool
	Run(ctx context.Context) (*offload.Summary, error)
}

// Runner prepares the jobs of a watch with the front end's settings (the
// CLI: the preset as dit offload's flags; the app: its form; both assemble
// the job with internal/assembly). Start returns
// a job for card (a new one; with resume != 0 that job resumed), whose
// events also go to onEvent; a nil Job and nil error: nothing to copy (the
// card was offloaded and verified before).
type Runner interface {
	Start(ctx context.Context, card string, resume int64, onEvent func(offload.Event)) (Job, error)
}

// Watcher offloads every camera card that appears (see the package doc):
// the first starts a job, the next ones join it while it runs, one that
// comes after it ended starts the next; a card removed while it is copied
// fails with "card removed" and is taken up again when it comes back; a
// card is ejected when it is free if the preset says so.
type Watcher struct {
	Preset  *Preset
	Runner  Runner
	Ejector Ejector
	// Catalog, if set, records each eject's result with its card.
	Catalog *catalog.Catalog
	// Say receives the watch's events (from any goroutine).
	Say func(Event)

	mu      sync.Mutex
	job     Job
	jobDone chan struct{}
	vols    map[string]Volume // card label -> its volume, for eject
	// unfinished: cards whose job ended without them free or verified,
	// by path -> job, resumed when they come back.
	unfinished map[string]int64
	pending    []Volume // cards seen while a job was ending
}

// RemovedHint is what the "card removed" failures say to do.
const RemovedHint = "insert it again: dit watch takes it up, without copying verified files again"

func (w *Watcher) say(ev Event) {
	ev.Type, ev.Time = EvVolume, time.Now()
	if w.Say != nil {
		w.Say(ev)
	}
}

// Run handles changes until ctx ends or changes is closed; a running job
// is then let end (interrupted by ctx) before Run returns.
func (w *Watcher) Run(ctx context.Context, changes <-chan Change) {
	w.mu.Lock()
	if w.vols == nil {
		w.vols, w.unfinished = map[string]Volume{}, map[string]int64{}
	}
	w.mu.Unlock()
	for {
		w.mu.Lock()
		done := w.jobDone
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			w.wait()
			return
		case <-done:
			w.ended(ctx)
		case c, ok := <-changes:
			if !ok {
				w.wait()
				return
			}
			if c.Gone {
				w.gone(c.Volume)
			} else {
				w.appeared(ctx, c.Volume)
			}
		}
	}
}

// Running is the job the watch runs now (nil: none).
func (w *Watcher) Running() Job {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.job
}

func (w *Watcher) wait() {
	w.mu.Lock()
	done := w.jobDone
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (w *Watcher) appeared(ctx context.Context, v Volume) {
	ok, why := Recognize(v.Path, w.Preset)
	if !ok {
		w.say(Event{Path: v.Path, Label: v.Label, Action: Ignored, Message: why})
		return
	}
	w.mu.Lock()
	job := w.job
	w.mu.Unlock()
	if job != nil {
		err := job.RetryCard(v.Path)
		if err == nil {
			w.remember(v)
			w.say(Event{Path: v.Path, Label: v.Label, Action: Retried, JobID: job.ID(), Message: "the card is back: files verified before are not copied again"})
			return
		}
		if !errors.Is(err, offload.ErrCardNotInJob) && !errors.Is(err, offload.ErrNotRunning) {
			w.say(Event{Path: v.Path, Label: v.Label, Action: Errored, JobID: job.ID(), Message: err.Error()})
			return
		}
		label, err := job.AddCard(v.Path)
		switch {
		case err == nil:
			w.remember(v)
			w.say(Event{Path: v.Path, Label: label, Action: Joined, JobID: job.ID(), Message: why})
		case errors.Is(err, offload.ErrNotRunning):
			w.mu.Lock()
			w.pending = append(w.pending, v)
			w.mu.Unlock()
			w.say(Event{Path: v.Path, Label: v.Label, Action: Queued, JobID: job.ID(), Message: "the job is ending: the card starts the next one"})
		default:
			w.say(Event{Path: v.Path, Label: v.Label, Action: Errored, JobID: job.ID(), Message: err.Error()})
		}
		return
	}
	w.start(ctx, v, why)
}

func (w *Watcher) remember(v Volume) {
	w.mu.Lock()
	w.vols[v.Label] = v
	w.mu.Unlock()
}

// start starts a job for card v: a resume of the job it was left
// unfinished in, or a new one.
func (w *Watcher) start(ctx context.Context, v Volume, why string) {
	w.mu.Lock()
	resume := w.unfinished[v.Path]
	w.mu.Unlock()
	var job Job
	job, err := w.Runner.Start(ctx, v.Path, resume, func(e offload.Event) { w.onEvent(e) })
	if err != nil {
		w.say(Event{Path: v.Path, Label: v.Label, Action: Errored, Message: err.Error()})
		return
	}
	if job == nil {
		w.say(Event{Path: v.Path, Label: v.Label, Action: Skipped, Message: "already offloaded and verified on every destination of the preset"})
		return
	}
	w.remember(v)
	action := Offloaded
	if resume != 0 {
		action, why = Resumed, "the card is back: files verified before are not copied again"
	}
	done := make(chan struct{})
	w.mu.Lock()
	w.job, w.jobDone = job, done
	delete(w.unfinished, v.Path)
	w.mu.Unlock()
	w.say(Event{Path: v.Path, Label: v.Label, Action: action, JobID: job.ID(), Message: why})
	go func() {
		defer close(done)
		sum, err := job.Run(ctx)
		if err != nil {
			w.say(Event{Path: v.Path, Label: v.Label, Action: Errored, JobID: job.ID(), Message: err.Error()})
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, c := range sum.Cards {
			if !c.SafeToFormat && !c.CardFree {
				w.unfinished[c.Path] = sum.JobID
			}
		}
	}()
}

// ended: the running job has ended; cards that came while it was ending
// start the next one.
func (w *Watcher) ended(ctx context.Context) {
	w.mu.Lock()
	w.job, w.jobDone = nil, nil
	pending := w.pending
	w.pending = nil
	w.mu.Unlock()
	for _, v := range pending {
		if fi, err := os.Stat(v.Path); err == nil && fi.IsDir() {
			w.appeared(ctx, v)
		}
	}
}

// gone: a card of the running job that is still being read was removed.
func (w *Watcher) gone(v Volume) {
	w.mu.Lock()
	job := w.job
	w.mu.Unlock()
	if job != nil && job.CardRemoved(v.Path, RemovedHint) {
		w.say(Event{Path: v.Path, Label: v.Label, Action: Removed, JobID: job.ID(), Message: "card removed while it was copied: its remaining files fail; nothing partial is kept"})
	}
}

// onEvent ejects a card once it is free: a cascade's first run verified
// (offload.EvCardFree), or safe to format without a cascade.
func (w *Watcher) onEvent(e offload.Event) {
	if !w.Preset.Eject || w.Ejector == nil {
		return
	}
	free := e.Type == offload.EvCardFree || (e.Type == offload.EvSafeToFormat && len(w.Preset.Then) == 0)
	if !free {
		return
	}
	w.mu.Lock()
	v, ok := w.vols[e.Card]
	w.mu.Unlock()
	if !ok {
		return
	}
	go w.Eject(v, e.JobID, e.Card)
}

// Eject ejects card volume v of job jobID now (a front end's per-card
// Eject button uses it too), says how it went and records it.
func (w *Watcher) Eject(v Volume, jobID int64, label string) error {
	msg, action := "ejected: the card may be removed (it is free, NOT safe to format until every copy is verified)", Ejected
	if len(w.Preset.Then) == 0 {
		msg = "ejected: verified on every destination"
	}
	err := SafeToEject(v, w.Preset)
	if err == nil && w.Ejector == nil {
		err = errors.New("no ejector")
	}
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = w.Ejector.Eject(ctx, v)
		cancel()
	}
	if err != nil {
		msg, action = "not ejected: "+err.Error(), EjectFailed
	}
	if w.Catalog != nil && jobID != 0 {
		if cards, cerr := w.Catalog.Cards(jobID); cerr == nil {
			for _, k := range catalog.FirstRun(cards) {
				if k.Label == label {
					w.Catalog.SetCardEject(k.ID, time.Now().UTC().Format(time.RFC3339)+" "+msg)
				}
			}
		}
	}
	w.say(Event{Path: v.Path, Label: filepath.Base(v.Path), Action: action, JobID: jobID, Message: msg})
	return err
}
