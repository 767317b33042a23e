package assembly

import (
	"sync"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/sched"
)

// planPrior gives the engine's live model the plan in force (in the
// run's units: a simulated job's at its scale) as what each run is
// expected to do until it has measured its own: the card's planned rate,
// its costs per file and its fixed costs; a cascade's second run its
// planned second-run rate. A card the plan does not know gets none (the
// engine's defaults). A card re-planned away once copied (its budget
// given to the others) keeps what the last plan that had it said: its
// read-back and its hash lists are still to come, and a cascade's
// second run has not started; without it their "safe in" was unknown
// from the moment the card was copied until they had measured their own.
func planPrior(s *sched.Scheduler) func(label string, hop int) live.Prior {
	type run struct {
		label  string
		second bool
	}
	var (
		mu   sync.Mutex
		seen *plan.Result
		last = map[run]live.Prior{}
	)
	return func(label string, hop int) live.Prior {
		mu.Lock()
		defer mu.Unlock()
		// Every card of each plan as it comes into force.
		if r := s.RunPlan(); r != nil && r != seen {
			seen = r
			for _, c := range r.Cards {
				last[run{c.Name, false}] = priorIn(r, c.Name, 1)
				last[run{c.Name, true}] = priorIn(r, c.Name, 2)
			}
		}
		return last[run{label, hop == 2}]
	}
}

// priorIn is the prior plan r gives a run of card label.
func priorIn(r *plan.Result, label string, hop int) live.Prior {
	pr, ok := r.Prior(label)
	if !ok {
		return live.Prior{}
	}
	out := live.Prior{Rate: pr.Rate, PerFile: pr.PerFile, VerifyPerFile: pr.VerifyPerFile, Fixed: pr.Fixed}
	if pr.VerifyRate > 0 {
		out.VerifyRate = pr.VerifyRate
	}
	if hop == 2 {
		out = live.Prior{PerFile: pr.PerFile, VerifyPerFile: pr.VerifyPerFile}
		if c := r.Card(label); c != nil {
			out.Rate = c.SecondRate
		}
	}
	return out
}
