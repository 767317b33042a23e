package assembly

import (
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/sched"
)

// planPrior gives the engine's live model the plan in force (in the
// run's units: a simulated job's at its scale) as what each run is
// expected to do until it has measured its own: the card's planned rate,
// its costs per file and its fixed costs; a cascade's second run its
// planned second-run rate. A card the plan does not know gets none (the
// engine's defaults).
func planPrior(s *sched.Scheduler) func(label string, hop int) live.Prior {
	return func(label string, hop int) live.Prior {
		r := s.RunPlan()
		if r == nil {
			return live.Prior{}
		}
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
}
