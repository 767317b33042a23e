package serve

import (
	"os"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// liveOf is the engine's latest live snapshot of job j (state: its
// verdict) and when it was taken; nil when there is none to show: the job
// has ended, or no process is seen running it. A job of this machine runs
// while its process lives (the catalog checks its pid); another cart's
// job is known to run only by its snapshots, so one older than
// Options.LiveStale is not live.
func (s *Server) liveOf(j *catalog.Job, state verdict.State, now time.Time) (*live.Progress, time.Time, error) {
	if !j.Active || state.Ended() {
		return nil, time.Time{}, nil
	}
	p, at, ok, err := offload.LiveProgress(s.cat, j.ID)
	if err != nil || !ok {
		return nil, time.Time{}, err
	}
	if now.Sub(at) > s.o.LiveStale && !runsHere(j) {
		return nil, time.Time{}, nil
	}
	return &p, at, nil
}

// runsHere reports whether job j's process is one of this machine (the
// catalog saw it alive: j.Active).
func runsHere(j *catalog.Job) bool {
	host, _ := os.Hostname()
	return j.Active && j.PID > 0 && j.Host != "" && j.Host == host
}

// liveCard is the run of card cs at work in snapshot runs: its second run
// (Hop 2) once the snapshot has it and the first run is done, else its
// first; nil when the snapshot has neither.
func liveCard(runs []live.Card, cs offload.CardSummary) *live.Card {
	var first, second *live.Card
	for i := range runs {
		c := runs[i]
		if c.Label != cs.Label {
			continue
		}
		if c.Hop == 2 {
			second = &c
		} else {
			first = &c
		}
	}
	if second != nil && (first == nil || first.Phase == live.Done) {
		return second
	}
	return first
}
