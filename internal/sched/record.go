package sched

import (
	"encoding/json"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

// record records a plan (and re-plan) in the catalog: the plan in field
// units, and, simulating at a scale, in the units of the run
// (catalog.Plan.RunDetail). The caller holds mu and has set s.run.
func (s *Scheduler) record(res *plan.Result, reason string) error {
	if s.cat == nil {
		return nil
	}
	detail, _ := json.Marshal(res)
	p := &catalog.Plan{JobID: s.jobID, T: s.cfg.Now(), Reason: reason, Simulated: s.cfg.Simulate, Scale: s.scale,
		Total: res.Total, Bottleneck: res.Bottleneck, Detail: string(detail)}
	if run := s.run; s.scale != 1 && run != nil {
		// The times as the run takes them (the costs are not scaled).
		b, _ := json.Marshal(run)
		p.RunDetail = string(b)
	}
	for _, c := range res.Cards {
		pc := catalog.PlanCard{Name: c.Name, Rate: c.Rate, LimitedBy: c.LimitedBy, ETASeconds: c.ETASeconds}
		for _, k := range s.cards {
			if k.Label == c.Name {
				pc.CardID = k.CatalogID
			}
		}
		p.Cards = append(p.Cards, pc)
	}
	return s.cat.AddPlan(p)
}

// StartJob binds the scheduler to a prepared job: its cards (labels,
// catalog ids, bytes to copy) in the job's order, then Start. The CLI and
// the GUI both use it.
func (s *Scheduler) StartJob(cat *catalog.Catalog, job *offload.Job) error {
	recs, err := cat.Cards(job.ID())
	if err != nil {
		return err
	}
	snap := job.Snapshot()
	var cards []Card
	for i, k := range catalog.FirstRun(recs) {
		c := Card{Label: k.Label, CatalogID: k.ID, Bytes: k.Bytes, Files: k.Files}
		if i < len(snap.Cards) {
			c.Bytes = snap.Cards[i].Bytes
		}
		cards = append(cards, c)
	}
	return s.Start(cat, job.ID(), cards)
}
